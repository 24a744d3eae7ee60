"""Loops ended by a data test the model drops (issue 13). miniFE's CG loop `k <= max_iter &&
normr > tolerance` ran max_iter (200) in the model where the run converged after 100: +71 % on
its own estimation run. After the estimation the model caps such a loop at the count the run
reached, the computed condition still applying; a time-step loop its count ended is not capped.
tests/programs/decisions/converge.c; real Clang parse, estimation under mpirun."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import parjava as pj

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "decisions" / "converge.c"
RUN = ["./converge", "100", "10"]
MACHINE = pj.Machine.preset("shared-memory")


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> pj.SourceModel:
    m = pj.build_model(PROGRAM, ["-O2"], argv=RUN)
    m.estimate(run=RUN, np=1, directory=tmp_path_factory.mktemp("est"))
    return m


def _messages(model: pj.SourceModel, argv: list[str]) -> int:
    p = pj.interpret(model, MACHINE, np=2, params=model.arguments(argv))
    return int(p.runs[0].engine["messages"])


def test_a_loop_its_data_test_ended_is_capped_at_the_runs_count(model: pj.SourceModel) -> None:
    caps = [n["trips_cap"] for n in json.loads(model.to_json())["nodes"] if "trips_cap" in n]
    assert caps == [20], caps  # normr halves from 1 to under 1e-6 in 20 iterations
    said = [d.message for d in model.diagnostics if "ended by its data test" in d.message]
    assert said and "after about 20 iterations where its computed bound allows 100" in said[0]
    # At np 2 an allreduce and a barrier exchange 2 messages each: 20 solver iterations and 10
    # time steps (uncapped, the solver would run 100).
    assert _messages(model, RUN) == 2 * 20 + 2 * 10


def test_the_cap_bounds_the_loop_and_the_time_steps_still_scale(model: pj.SourceModel) -> None:
    # max_iter 10 ends the solver before the cap; twice the time steps are twice the barriers.
    assert _messages(model, ["./converge", "10", "10"]) == 2 * 10 + 2 * 10
    assert _messages(model, ["./converge", "100", "20"]) == 2 * 20 + 2 * 20


def test_a_prediction_away_from_the_capping_input_says_the_cap_is_the_estimations(
    model: pj.SourceModel,
) -> None:
    """The cap is the count the estimation input's data test ended the loop at; at another np
    or input the test may end it elsewhere, and the prediction says so with the loop's line."""
    same = pj.interpret(model, MACHINE, np=1, params=model.arguments(RUN))
    assert not [w for w in same.warnings if "ended after the iterations" in w], same.warnings
    other = pj.interpret(model, MACHINE, np=[1, 2], params=model.arguments(["./converge", "400"]))
    said = [w for w in other.warnings if "ended after the iterations" in w]
    # One line for np 1 (max_iter differs) and one for np 2 (max_iter and np differ).
    assert len(said) == 2, other.warnings
    assert "converge.c:23) at 20" in said[0] and "argv1=400 (estimated at 100)" in said[0]
    assert "np=2 (estimated at np=1)" in said[1]


BREAK = Path(__file__).resolve().parents[1] / "programs" / "decisions" / "converge_break.c"


def test_a_loop_left_by_a_break_replays_the_runs_rounds(tmp_path: Path) -> None:
    """`while (1) { ...; if (residual < 1e-4) break; }` ends in round 14: the break's outcomes
    are kept in order (0 thirteen times, then 1) and replayed, so the model runs 14 rounds at
    every np. Drawn by their frequency (1/14), miniVite's Louvain loop ran 7 rounds of 14 in
    one prediction. At another input the prediction says the rounds are the estimation's."""
    run = ["./converge_break", "20000"]
    model = pj.build_model(BREAK, ["-O2"], argv=run)
    model.estimate(run=run, np=1, directory=tmp_path)
    tests = [n for n in model.nodes() if n.get("kind") == "if" and "residual" in n.get("label")]
    assert len(tests) == 1 and tests[0].get("taken_cycle") == [0] * 13 + [1], tests
    allreduce = [n["id"] for n in model.nodes() if n.get("op") == "MPI_Allreduce"]
    assert len(allreduce) == 1
    for np_ in (2, 3):
        p = pj.interpret(model, MACHINE, np=np_, params=model.arguments(run))
        rows = {r["id"]: r for r in p.nodes(np_)}
        assert rows[allreduce[0]]["freq"] == 14 * np_, rows[allreduce[0]]  # over the ranks
    same = pj.interpret(model, MACHINE, np=1, params=model.arguments(run))
    assert not [w for w in same.warnings if "ended after the iterations" in w], same.warnings
    other = pj.interpret(model, MACHINE, np=1, params=model.arguments(["./c", "40000"]))
    said = [w for w in other.warnings if "ended after the iterations" in w]
    assert said and "converge_break.c:20) at 14" in said[0], other.warnings


