"""The set-up idioms of a benchmark like HPCG (issue 12, real programs; issue 13, honest
predictions). HPCG's model named a variable it never declared (`int argc = *argc_p;` read
through main's address), looped forever at np 4 (its prime factorisation tests `r.rem` of a
`div_t` that div() returns, which the model held at 0), and sent its halo to rank 0 at np 2
without a word (its neighbours are data np 1 never reaches). tests/programs/records/setup.cpp
reproduces each; real Clang parse, estimation under mpirun."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import parjava as pj

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "records" / "setup.cpp"
MACHINE = pj.Machine.preset("shared-memory")
RUN = ["./setup", "600", "10"]


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> pj.SourceModel:
    m = pj.build_model(PROGRAM, ["-O2"], argv=RUN)
    m.estimate(run=RUN, np=1, directory=tmp_path_factory.mktemp("est"))
    return m


def test_arguments_read_through_pointers_to_argv_are_positions(model: pj.SourceModel) -> None:
    """init() reads `argc > 1 ? atoi(argv[1]) : 64` from `char **argv = *argv_p;`: argv is
    main's, so the values are the positions argv1 and argv2 a new command line sets."""
    assert model.arguments(["./setup", "900", "30"]) == {"argc": 3, "argv1": 900, "argv2": 30}
    errors = [str(d) for d in model.diagnostics if d.severity == "error"]
    # The neighbours live in a heap array written at `count++`: data, and the only errors.
    assert all("neighbors[" in e for e in errors), errors


def test_a_record_an_external_function_returns_is_data(model: pj.SourceModel) -> None:
    """`r = div(n, d)` writes r.rem and r.quot: the branch on r.rem is opaque (measured), not a
    test of a field the model holds at 0, which made `while (1)` endless at np 4."""
    messages = [d.message for d in model.diagnostics if d.kind == "opaque"]
    assert any("if r.rem == 0" in m and "returned in a div_t by div()" in m for m in messages), (
        messages
    )
    short, long, longest = (
        pj.interpret(model, MACHINE, np=1, params=model.arguments([*RUN[:2], steps]))
        for steps in ("10", "30", "50")
    )
    # One Sendrecv to itself and nothing else per step at np 1.
    assert long.runs[0].engine["messages"] == 3 * short.runs[0].engine["messages"] > 0
    # Each step costs the same: the set-up (first touch of the matrix, measured once, 4 to
    # 10 ms between runs) is the same in all three.
    assert longest.time - long.time == pytest.approx(long.time - short.time, rel=0.01)
    assert long.time - short.time > 0.5 * short.time, (short.time, long.time)


def test_peers_np1_never_saw_are_named_when_the_model_deadlocks(model: pj.SourceModel) -> None:
    """The halo's neighbours are data and np 1 has none: at np 2 the model sends to rank 0 and
    receives from any rank, and deadlocks where the program cannot. The error says so, naming
    both operations and their lines."""
    with pytest.raises(pj.DeadlockError) as caught:
        pj.interpret(model, MACHINE, np=2, params=model.arguments(RUN))
    text = str(caught.value)
    assert "the program itself need not deadlock" in text
    assert "MPI_Irecv" in text and "setup.cpp:79" in text
    assert "MPI_Isend" in text and "setup.cpp:80" in text
    assert "estimate at np 2" in text


