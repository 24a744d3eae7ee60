"""Predictions at another input whose time is in loops the model times as constants (issue 13,
never silently wrong). HPGMG-FV's operators loop over blocks and cells whose bounds are fields
of its multigrid levels, set by create_level() for every level on the heap: the model keeps one
value per field of a heap object, so those loops are opaque and timed at the estimation input.
Predicted with boxes of 32^3 cells instead of 16^3 (8x the work), it gave the estimation
input's time to ten digits, with no word about the input. tests/programs/data_blocks/blocks.c;
real Clang parse, estimation under mpirun."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import parjava as pj
from program_runs import scaled_near, source_line

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "data_blocks" / "blocks.c"
MACHINE = pj.Machine.preset("shared-memory")
RUN = ["./blocks", "256", "20"]


def _said(prediction: pj.Prediction) -> list[str]:
    return [w for w in prediction.warnings if "timed as constants at the estimation input" in w]


def test_input_change_over_constant_loops_is_named(tmp_path: Path) -> None:
    model = pj.build_model(PROGRAM, ["-O2"], argv=RUN)
    model.estimate(run=RUN, np=1, directory=tmp_path)
    at_input = pj.interpret(model, MACHINE, np=1, params=model.arguments(RUN))
    assert not _said(at_input), at_input.warnings
    larger = pj.interpret(model, MACHINE, np=1, params=model.arguments(["./blocks", "512", "20"]))
    # The model cannot follow the level's size: same time, and it says so by loop and line.
    assert float(larger.times[0]) == pytest.approx(float(at_input.times[0]), rel=0.05)
    said = _said(larger)
    assert len(said) == 1 and "argv1=512 (estimated at 256)" in said[0], larger.warnings
    assert f"blocks.c:{source_line(PROGRAM, 'for (int j = 1;')}" in said[0], said
    # At another np the np check speaks instead (one warning, not two).
    other = pj.interpret(model, MACHINE, np=2, params=model.arguments(["./blocks", "512", "20"]))
    assert not _said(other) and any("timed as constants at np=1" in w for w in other.warnings)


LOCAL = PROGRAM.parent / "local_levels.c"


def test_levels_made_through_pointers_to_local_objects_scale(tmp_path: Path) -> None:
    """The same levels as local objects of main, each made and relaxed through a pointer: the
    pointer parameters' cells keep each level's `dim` (issue 12 item 2), so twice DIM is four
    times the relaxation, as the program runs it (side by side), and nothing is said."""
    run = ["./local_levels", "256", "400"]
    model = pj.build_model(LOCAL, ["-O2"], argv=run)
    model.estimate(run=run, np=1, directory=tmp_path)
    base = pj.interpret(model, MACHINE, np=1, params=model.arguments(run))
    larger = pj.interpret(
        model, MACHINE, np=1, params=model.arguments(["./local_levels", "512", "400"])
    )
    assert not _said(larger), larger.warnings
    ratio = float(larger.times[0]) / float(base.times[0])
    assert 3.0 < ratio < 4.5, ratio
    exe = tmp_path / "local_levels"
    subprocess.run(["mpicc", "-O2", str(LOCAL), "-o", str(exe)], check=True, timeout=120)
    real = scaled_near(exe, (1, run[1:]), (1, ["512", "400"]), ratio, 0.25)
    assert ratio == pytest.approx(real, rel=0.25), (ratio, real)
