"""Local struct objects followed per object (issue 12 item 2, state held in structs).

ORNL/minisweep decides each face exchange from two objects of one struct in one function: the
step's info for this process and for the neighbour, each returned by value
(StepScheduler_must_do_send). With one model variable per field, both objects were the same
value: the decisions became measured probabilities and the model deadlocked at np 2.
tests/programs/records/wavefront.c schedules a wavefront the same way; real Clang parse, real
mpirun at np 2 and 3, and the model's messages per rank compared with the program's."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

import parjava as pj
from model_messages import messages
from program_runs import scaled_near

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "records" / "wavefront.c"
MACHINE = pj.Machine.preset("shared-memory")


def run_program(
    tmp_path: Path, np_: int, argv: list[str], program: Path = PROGRAM
) -> dict[int, tuple[int, int]]:
    """Messages each rank sent and received in a real run, as the program prints them."""
    exe = tmp_path / program.stem
    if not exe.exists():
        mpicc = shutil.which("mpicc")
        assert mpicc is not None
        subprocess.run([mpicc, "-O2", str(program), "-o", str(exe)], check=True)
    out = subprocess.run(
        ["mpirun", "--oversubscribe", "-np", str(np_), str(exe), *argv],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    return {
        int(r): (int(s), int(g))
        for r, s, g in re.findall(r"rank (\d+) sent (\d+) received (\d+)", out)
    }


def test_two_objects_of_one_struct_decide_the_faces_per_rank(tmp_path: Path) -> None:
    argv = ["3", "2000"]
    model = pj.build_model(PROGRAM, ["-O2"], argv=["./wavefront", *argv])
    doc = model._doc
    # Both decisions are computed from the two objects' own fields, not measured.
    guards = [n for n in doc["nodes"] if n.get("kind") == "if" and "must_" in n.get("label", "")]
    assert len(guards) == 2 and not [n for n in guards if n.get("opaque")], guards
    shared = [d for d in model.diagnostics if "local objects of" in d.message]
    assert not shared, [d.message for d in shared]
    for np_ in (2, 3):
        params = model.arguments(["./wavefront", *argv])
        pred = pj.interpret(model, MACHINE, np=np_, params=params, trace=True)
        assert messages(pred, np_) == run_program(tmp_path, np_, argv), np_


def test_the_pipeline_fill_at_np_2_as_the_program_runs_it(tmp_path: Path) -> None:
    """Estimated at np 1, the model predicts np 2 as the program scales: every rank sweeps its
    blocks as at np 1 (CELLS is per rank) and waits for its upstream neighbour's face, so np 2
    takes about (nblock + 1) / nblock of np 1 (bar 15 %, by side-by-side ratios)."""
    argv = ["20", "200000"]
    model = pj.build_model(PROGRAM, ["-O2"], argv=["./wavefront", *argv])
    model.estimate(run=["./wavefront", *argv], np=1)
    params = model.arguments(["./wavefront", *argv])
    one = pj.interpret(model, MACHINE, np=1, params=params).time
    two = pj.interpret(model, MACHINE, np=2, params=params).time
    exe = tmp_path / "wavefront"
    mpicc = shutil.which("mpicc")
    assert mpicc is not None
    subprocess.run([mpicc, "-O2", str(PROGRAM), "-o", str(exe)], check=True)
    real = scaled_near(exe, (1, argv), (2, argv), two / one, 0.15)
    assert two / one == pytest.approx(real, rel=0.15), (one, two, real)


def test_a_struct_returned_by_value_bounds_a_loop_through_a_parameter(tmp_path: Path) -> None:
    """`sweep_block(mine, ...)` passes the object by value; its loop bound reads the copy."""
    model = pj.build_model(PROGRAM, ["-O2"], argv=["./wavefront", "3", "2000"])
    loop = next(
        n for n in model._doc["nodes"] if n.get("kind") == "for" and "info.block" in n["label"]
    )
    assert not loop.get("opaque"), loop


NEIGHBOURS = PROGRAM.parent / "neighbours.c"


def test_two_objects_filled_through_a_pointer_keep_their_own_fields(tmp_path: Path) -> None:
    """`set_link(&left, ...)` and `set_link(&right, ...)`: the helper writes the fields through
    its pointer parameter, which now has a cell per field that each call copies in and out, so
    `left` and `right` stay two objects (before, both were the last one set: the left exchanges
    ran the right's two rounds, to the right's peer)."""
    argv = ["20000", "10"]
    model = pj.build_model(NEIGHBOURS, ["-O2"], argv=["./neighbours", *argv])
    doc = model._doc
    rounds = [n for n in doc["nodes"] if n.get("kind") == "for" and "rounds" in n.get("label", "")]
    assert len(rounds) == 2 and not [n for n in rounds if n.get("opaque")], rounds
    bounds = {re.sub(r"^\(r(_\d+)? < (\w+)\)$", r"\2", n["cond"]) for n in rounds}
    assert bounds == {"left_rounds", "right_rounds"}, rounds
    for np_ in (1, 2, 3):
        params = model.arguments(["./neighbours", *argv])
        pred = pj.interpret(model, MACHINE, np=np_, params=params, trace=True)
        assert messages(pred, np_) == run_program(tmp_path, np_, argv, NEIGHBOURS), np_
