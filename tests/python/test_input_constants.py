"""Predictions at another input whose time is in loops the model times as constants (issue 13,
never silently wrong). HPGMG-FV's operators loop over blocks and cells whose bounds are fields
of its multigrid levels, set by create_level() for every level: the model keeps one value per
field, so those loops are opaque and timed at the estimation input. Predicted with boxes of
32^3 cells instead of 16^3 (8x the work), it gave the estimation input's time to ten digits,
with no word about the input. tests/programs/data_blocks/blocks.c; real Clang parse,
estimation under mpirun."""

from __future__ import annotations

from pathlib import Path

import pytest

import parjava as pj

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
    assert "blocks.c:22" in said[0], said
    # At another np the np check speaks instead (one warning, not two).
    other = pj.interpret(model, MACHINE, np=2, params=model.arguments(["./blocks", "512", "20"]))
    assert not _said(other) and any("timed as constants at np=1" in w for w in other.warnings)