def test_a_rank_that_never_communicates_can_be_interrupted(tmp_path: Path) -> None:
    """A loop the model cannot end, with no communication, never returns to the event loop;
    Ctrl-C must still stop it (the engine checks signals every 4 Mi instructions)."""
    script = tmp_path / "spin.py"
    script.write_text(
        textwrap.dedent(
            """
            import sys
            import parjava as pj
            m = pj.Model("spin", file="spin.c")
            with m.while_("1", line=3):
                m.compute(1e-9, line=4)
            print("start", flush=True)
            try:
                pj.interpret(m, pj.Machine.preset("shared-memory"), np=1, progress=False)
            except KeyboardInterrupt:
                print("interrupted", flush=True)
                sys.exit(3)
            """
        )
    )
    proc = subprocess.Popen(
        [sys.executable, str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A runner that starts the suite as a background job without job control has SIGINT
        # ignored, and a Python child that inherits that never raises KeyboardInterrupt (this
        # test failed so in two clean-clone runs started with `( ... &)`): Ctrl-C at a terminal
        # is what is tested here, as in test_tracer_faults.py.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "start"
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("the interpretation ignored Ctrl-C for 60 s")
    assert proc.returncode == 3 and "interrupted" in out, err


def test_arguments_no_parameter_reads_are_named(model: pj.SourceModel) -> None:
    """An argument the model does not read (HPCG's `--nx=64`, parsed into an array) cannot
    change the prediction: a command line that differs from the estimation run's there says so,
    while one that differs only at read positions is quiet (an environment variable the program
    reads, as PRK's header reads PRK_ALIGNMENT, is not a position and says nothing)."""
    with pytest.warns(UserWarning, match=r"'--verbose' \(absent then\).*no model parameter"):
        params = model.arguments([*RUN, "--verbose"])
    assert params == {"argc": 4, "argv1": 600, "argv2": 10}
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert model.arguments(["./setup", "700", "20"])["argv1"] == 700
    spec = model._doc["parameters"]["syncs"]
    assert spec["origin"] == "environment" and spec["value"] == 1


VCYCLE = Path(__file__).resolve().parents[1] / "programs" / "records" / "vcycle.c"


def test_a_recursion_whose_depth_is_data_replays_its_measured_period(
    tmp_path: Path,
) -> None:
    """HPCG's V-cycle recurses while a level has a coarser one: np 1 measures the branch taken
    three times and then not, in every cycle. The model keeps that period (`taken_cycle`) and
    replays it at any np, so the recursion is interpreted without opaque_recursion and every
    level runs as often as in the program; the levels' sizes, set in the recursive build(),
    are data the estimation measures rather than a field the model holds at 0."""
    run = ["./vcycle", "6", "200000"]
    m = pj.build_model(VCYCLE, ["-O2"], argv=run)
    messages = [d.message for d in m.diagnostics]
    assert any("'Level::n' is assigned in build()" in t for t in messages), messages
    m.estimate(run=run, np=1, directory=tmp_path)
    guard = next(n for n in m.nodes() if n.get("label") == "if l->coarse != NULL")
    assert guard["taken_cycle"] == [1, 1, 1, 0]
    smooth = next(n for n in m.nodes() if n.get("label") == "for i < l->n")
    for np, cycles in ((1, 6), (2, 18), (3, 9)):
        pred = pj.interpret(m, MACHINE, np=np, params=m.arguments([run[0], str(cycles), run[2]]))
        freq = {r["id"]: r["freq"] for r in pred.nodes(np)}
        # Per V-cycle and rank: 4 levels descend (4 tests), 7 smooths (4 down, 3 up).
        assert freq[guard["id"]] == 4 * cycles * np
        assert freq[smooth["id"]] == 7 * cycles * np


SOLVES = Path(__file__).resolve().parents[1] / "programs" / "records" / "solves.c"


def test_a_short_run_of_data_iteration_counts_is_replayed_whole(tmp_path: Path) -> None:
    """Three solves iterate 4, 10 and 7 times, a count the model cannot compute, and only the
    second reduces per iteration (HPCG's CG: 50, 11, 50, 11, 1, 1 iterations, the 11s
    preconditioned). One round at np 1 keeps the whole sequence; four rounds at np 2 replay
    it, so the reductions run 10 times per round, not the mean 7 a draw would give."""
    m = pj.build_model(SOLVES, ["-O2"], argv=["./solves", "1"])
    m.estimate(run=["./solves", "1"], np=1, directory=tmp_path)
    loop = next(n for n in m.nodes() if n.get("label") == "while residual > tolerance")
    assert loop["trips_cycle"] == [4, 10, 7]
    reduce = next(n for n in m.nodes() if n.get("op") == "MPI_Allreduce")
    pred = pj.interpret(m, MACHINE, np=2, params=m.arguments(["./solves", "4"]))
    freq = {r["id"]: r["freq"] for r in pred.nodes(2)}
    assert freq[reduce["id"]] == 2 * 4 * 10
    assert freq[loop["id"]] == 2 * 4 * 3


def test_a_peer_measured_at_another_np_that_falls_outside_is_named(tmp_path: Path) -> None:
    """HPCCG estimated at np 2 and predicted at np 1: the halo loop keeps its np 2 count and its
    peer falls back to a rank np 1 does not have. The error names the operation and says that
    its peer was measured at np 2, not that the program sends outside the world."""
    program = PROGRAM.parent / "data_peers.c"
    run = ["./data_peers", "20000"]
    model = pj.build_model(program, ["-O2"], argv=run)
    model.estimate(run=run, np=2, directory=tmp_path)
    two = pj.interpret(model, MACHINE, np=2, params=model.arguments(run))
    assert two.runs[0].engine["messages"] >= 20, two.runs[0].engine
    with pytest.raises(pj.Error) as caught:
        pj.interpret(model, MACHINE, np=1, params=model.arguments(run))
    text = str(caught.value)
    assert "is outside world" in text and "data_peers.c:3" in text, text
    assert "the program itself need not address a rank outside" in text, text
    assert "measured at np 2" in text and "estimate at np 1" in text, text
