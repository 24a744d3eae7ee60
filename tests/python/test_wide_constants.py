"""Constants beyond the model's integers (issue 12: real programs build).

XSBench's random-number generator works modulo 2^63, an `unsigned long long` the model's 64-bit
signed integers cannot hold; written as -2^63 it made the model unreadable, and the build of a
public mini-app failed. tests/programs/constants/wide_constants.c: the loops that read 2^63 (a
local and a global) are measured, with the reason; INT64_MIN still counts a loop. Real Clang
parse, no estimation run."""

from __future__ import annotations

from pathlib import Path

import pytest

import parjava as pj

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "constants" / "wide_constants.c"


def test_a_constant_beyond_64_bit_integers_is_data_with_its_reason() -> None:
    model = pj.build_model(PROGRAM, ["-O2"], argv=["./wide_constants", "1000"])
    opaque = {d.line: str(d) for d in model.diagnostics if d.kind == "opaque"}
    # fast_forward's `while (n > 0)` reads n % m, m = 2^63: measured, and says why.
    assert "beyond the model's 64-bit signed integers" in opaque.get(23, ""), opaque
    # The loop from MODULUS - 3 to the global MODULUS = 2^63 likewise.
    assert "the constant MODULUS (beyond the model's" in opaque.get(43, ""), opaque
    counted = {n["label"]: n for n in model.nodes() if n.get("kind") == "for"}
    assert "for i < lookups" in counted and "for k < SMALLEST + lookups" in counted, counted
    machine = pj.Machine.preset("shared-memory")
    for lookups in (1000, 7000):
        p = pj.interpret(model, machine, np=1, params=model.arguments(["./w", str(lookups)]))
        rows = {r["id"]: r for r in p.nodes(1)}
        for label in ("for i < lookups", "for k < SMALLEST + lookups"):
            body = counted[label]["children"][0]
            assert rows[body]["freq"] == lookups, (label, lookups, rows[body])