FLAG = BREAK.parent / "converge_flag.c"


def test_a_convergence_flag_that_leaves_the_loop_replays_the_runs_rounds(tmp_path: Path) -> None:
    """hypre's PCG (LLNL/AMG, pcg.c:479) sets `tentatively_converged` under `if (i_prod /
    bi_prod < eps)` and leaves under `if (tentatively_converged) break;`. The residual test
    breaks nothing itself, so its outcomes were drawn at 1/17 and the model ran 9 of the run's
    17 iterations. A test that sets a variable another test with a break reads is kept in order
    too: 14 rounds at every np."""
    run = ["./converge_flag", "20000"]
    model = pj.build_model(FLAG, ["-O2"], argv=run)
    model.estimate(run=run, np=1, directory=tmp_path)
    tests = [n for n in model.nodes() if n.get("kind") == "if" and "residual" in n.get("label")]
    assert len(tests) == 1 and tests[0].get("taken_cycle") == [0] * 13 + [1], tests
    allreduce = [n["id"] for n in model.nodes() if n.get("op") == "MPI_Allreduce"]
    for np_ in (1, 2, 3):
        p = pj.interpret(model, MACHINE, np=np_, params=model.arguments(run))
        rows = {r["id"]: r for r in p.nodes(np_)}
        assert rows[allreduce[0]]["freq"] == 14 * np_, rows[allreduce[0]]


ROUNDS = BREAK.parent / "refine_rounds.c"


def test_a_do_while_whose_rounds_follow_data_decisions_is_replayed_not_capped(
    tmp_path: Path,
) -> None:
    """miniAMR's refine loop (refine.c:345) is a do-while that communicates until no rank
    changes anything; its rounds follow the data tests inside it. Estimated at np 2, it was
    capped like a for or while loop, which the model does not allow for a do-while: miniAMR's
    estimation at np 2 stopped with "field 'trips_cap': only for and while loops are capped"."""
    run = ["./refine_rounds", "20000", "6"]
    model = pj.build_model(ROUNDS, ["-O2"], argv=run)
    model.estimate(run=run, np=2, directory=tmp_path)
    loop = next(n for n in model.nodes() if n.get("kind") == "do-while")
    assert "trips_cap" not in loop, loop
    allreduce = next(n["id"] for n in model.nodes() if n.get("op") == "MPI_Allreduce")
    rounds = sum(step + 2 for step in range(6))  # step + 1 halvings, then a round of no change
    p = pj.interpret(model, MACHINE, np=2, params=model.arguments(run))
    assert {r["id"]: r for r in p.nodes(2)}[allreduce]["freq"] == 2 * rounds
    assert pj.interpret(model, MACHINE, np=4, params=model.arguments(run)).time > 0


OPTIONS = BREAK.parent / "option_steps.c"


def test_a_time_step_loop_bounded_by_an_option_follows_the_option(tmp_path: Path) -> None:
    """LULESH (lulesh.cc:2745): `while (time < stoptime && cycle < opts.its)`, with `opts.its`
    parsed by a loop of strcmp tests that has both outcomes in any run with options. Those
    tests read the command line, not data; counted as data decisions they made the step loop
    replay its 20 estimated steps, and `-i 200` was predicted 92 % too fast."""
    run = ["./option_steps", "-i", "10", "-s", "20000", "-q"]
    model = pj.build_model(OPTIONS, ["-O2"], argv=run)
    model.estimate(run=run, np=1, directory=tmp_path)
    loop = next(n for n in model.nodes() if "cycle < opts.its" in n.get("label", ""))
    assert "trips_by_rank" not in loop and "trips_cap" not in loop, loop
    allreduce = next(n["id"] for n in model.nodes() if n.get("op") == "MPI_Allreduce")
    for np_ in (1, 2):
        p = pj.interpret(model, MACHINE, np=np_, params=model.arguments(["./o", "-i", "40"]))
        assert {r["id"]: r for r in p.nodes(np_)}[allreduce]["freq"] == 40 * np_
