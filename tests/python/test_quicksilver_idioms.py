"""Idioms of Quicksilver (LLNL/Quicksilver), tried unmodified in the tenth session, reproduced
in small programs of our own (tests/programs/mpi_wrappers/).

Quicksilver calls MPI through checked wrappers in their own file (`mpiComm_rank(comm, &r)`
wrapping `MPI_Comm_rank` in a `do { if (!(...)) ... } while (0)` assertion) and asks for its
rank and size in functions that never read them again. The rank reached such a function's
uninitialised local through the wrapper's pointer cell, and the model builder stopped: "unknown
name 'myRank'". And a new user's first command, `parjava model *.cc --argv ./qs -N 10 ...`,
stopped in argparse ("unrecognized arguments: -N 10"): a command line with options of its own
is now given quoted, as `parjava estimate --run` takes it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import parjava as pj
from cost_lines import assert_linear

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

WRAPPERS = Path(__file__).resolve().parents[1] / "programs" / "mpi_wrappers"
SOURCES = [str(WRAPPERS / "main.c"), str(WRAPPERS / "wrappers.c")]
HALO = sorted(str(p) for p in (WRAPPERS.parent / "halo3d").glob("*.c"))
MACHINE = pj.Machine.preset("shared-memory")


@pytest.fixture(scope="module")
def wrappers(tmp_path_factory: pytest.TempPathFactory) -> pj.SourceModel:
    # The minimum of three estimation runs, as the real runs' side takes the minimum of three:
    # one 20 ms run on a shared VM was 38 % slow twice in a row in a CI run (the same build
    # within 1 % alone).
    m = pj.build_model(SOURCES, ["-O2"], argv=["./wrappers", "1500", "10"])
    m.estimate(
        run=["./wrappers", "1500", "10"],
        np=1,
        directory=tmp_path_factory.mktemp("est"),
        repeat=3,
        combine="min",
    )
    return m


def _predict(model: pj.SourceModel, np: int, argv: list[str]) -> float:
    params = model.arguments(["./wrappers", *argv])
    return float(pj.interpret(model, MACHINE, np=np, params=params).time)


def test_ranks_read_through_wrappers_into_unused_locals(wrappers: pj.SourceModel) -> None:
    """The model builds (an uninitialised local the wrapper's cell copies starts at 0, as the
    model's local arrays do), and the size the wrapper asks for inside the loop divides the work
    per rank: np 2 does half of np 1's sweep."""
    assert not [d for d in wrappers.diagnostics if d.severity == "error"]
    one = _predict(wrappers, 1, ["1500", "10"])
    two = _predict(wrappers, 2, ["1500", "10"])
    steps = (10, 40, 70)
    assert_linear(steps, [_predict(wrappers, 1, ["1500", str(n)]) for n in steps], share=0.4)
    assert two == pytest.approx(one / 2, rel=0.25)


def _real_runs(exe: Path, np_: int) -> list[float]:
    """Three real runs of the sweep at `1500 40`, each timed by the program's own timer."""
    runs = []
    for _ in range(3):
        out = subprocess.run(
            ["mpirun", "--oversubscribe", "-np", str(np_), str(exe), "1500", "40"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        found = re.search(r"elapsed ([0-9.]+)", out)
        assert found is not None, out
        runs.append(float(found.group(1)))
    return runs


def test_wrapped_program_matches_real_runs(wrappers: pj.SourceModel) -> None:
    """Predicted against real runs at np 1 (the minimum of three, the program's own timer
    around the sweep). np 2 is checked inside the model (the test above): two ranks on this
    shared two-core machine ran no faster than one at a load of 1.7."""
    if wrappers.estimation is not None and wrappers.estimation.verdict == "doubtful":
        pytest.skip(f"a timed comparison needs a quiet machine: {wrappers.estimation.trust}")
    mpicc = shutil.which("mpicc")
    assert mpicc is not None
    exe = Path(os.environ.get("TMPDIR", "/tmp")) / f"parjava-wrappers-{os.getpid()}"
    subprocess.run([mpicc, "-O2", *SOURCES, "-o", str(exe)], check=True)
    try:
        for np_ in (1,):
            runs = _real_runs(exe, np_)
            predicted = _predict(wrappers, np_, ["1500", "40"])
            if abs(predicted - min(runs)) > 0.3 * min(runs):
                # One estimation on a shared VM can be slowed without the load check seeing it
                # (+36 % once in a CI run, the same build passing alone): a second estimation
                # and a second set of real runs, side by side, decide, as in test_md_idioms.py.
                again = pj.build_model(SOURCES, ["-O2"], argv=["./wrappers", "1500", "10"])
                again.estimate(
                    run=["./wrappers", "1500", "10"],
                    np=1,
                    directory=exe.with_suffix(".again"),
                    repeat=3,
                    combine="min",
                )
                predicted = _predict(again, np_, ["1500", "40"])
                runs = _real_runs(exe, np_)
            assert predicted == pytest.approx(min(runs), rel=0.3), (np_, predicted, runs)
    finally:
        exe.unlink(missing_ok=True)
        shutil.rmtree(exe.with_suffix(".again"), ignore_errors=True)


def test_cli_takes_a_quoted_command_line_with_options(tmp_path: Path) -> None:
    """`parjava model --argv "./halo3d -x 24 --nSteps=7"`: the options reach the model's
    parameters as the Python API's argv does."""
    out = tmp_path / "halo3d.json"
    command = [sys.executable, "-m", "parjava", "model", *HALO]
    command += ["--argv", "./halo3d -x 24 --nSteps=7", "-o", str(out), "-q", "--", "-O2"]
    proc = subprocess.run(
        command,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    params = json.loads(out.read_text())["parameters"]
    assert params["nx"]["value"] == 24 and params["nSteps"]["value"] == 7


def test_probes_a_template_s_instantiations_share_are_removed_together(tmp_path: Path) -> None:
    """Storage::allocate<T> and Vault<T> (tests/programs/template_texts/) are instantiated for
    three types; their probes collide in the shared text and the compiler rejects them. One
    repair removes the probes of every instantiation of the rejected template, and says why."""
    source = WRAPPERS.parent / "template_texts" / "particles.cpp"
    argv = ["./particles", "20000", "5"]
    model = pj.build_model(source, ["-O2"], argv=argv)
    model.estimate(run=argv, np=1, directory=tmp_path)
    together = [
        d for d in model.diagnostics if "an instantiation of the same template" in d.message
    ]
    assert together, [d.message for d in model.diagnostics if "probes of" in d.message]
    longer = pj.interpret(
        model, MACHINE, np=1, params=model.arguments(["./particles", "20000", "20"])
    )
    assert longer.time > 0


BLOCK_KEYS = WRAPPERS.parent / "inputs" / "block_keys.cpp"


def test_keyed_reads_of_an_input_file_s_blocks_stay_program_inputs(tmp_path: Path) -> None:
    """Quicksilver sets nSteps from `-N` and, when an input file is given, from its blocks:
    `block.getValue<int>("nSteps", sp.nSteps)` in a loop over the file's blocks. The write
    through the getter's reference made nSteps data, so `-N 50` was no parameter ("the command
    line differs ... and no model parameter reads it") and the steps loop kept its measured
    count. The getter's read is the input, in a loop or not."""
    argv = ["./block_keys", "-N", "10", "-x", "200000"]
    model = pj.build_model(BLOCK_KEYS, ["-O2"], argv=argv)
    params = json.loads(model.to_json())["parameters"]
    assert params["nSteps"]["options"] == ["-N"] and params["nx"]["options"] == ["-x"], params
    assert not [d for d in model.diagnostics if "written through a pointer" in d.message]
    # The defaults are the fields' own initializers (`int nSteps = 10;`) or the constructor's
    # (`SimulationParameters() : sweeps(2)`): an option left out takes the program's value,
    # without a warning that the default is unknown.
    assert (params["nSteps"]["default"], params["nx"]["default"]) == (10, 100000), params
    assert params["sweeps"]["options"] == ["-s"] and params["sweeps"]["default"] == 2, params
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert model.arguments(["./block_keys", "-N", "40"])["nx"] == 100000
    model.estimate(run=argv, np=1, directory=tmp_path)
    # Every step costs the same, and the steps are most of the run (the vector's first touch,
    # 1.6 MB of page faults, is the rest: 23 % on a CI machine).
    steps = (10, 40, 70)
    times = [
        pj.interpret(
            model, MACHINE, np=1, params=model.arguments([*argv[:2], str(n), *argv[3:]])
        ).time
        for n in steps
    ]
    assert_linear(steps, times, share=0.4)
