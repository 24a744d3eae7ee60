"""OpenMP work-sharing loops timed whole, from outside their directives (issue 12, item 4: the
estimation code at most 1.3x the program's own time).

Each thread timed its iterations from inside the loop body: a clock read every 16 iterations
and a countdown and a counter every one. In short bodies the compiler vectorises, those probes
cost more than the body: tests/programs/openmp_loops/forces.c's estimation code ran 5.05x the
program and its model predicted +135 %, which the self-check against the unmodified program
now says. Timed from before the directive to after the loop, with the count computed there
from the loop's canonical bounds, the body is the program's own: 1.09x, and the model -4 %.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import parjava as pj
from program_runs import assert_explains, settled_self_check

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

FORCES = Path(__file__).resolve().parents[1] / "programs" / "openmp_loops" / "forces.c"
RUN = ["./forces", "400000", "20"]
MACHINE = pj.Machine.preset("shared-memory")


def _estimate(directory: Path, repeat: int = 1) -> pj.SourceModel:
    model = pj.build_model(FORCES, ["-O2", "-fopenmp"], argv=RUN)
    model.estimate(
        run=RUN, np=1, directory=directory, repeat=repeat, combine="min" if repeat > 1 else "mean"
    )
    return model


@pytest.fixture(scope="module")
def forces(tmp_path_factory: pytest.TempPathFactory) -> tuple[pj.SourceModel, Path]:
    directory = tmp_path_factory.mktemp("forces")
    return _estimate(directory), directory


def test_work_sharing_loops_are_timed_from_outside_their_directives(
    forces: tuple[pj.SourceModel, Path],
) -> None:
    """Every loop form of the program (a combined `parallel for`, an orphaned `omp for` a
    macro spells, a loop counting down by two, a pointer loop) is timed whole: nothing of the
    probes is left in a loop body, and the directive keeps its line in the user's numbering."""
    model, directory = forces
    copy = (directory / "forces.c").read_text()
    assert "pj_iteration_tls" not in copy and "pj_omp_iteration" not in copy, copy
    assert copy.count("pj_omp_construct(") == 4, copy
    original = FORCES.read_text().splitlines()
    lines = copy.splitlines()
    marks = [
        (k, int(m.group(1)))
        for k, text in enumerate(lines)
        if (m := re.match(r'#line (\d+) ".*forces\.c"$', text)) and k > 2
    ]
    assert len(marks) == 4, marks
    for k, number in marks:
        # The line after the mark is the user's line `number`: the directive (or its macro).
        assert original[number - 1].strip() in lines[k + 1], (number, lines[k + 1])
        assert "omp" in original[number - 1] or "OMP_FOR" in original[number - 1]
    whole = [d for d in model.diagnostics if "executions timed whole" in d.message]
    assert len(whole) == 4, [d.message for d in model.diagnostics]
    # The balanced-loop test is over iteration times, which a whole execution does not give.
    assert not [d for d in whole if "balanced" in d.message]


def test_counts_computed_before_the_loop_give_the_model_its_trip_counts(
    forces: tuple[pj.SourceModel, Path],
) -> None:
    """A count the program holds in data (`nlocal`) and one the model does not compute (a step
    of two) are computed from the bounds before the loop and recorded once per execution: the
    reduced blocks carry 400000 and 200000 iterations per team, shared out among the tasks."""
    model, _ = forces
    blocks = {str(n["label"]): str(n["time"]) for n in model.nodes() if n["kind"] == "rb"}
    assert "400000" in blocks["for i < nlocal"] and "ntasks" in blocks["for i < nlocal"]
    assert "200000" in blocks["for i >= 0"], blocks
    one = pj.interpret(model, MACHINE, np=1, threads=1, params=model.arguments(RUN)).time
    two = pj.interpret(model, MACHINE, np=1, threads=2, params=model.arguments(RUN)).time
    assert 0.4 < two / one < 0.75, (one, two)
    # The steps follow the command line: sixty more steps, three times the time of twenty more
    # (deterministic; the set-up, measured once, is the same at every step count).
    forty, eighty = (
        pj.interpret(model, MACHINE, np=1, params=model.arguments(["./forces", "400000", s])).time
        for s in ("40", "80")
    )
    assert eighty - one == pytest.approx(3 * (forty - one), rel=0.01), (one, forty, eighty)
    assert forty - one > 0.5 * one, (one, forty)


def test_the_estimation_code_stays_within_the_bar_and_the_model_matches_the_program(
    forces: tuple[pj.SourceModel, Path], tmp_path: Path
) -> None:
    """The self-check against the unmodified program passes and the estimation code runs at
    most 1.3x its time. Timings on a shared VM: a second estimation decides, as in the other
    timed tests, on the fastest of three runs (a 40-ms OpenMP run: one estimation came out at
    -11 % in CI, another at +26 % here, the next ones within 5 %)."""
    model, _ = forces
    est = model.estimation
    assert est is not None and est.self_check is not None
    if est.verdict == "doubtful" or est.reference is None or est.reference.disturbed:
        pytest.skip(f"a timed comparison needs a quiet machine: {est.trust}")
    check = est.self_check
    if not check.passed or est.overhead is None or est.overhead > 1.3:
        again = _estimate(tmp_path / "again", repeat=3).estimation
        assert again is not None and again.self_check is not None
        est, check = again, again.self_check
    assert check.baseline == "unmodified", check.message
    assert check.passed, check.message
    assert est.overhead is not None and est.overhead < 1.3, check.message


RESIZE = FORCES.parent / "resize.c"


def test_a_timed_loop_that_stays_a_loop_keeps_its_time(tmp_path: Path) -> None:
    """miniMD's neighbour build: the OpenMP loop sets `resize`, which its enclosing
    `while (resize)` reads, so it cannot become a block; timed whole, its body has no probe, and
    its time went nowhere (miniMD -26 % at its self-check). Its time per iteration now goes to
    its condition, and the model re-predicts the run."""
    run = ["./resize", "3000", "10"]
    model = pj.build_model(RESIZE, ["-O2", "-fopenmp"], argv=run)
    est = model.estimate(run=run, np=1, directory=tmp_path, repeat=3, combine="min")
    kept = [d.message for d in est.diagnostics if "goes to its condition" in d.message]
    assert kept and "timed whole" in kept[0] and "sets 'resize'" in kept[0], kept
    loop = next(n for n in model.nodes() if n.get("label") == "for i < n" and "cond_time" in n)
    assert float(loop["cond_time"]) > 1e-6, loop
    # Before: the loop's time, nearly all of the run, was outside the model (coverage near 0,
    # on every estimation). Coverage 0.896 with a passing self-check in one CI run (-10 %, the
    # estimation code at 0.90x the unmodified program, whose own runs spread 19 %): the defect
    # is a coverage near 0. A model that re-predicts what the estimation code itself took has
    # kept the loop's time (another CI run: +44 % with the estimation code at 1.44x the
    # program, twice in a row).
    assert_explains(settled_self_check(model, est, run, tmp_path / "again"))
