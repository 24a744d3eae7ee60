"""A loop left by `return` from inside (issue 13, honest predictions): LLNL/Quicksilver's hottest
loop, `while (true) { ... if (!retry) return nearest_facet; }` (MCT.cc:565), had no
communication and was timed whole; its records came after the loop, so every execution that
returned skipped them, the run "never executed" it and its time was outside the probes. Its
count and time are now recorded before each return, and the branch that returns, which the
model keeps with the loop, is counted. tests/programs/loop_returns/search.c; real Clang parse,
estimation under mpirun."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import parjava as pj
from program_runs import run_times, scaled_near

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "loop_returns" / "search.c"
RUN = ["./search", "2000", "10"]
MACHINE = pj.Machine.preset("shared-memory")
WALL = r"wall ([0-9.]+)"


def compiled(tmp_path: Path) -> Path:
    """The program, built as the estimation builds it."""
    exe = tmp_path / "search"
    mpicc = shutil.which("mpicc")
    assert mpicc is not None
    subprocess.run([mpicc, "-O2", str(PROGRAM), "-o", str(exe)], check=True)
    return exe


def within_its_launches(exe: Path, predicted: float, rel: float) -> list[float]:
    """Six launches of the program at RUN; assert ``predicted`` lies within ``rel`` of them.

    One launch of this 0.03-s program takes 0.025 s or 0.042 s on this VM, by the CPU it is
    bound to (setarch -R does not change it; taskset -c 1 is fast in 8 of 12 launches, -c 0 in
    6), 2026-12-02: the estimation's runs and the unmodified program's can land in different
    modes (the self-check at +53 % and -56 % in two CI runs). Where the verdict says the timings
    are not good, the prediction must lie within the program's own range: never faster than
    its fastest launch, as a model with its probes' cost taken off twice was (-100 %).
    """
    walls = run_times(exe, 1, RUN[1:], pattern=WALL, runs=6)
    assert (1 - rel) * min(walls) <= predicted <= (1 + rel) * max(walls), (predicted, walls)
    return walls


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
    # 0.03 s on a shared VM moves by more than that.
    assert check is not None
    if est.verdict == "good":
        assert check.coverage > 0.75, check.message
    else:
        within_its_launches(compiled(tmp_path), check.predicted, 0.25)


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
    assert check is not None
    exe = compiled(tmp_path)
    if est.verdict == "good":
        assert check.passed, check.message
    else:
        within_its_launches(exe, check.predicted, 0.25)
    # Five times the steps: the time scales as the program's, run side by side with its
    # estimation input (the launches' modes are shared by a pair, not by the whole test).
    longer = model.arguments(["./search", "2000", "50"])
    ratio = (
        pj.interpret(model, MACHINE, np=1, params=longer).time
        / pj.interpret(model, MACHINE, np=1, params=model.arguments(RUN)).time
    )
    real = scaled_near(exe, (1, RUN[1:]), (1, ["2000", "50"]), ratio, 0.15, pattern=WALL)
    assert ratio == pytest.approx(real, rel=0.15), (ratio, real)
