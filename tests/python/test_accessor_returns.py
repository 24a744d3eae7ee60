"""A call's value used whole by `return` or by a condition (issue 12, state real programs keep).

ORNL/minisweep reads its process grid through accessors that return other accessors' values
(`Env_proc_x_this(env)` is `return Env_proc_x(env, Env_proc_this(env));`) and tests them
directly (`if (Env_is_proc_active(&env))`). Those values were lost: the call was read as a
statement `f(x);`, its return slot never copied, so the peers became ANY_SOURCE and rank 0 and
the model deadlocked at np 2. tests/programs/accessor_returns/pipeline.c; real Clang parse,
real mpirun at np 3 with two ranks active."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import parjava as pj

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "accessor_returns" / "pipeline.c"
MACHINE = pj.Machine.preset("shared-memory")


def sends(prediction: pj.Prediction, np_: int) -> dict[int, list[int]]:
    """Per rank, the peers of its sends in the model trace, in order."""
    ev = prediction.trace(np_).events
    out: dict[int, list[int]] = {}
    for rank in range(np_):
        mine = (ev["location"] == rank) & np.isin(
            ev["kind"], [int(pj.EventKind.SEND), int(pj.EventKind.ISEND_POST)]
        )
        out[rank] = [int(p) for p in ev["peer"][mine]]
    return out


def run_program(tmp_path: Path, np_: int, argv: list[str]) -> dict[int, int]:
    """Messages each rank sent in a real run, as the program prints them."""
    exe = tmp_path / "pipeline"
    if not exe.exists():
        mpicc = shutil.which("mpicc")
        assert mpicc is not None
        subprocess.run([mpicc, "-O2", str(PROGRAM), "-o", str(exe)], check=True)
    out = subprocess.run(
        ["mpirun", "--oversubscribe", "-np", str(np_), str(exe), *argv],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    return {int(r): int(s) for r, s in re.findall(r"rank (\d+) sent (\d+)", out)}


def test_accessors_returning_accessors_give_the_ranks_peers(tmp_path: Path) -> None:
    argv = ["8", "20000", "2"]
    model = pj.build_model(PROGRAM, ["-O2"], argv=["./pipeline", *argv])
    doc = model._doc
    recv = next(n for n in doc["nodes"] if n.get("op") == "MPI_Recv")
    send = next(n for n in doc["nodes"] if n.get("op") == "MPI_Send")
    # Computed from the accessors' return slots, not a wildcard and rank 0.
    assert recv["args"]["source"] not in ("ANY_SOURCE", "0"), recv["args"]
    assert send["args"]["dest"] != "0", send["args"]
    # The conditions that call the accessors are computed, not measured probabilities.
    guards = [n for n in doc["nodes"] if n.get("kind") == "if"]
    assert guards and not [n for n in guards if n.get("opaque")], guards
    # Three ranks, two in the pipeline: rank 0 sends to 1 each step, the others send nothing,
    # as the program itself does under mpirun.
    params = model.arguments(["./pipeline", *argv])
    pred = pj.interpret(model, MACHINE, np=3, params=params, trace=True)
    assert sends(pred, 3) == {0: [1] * 8, 1: [], 2: []}
    assert run_program(tmp_path, 3, argv) == {0: 8, 1: 0, 2: 0}
    # All ranks active by default: a chain 0 -> 1 -> 2.
    chain = pj.interpret(model, MACHINE, np=3, params=model.arguments(["./pipeline", "8", "20000"]))
    assert sends(chain, 3) == {0: [1] * 8, 1: [2] * 8, 2: []}
    assert run_program(tmp_path, 3, ["8", "20000"]) == {0: 8, 1: 8, 2: 0}
