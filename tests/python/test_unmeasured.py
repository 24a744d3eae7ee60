"""Predictions that run fragments the estimation run never executed (issue 13, never silently
wrong). A fragment no execution reached has no measured time and counts as 0 s; at another np it
may run, and the prediction must say it left that work out. miniVite's generator estimated at
np 1 ran its 50 million cross-rank pair tests at np 2 at 0 s each without a word.
tests/programs/decisions/neighbours_only.c; real Clang parse, estimation under mpirun."""

from __future__ import annotations

from pathlib import Path

import pytest

import parjava as pj

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "decisions" / "neighbours_only.c"
MACHINE = pj.Machine.preset("shared-memory")
RUN = ["./neighbours_only", "2000"]


def _said(prediction: pj.Prediction) -> list[str]:
    return [w for w in prediction.warnings if "never executed" in w]


def test_work_only_other_process_counts_reach_is_named(tmp_path: Path) -> None:
    model = pj.build_model(PROGRAM, ["-O2"], argv=RUN)
    model.estimate(run=RUN, np=1, directory=tmp_path / "np1")
    assert model.self_check is not None and model.self_check["unmeasured"], model.self_check
    # At the estimation's np nothing unmeasured runs: nothing to say.
    assert not _said(pj.interpret(model, MACHINE, np=1, params=model.arguments(RUN)))
    said = _said(pj.interpret(model, MACHINE, np=2, params=model.arguments(RUN)))
    assert len(said) == 1 and "neighbours_only.c:18" in said[0], said
    assert "estimate at np=2" in said[0]
    # Estimated at np 2, the nest is measured: nothing left out.
    model.estimate(run=RUN, np=2, directory=tmp_path / "np2")
    assert not _said(pj.interpret(model, MACHINE, np=2, params=model.arguments(RUN)))
