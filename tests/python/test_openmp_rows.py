"""The columns of an OpenMP row loop scale (UoB-HPC/flow's kernels, thirty-first session).

`#pragma omp parallel for` over the rows is timed per iteration from outside its directive
(test_openmp_construct.py); each iteration is a loop over the columns, under `#pragma omp simd`
or plain. That time was a constant: a prediction with twice the columns kept it, and flow at
twice its grid (4x the cells) came out 2x, without a word. The inner loop is now counted (after
a simd loop, from its bounds, nothing in its body) and the time per row is its count times the
time per column. tests/programs/openmp_loops/rows.c; real runs side by side.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import parjava as pj
from program_runs import assert_explains, scaled_near, settled_self_check

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

ROWS = Path(__file__).resolve().parents[1] / "programs" / "openmp_loops" / "rows.c"
# Both working sets (two arrays of nx*ny doubles: 4 and 8 MB) lie beyond a 2-MB L2 and within a
# 32-MB L3: the model has no caches. At 1000^2 -> 2000x1000 (16 -> 32 MB) the run crossed the L3
# and measured 2.45-2.79x for a 2.01x prediction (CI, 2026-12-02); 500^2 -> 1000x500 measured
# 2.17x here.
RUN = ["./rows", "500", "500", "120"]
MACHINE = pj.Machine.preset("shared-memory")


def test_twice_the_columns_take_twice_the_time(tmp_path: Path) -> None:
    model = pj.build_model(ROWS, ["-O2", "-fopenmp"], argv=RUN)
    model.estimate(run=RUN, np=1, directory=tmp_path / "est")
    copy = (tmp_path / "est" / "rows.c").read_text()
    relax = copy[copy.index("static void relax") : copy.index("static double energy")]
    simd = relax[relax.index("#pragma omp simd") :]
    # Nothing in the vector loop's body; its count is taken after it.
    inner, after = simd.split("pj_trips_sum(", 1)
    assert "pj_" not in inner and "pj_omp_construct(" in after, relax
    notes = [d.message for d in model.diagnostics if "iterations of its inner loop" in d.message]
    assert len(notes) == 2, [d.message for d in model.diagnostics if "per iteration" in d.message]
    base = model.arguments(RUN)
    one = pj.interpret(model, MACHINE, np=1, params=base).time
    wide = pj.interpret(model, MACHINE, np=1, params={**base, "argv1": 1000}).time
    tall = pj.interpret(model, MACHINE, np=1, params={**base, "argv2": 1000}).time
    # Rows and columns are the same work: the two predictions agree.
    assert wide == pytest.approx(tall, rel=0.05), (one, wide, tall)
    exe = tmp_path / "rows"
    mpicc = shutil.which("mpicc")
    assert mpicc is not None
    subprocess.run([mpicc, "-O2", "-fopenmp", str(ROWS), "-o", str(exe)], check=True)
    real = scaled_near(exe, (1, RUN[1:]), (1, ["1000", "500", "120"]), wide / one, 0.15)
    assert wide / one == pytest.approx(real, rel=0.15), (one, wide, real)


EDGES = ROWS.parent / "edges.c"


def test_collapsed_regions_keep_their_probes_and_cost_a_team_fork(tmp_path: Path) -> None:
    """UoB-HPC/hot's halos reflect a field's edges in `omp parallel for collapse(2)` regions of
    a few microseconds, 12,000 of them in a 0.3-s run. The inner loop's counter, placed between
    the collapsed loops, failed the compile ("not enough perfectly nested loops") and the
    function lost its probes (coverage 1 %); and every region was charged a task pool's
    hand-off, 5.6 us, where libgomp forks and joins a region in 0.4 us (hot +15-29 %)."""
    run = ["./edges", "400", "40000"]
    model = pj.build_model(EDGES, ["-O2", "-fopenmp"], argv=run)
    est = model.estimate(run=run, np=1, directory=tmp_path / "est", repeat=3, combine="min")
    removed = [d.message for d in est.diagnostics if "were removed" in d.message]
    assert not removed, removed
    assert MACHINE.threads.team_start < MACHINE.threads.start / 10
    # The regions' fork at a pool's hand-off cost made the model 4-5x the run.
    assert_explains(settled_self_check(model, est, run, tmp_path / "again"))
