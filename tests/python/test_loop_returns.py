"""A loop left by `return` from inside (issue 13, honest predictions): LLNL/Quicksilver's hottest
loop, `while (true) { ... if (!retry) return nearest_facet; }` (MCT.cc:565), had no
communication and was timed whole; its records came after the loop, so every execution that
returned skipped them, the run "never executed" it and its time was outside the probes. Its
count and time are now recorded before each return, and the branch that returns, which the
model keeps with the loop, is counted. tests/programs/loop_returns/search.c; real Clang parse,
estimation under mpirun."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

import parjava as pj

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "loop_returns" / "search.c"
RUN = ["./search", "2000", "10"]
MACHINE = pj.Machine.preset("shared-memory")


def test_a_loop_left_by_return_runs_its_measured_iterations(tmp_path: Path) -> None:
    model = pj.build_model(PROGRAM, ["-O2"], argv=RUN)
    est = model.estimate(run=RUN, np=1, directory=tmp_path)
    nodes = {n["id"]: n for n in model.nodes()}
    loop = next(n for n in nodes.values() if n.get("label") == "for i < n")
    guard = next(n for n in nodes.values() if n.get("label", "").startswith("if x[i] + d >="))
    searches = 2000 * 10
    # The loop is measured whole at every exit, returns included: once per search.
    fragment = {int(n["node"]): n for n in est.summary["nodes"]}[loop["id"]]
    assert fragment["executions"] == pytest.approx(searches), fragment
    counters = {int(c["node"]): c for c in est.summary["counters"]}
    iterations = counters[loop["id"]]["outcomes"]
    assert 50 * searches < iterations < 400 * searches, iterations
    # Its returning branch is counted: true once per search, evaluated each iteration.
    assert counters[guard["id"]]["outcomes"] == pytest.approx(searches, rel=0.01), counters
    assert guard["opaque"]["probability"] == pytest.approx(searches / iterations, rel=0.02)
    # The model runs about the measured iterations (its draws of the branch follow that
    # probability), not 2 of 200 with an unmeasured 0.5 (-99 % on its own run).
    pred = pj.interpret(model, MACHINE, np=1, params=model.arguments(RUN))
    rows = {r["id"]: r for r in pred.nodes(1)}
    assert rows[guard["id"]]["freq"] == pytest.approx(iterations, rel=0.05), rows[guard["id"]]
    check = est.self_check
    # Before: coverage 1 %. The 10 % pass mark is left to the quiet examples' test: a run of
    # 0.02 s on a shared VM moves by more than that.
    assert check is not None and (check.coverage > 0.75 or est.verdict == "doubtful"), check.message


def test_probes_hidden_in_the_loops_work_are_not_taken_off_it(tmp_path: Path) -> None:
    """The loop's counters cost a dependency chain about 30 % of the run, and the loop, whose
    division chain leaves the core idle slots, about 5 %: with the calibrated cost taken off,
    the model was 25-33 % faster than the program (the self-check failed at coverage 0.67-0.75 in
    a full run). Where the unmodified program's time says the calibration takes off too much,
    that cost is scaled down, with a note; the calibration itself varies between runs (an
    uncounted counter at 3 or 6 cycles since the estimates are also written at MPI_Finalize).
    Either way the model predicts its own run and five times the steps as the program runs
    them."""
    model = pj.build_model(PROGRAM, ["-O2"], argv=RUN)
    est = model.estimate(run=RUN, np=1, directory=tmp_path, repeat=3, combine="min")
    if est.verdict == "doubtful":
        pytest.skip(f"a timed comparison needs a quiet machine: {est.trust}")
    scaled = [d.message for d in est.diagnostics if "calibrated cost" in d.message]
    if est.probe_scale < 0.8:
        assert scaled and f"scaled by {est.probe_scale:.2f}" in scaled[0], est.diagnostics
    check = est.self_check
    assert check is not None and check.passed, check.message if check else None
    exe = tmp_path / "search"
    mpicc = shutil.which("mpicc")
    assert mpicc is not None
    subprocess.run([mpicc, "-O2", str(PROGRAM), "-o", str(exe)], check=True)
    walls = []
    for _ in range(3):
        out = subprocess.run(
            ["mpirun", "-np", "1", str(exe), "2000", "50"], capture_output=True, text=True
        ).stdout
        walls.append(float(re.search(r"wall ([0-9.]+)", out).group(1)))  # type: ignore[union-attr]
    predicted = pj.interpret(
        model, MACHINE, np=1, params=model.arguments(["./search", "2000", "50"])
    ).time
    assert predicted == pytest.approx(min(walls), rel=0.15), (predicted, walls)
