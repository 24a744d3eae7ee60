"""Idioms of the ParRes kernels (ParRes/Kernels MPI1: Transpose, Synch_p2p), tried unmodified
in the tenth session, reproduced in small programs of our own.

Every kernel ends in `exit(EXIT_SUCCESS)` after MPI_Finalize. exit() never returns, so no probe
counts it and the estimation run reports it as never executed; each prediction, even at the
estimation's own np and input, then warned that a fragment "reached only at other process
counts or inputs" was left out. A call that ends the process has no work to leave out.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import parjava as pj

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "process_exit" / "finalize_exit.c"
MACHINE = pj.Machine.preset("shared-memory")


def test_exit_after_finalize_is_no_unmeasured_fragment(tmp_path: Path) -> None:
    argv = ["./finalize_exit", "100000", "20"]
    model = pj.build_model(PROGRAM, ["-O2"], argv=argv)
    model.estimate(run=argv, np=1, directory=tmp_path)
    assert any("ends the process" in d.message for d in model.diagnostics)
    for np_ in (1, 2):
        params = model.arguments(["./finalize_exit", "100000", "40"])
        prediction = pj.interpret(model, MACHINE, np=np_, params=params)
        assert not [w for w in prediction.warnings if "never executed" in w], prediction.warnings


C89 = PROGRAM.parent / "c89_main.c"


def test_an_ansi_main_without_return_exits_0_in_the_estimation_code(tmp_path: Path) -> None:
    """minisweep's estimation code exited 136 where the program, built with -ansi, happened to
    exit 0: the status of a C89 main that ends without `return` is whatever was left in a
    register, and the estimation took it for the program's verdict. The copy returns 0 there."""
    argv = ["./c89_main", "100000", "20"]
    model = pj.build_model(C89, ["-O2", "-ansi"], argv=argv)
    est = model.estimate(run=argv, np=1, directory=tmp_path)
    copy = next(Path(est.directory).glob("**/c89_main.c")).read_text()
    assert copy.rstrip().endswith("return 0; }"), copy[-200:]
    assert not [d for d in model.diagnostics if "exited with status" in d.message]
    assert pj.interpret(model, MACHINE, np=2).time > 0.0


TILED = PROGRAM.parent.parent / "tiled_nest" / "tiled.c"


def test_tiled_nest_with_indices_declared_at_the_top(tmp_path: Path) -> None:
    """The transpose's tile loops read the outer indices, all declared uninitialised at the top
    of main. Starting every uninitialised local at 0 made `i` a variable of main, and reducing
    the nest wrote it into the nest's time, where no assignment names it ("unknown name 'i'").
    Only locals whose address a call takes start at 0."""
    argv = ["./tiled", "4", "600", "32"]
    model = pj.build_model(TILED, ["-O2"], argv=argv)
    model.estimate(run=argv, np=1, directory=tmp_path)
    times = [
        pj.interpret(model, MACHINE, np=1, params=model.arguments(["./tiled", n, "600", "32"])).time
        for n in ("4", "16", "28")
    ]
    # Every iteration costs the model the same: twelve more, the same time more each step (the
    # set-up's page faults, 2.7x slower on a CI machine than here, are the same in all three).
    assert 0 < times[0] < times[1] < times[2], times
    assert times[2] - times[1] == pytest.approx(times[1] - times[0], rel=0.01), times
    assert times[1] - times[0] > 0.1 * times[0], times
