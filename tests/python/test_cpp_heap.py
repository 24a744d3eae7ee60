"""The working set of a C++ program's loop nests (docs/frontend.md, "cache levels"): the
estimation counts the heap at the allocator, so arrays that std::vector and new[] allocate are
seen. Before, only a bare `p = malloc(n)` in the source moved the count: CloverLeaf's
`return static_cast<T *>(std::malloc(n))`, every std::vector and every `(double *)malloc(n)` were
invisible, the nests' working set unknown and their cost per iteration kept at every size.
tests/programs/cache_growth/vectors.cpp: real mpirun runs against the program's own time."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

import parjava as pj
from program_runs import measured_near, source_line

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "cache_growth" / "vectors.cpp"
MACHINE = pj.Machine.preset("shared-memory")
FLAGS = ["-std=c++17", "-O2"]
STEPS = "100"


def test_vectors_and_new_arrays_give_the_nests_their_working_set(tmp_path: Path) -> None:
    """Estimated on 256^2 cells (three arrays of 512 KiB: within L2), the sweeps are scaled
    across cache levels from a working set of about 1.5 MiB, none is listed as unscaled, and
    2048^2 (64x the cells, 96 MiB) is predicted without the unscaled-nest warning, with the
    caveat of a scaled extrapolation, and within 25 % of the program, or at least closer to it
    than the small grid's cost per cell."""
    run = ["./vectors", "256", STEPS]
    model = pj.build_model(PROGRAM, FLAGS, argv=run)
    model.estimate(run=run, np=1, directory=tmp_path / "est")

    sweep = source_line(PROGRAM, "for (int i = 1; i < n - 1; ++i) {")
    notes = [d for d in model.diagnostics if d.line == sweep and "[estimation] loop" in str(d)]
    assert notes, [str(d) for d in model.diagnostics if "[estimation]" in str(d)]
    sizes = [float(s) for s in re.findall(r"working set of ([0-9.]+) MiB", str(notes[0]))]
    assert sizes and 1.4 <= sizes[0] <= 2.5, str(notes[0])
    lines = {n["id"]: n["source"]["line"] for n in model.nodes()}
    unscaled = {lines[int(n["node"])] for n in model._doc.get("unscaled_nests", [])}
    assert sweep not in unscaled, model._doc.get("unscaled_nests")
    scaled = {lines[int(n["node"])]: n for n in model._doc.get("scaled_nests", [])}
    assert sweep in scaled and scaled[sweep]["working_set"] > 1e6, model._doc.get("scaled_nests")

    small = pj.interpret(model, MACHINE, np=1, params=model.arguments(run))
    large_run = ["./vectors", "2048", STEPS]
    large = pj.interpret(model, MACHINE, np=1, params=model.arguments(large_run))
    assert not [w for w in large.warnings if "priced at the estimation run's cost" in w], (
        large.warnings
    )
    # 64x the cells, scaled by the sweep curve: the prediction says how far it extrapolates
    # (a strided nest would slow down more), and the estimation's own input does not.
    caveat = [w for w in large.warnings if "by this machine's cost per byte of a sweep" in w]
    assert len(caveat) == 1 and f"(line {sweep}," in caveat[0], large.warnings
    assert not [w for w in small.warnings if "cost per byte of a sweep" in w], small.warnings
    exe = tmp_path / "vectors"
    subprocess.run(["mpicxx", *FLAGS, str(PROGRAM), "-o", str(exe)], check=True)
    real = measured_near(exe, 1, large_run[1:], large.time, 0.25)
    per_cell = small.time * (2046 / 254) ** 2  # the small grid's cost per cell, all sweeps
    assert abs(large.time - real) <= max(0.25 * real, abs(per_cell - real)), (
        large.time,
        real,
        per_cell,
    )
