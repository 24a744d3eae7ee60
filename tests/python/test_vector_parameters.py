"""Vector parameters carry their caller's size (issue 12: state reached "through pointers and
calls when the target is known").

C++ kernels take their arrays as `std::vector` parameters and loop to `u.size()`, `j + 1 <
u.size()` or `it != u.end()`. The callee could not name the caller's size, so each loop was
opaque: its trips were measured at the estimation input and kept at every other, and a kernel
called on two vectors of different sizes got one mean. tests/programs/containers/
vector_kernels.cpp: `total()` walks an iterator over a (n) and b (2n), `smooth()` an interior
over b and, after `grow(a, 3 * n)` resized a by reference, over a (4n). The model counts every
iteration exactly, without an estimation run; real Clang parse."""

from __future__ import annotations

from pathlib import Path

import pytest

import parjava as pj

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "containers" / "vector_kernels.cpp"
MACHINE = pj.Machine.preset("shared-memory")


def _iterations(model: pj.SourceModel, argv: list[str]) -> dict[str, int]:
    """The iterations of each loop of the kernels: how often its body ran, all calls summed."""
    p = pj.interpret(model, MACHINE, np=1, params=model.arguments(argv))
    rows = {r["id"]: r for r in p.nodes(1)}
    out = {}
    for n in model.nodes():
        if n.get("kind") == "for" and "steps" not in n.get("label", ""):
            out[n["label"]] = int(rows[n["children"][0]]["freq"])
    return out


def test_a_vector_parameter_has_the_size_of_the_vector_each_call_passes() -> None:
    run = ["./vector_kernels", "5000", "10"]
    model = pj.build_model(PROGRAM, ["-O2"], argv=run)
    opaque = [str(d) for d in model.diagnostics if d.kind == "opaque"]
    assert not opaque, opaque
    for n, steps in ((5000, 10), (12000, 3)):
        counted = _iterations(model, ["./vector_kernels", str(n), str(steps)])
        # total(a) and total(b) every step: n + 2n; smooth(b), then smooth(a) after a grew to 4n.
        assert counted == {
            "for it != u.end()": steps * 3 * n,
            "for j + 1 < u.size()": steps * (2 * n - 2) + steps * (4 * n - 2),
        }, (n, steps, counted)
