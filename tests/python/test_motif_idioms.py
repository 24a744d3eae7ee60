"""Idioms of communication motifs (issues 12 and 13; seen in Sandia's Ember motifs): the work of
a step is a sleep whose value an `if` tests (`if (nanosleep(&ts, &left) != 0)`), which was
outside every probe (coverage 0 %, -100 %); options parsed in a loop over argv whose defaults
the model dropped (a run omitting `-kba` divided by zero; one giving an option the estimation run
did not kept the estimation's value, silently); and peers from a process grid given on the
command line, computed per rank at any np. tests/programs/motifs/*.c; real Clang parse,
estimation under mpirun, real runs to compare with."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import parjava as pj

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

PROGRAMS = Path(__file__).resolve().parents[1] / "programs" / "motifs"
MACHINE = pj.Machine.preset("shared-memory")


def sends(prediction: pj.Prediction, np_: int, rank: int = 0) -> tuple[int, set[int]]:
    """Messages `rank` sent in the model, and their sizes in bytes."""
    ev = prediction.trace(np_).events
    mine = (ev["location"] == rank) & np.isin(
        ev["kind"], [int(pj.EventKind.SEND), int(pj.EventKind.ISEND_POST)]
    )
    return int(mine.sum()), {int(b) for b in ev["bytes"][mine]}


@pytest.fixture(scope="module")
def options(tmp_path_factory: pytest.TempPathFactory) -> pj.SourceModel:
    run = ["./optdefaults", "-rounds", "8"]
    m = pj.build_model(PROGRAMS / "optdefaults.c", ["-O2"], argv=run)
    m.estimate(run=run, np=2, directory=tmp_path_factory.mktemp("est"))
    return m


def test_options_keep_their_defaults_and_any_command_line_sets_them(
    options: pj.SourceModel,
) -> None:
    # A local read but never assigned is data (before: a model naming an unknown variable).
    said = [d.message for d in options.diagnostics if d.kind == "opaque"]
    assert any("'stride' is never assigned a value" in m for m in said), said
    # What the estimation run's variables held after the loop over argv (-block omitted).
    assert (options.parameters["rounds"], options.parameters["block"]) == (8, 4)

    def count(argv: list[str], np_: int = 2) -> tuple[int, set[int]]:
        p = pj.interpret(
            options, MACHINE, np=np_, params=options.arguments(["./o", *argv]), trace=True
        )
        return sends(p, np_)

    # The estimation run: 8 / 4 messages of `width` (the default, size = 2) ints.
    assert count(["-rounds", "8"]) == (2, {2 * 4})

    # Omitted: the program's own 12 rounds (before, rounds and block were 0: a division by zero).
    assert count([]) == (3, {8})
    # Given though the estimation run did not give it (before: the run's 4, silently).
    assert count(["-rounds", "8", "-block", "2"]) == (4, {8})
    # A default computed from the run stays the program's: width = size at np 4.
    assert count(["-rounds", "8"], 4) == (2, {16})


@pytest.fixture(scope="module")
def grid(tmp_path_factory: pytest.TempPathFactory) -> pj.SourceModel:
    run = ["./sleepgrid", "-gx", "1", "-gy", "1", "-steps", "40"]
    m = pj.build_model(PROGRAMS / "sleepgrid.c", ["-O2"], argv=run)
    m.estimate(run=run, np=1, directory=tmp_path_factory.mktemp("est"))
    return m


def test_a_call_in_a_condition_is_timed(grid: pj.SourceModel) -> None:
    timed = [
        n
        for n in grid.nodes()
        if n.get("kind") == "efc" and n.get("callee") == "nanosleep" and "time" in n
    ]
    assert len(timed) == 1, [n.get("label") for n in grid.nodes() if n.get("kind") == "efc"]
    # A 200-us sleep lasts at least that long (Linux adds its timer slack).
    assert timed[0]["time"]["mean"] >= 190e-6, timed[0]
    check = grid.self_check
    assert check is not None and check["coverage"] > 0.8, check


def test_peers_and_sizes_follow_the_grid_at_every_np(grid: pj.SourceModel) -> None:
    def at(np_: int, gx: int, gy: int) -> pj.Prediction:
        argv = ["./s", "-gx", str(gx), "-gy", str(gy), "-steps", "10", "-cells", "32"]
        return pj.interpret(grid, MACHINE, np=np_, params=grid.arguments(argv), trace=True)

    # A 2 x 2 grid: every rank has two neighbours; 4 x 2: rank 1 has three.
    assert sends(at(4, 2, 2), 4) == (2 * 10, {32 * 8})
    assert sends(at(8, 4, 2), 8, rank=1) == (3 * 10, {32 * 8})
    assert sends(at(8, 4, 2), 8, rank=5) == (3 * 10, {32 * 8})
    assert sends(at(8, 2, 4), 8, rank=2) == (3 * 10, {32 * 8})


def _real(np_: int, argv: list[str]) -> float:
    mpicc = shutil.which("mpicc")
    assert mpicc is not None
    exe = Path(os.environ.get("TMPDIR", "/tmp")) / f"parjava-sleepgrid-{os.getpid()}"
    subprocess.run([mpicc, "-O2", str(PROGRAMS / "sleepgrid.c"), "-o", str(exe)], check=True)
    try:
        times = []
        for _ in range(3):
            out = subprocess.run(
                ["mpirun", "--oversubscribe", "-np", str(np_), str(exe), *argv],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            found = re.search(r"elapsed ([0-9.]+)", out)
            assert found is not None, out
            times.append(float(found.group(1)))
    finally:
        exe.unlink(missing_ok=True)
    return sorted(times)[1]


def test_predictions_match_real_runs_at_np_1_and_2(grid: pj.SourceModel) -> None:
    """Estimated at np 1 on 40 steps; predicted at np 1 on 200 steps (bar 15 %) and at np 2 on
    a 2 x 1 grid (bar 25 %). Sleeps need no CPU, but a loaded machine wakes them late."""
    if grid.estimation is not None and grid.estimation.verdict == "doubtful":
        pytest.skip(f"a timed comparison needs a quiet machine: {grid.estimation.trust}")
    for np_, gx, bar in ((1, 1, 0.15), (2, 2, 0.25)):
        argv = ["-gx", str(gx), "-gy", "1", "-steps", "200"]
        predicted = pj.interpret(grid, MACHINE, np=np_, params=grid.arguments(["./s", *argv]))
        real = _real(np_, argv)
        assert predicted.time == pytest.approx(real, rel=bar), (np_, predicted.time, real)


def test_openshmem_calls_are_named_as_not_modelled() -> None:
    """The builder models MPI: OpenSHMEM atomics on a hot PE and its barriers are external
    calls, and shmem_n_pes() is data. The builder says so once, and a prediction at a PE count
    other than the estimation's names the calls (before: nothing, at any np)."""
    model = pj.build_model(PROGRAMS / "hotpe.c", ["-O2"])
    said = [d.message for d in model.diagnostics if d.severity == "warning"]
    assert sum("is an OpenSHMEM call" in m for m in said) == 1, said
    warned = pj.interpret(model, MACHINE, np=4).warnings
    pgas = [w for w in warned if w.startswith("OpenSHMEM is not modelled")]
    assert len(pgas) == 1 and "shmem_long_atomic_inc (hotpe.c:18)" in pgas[0], warned
