"""Small tables of per-direction flags (issue 12 item 2, issue 13): HPGMG-FV's ghost-exchange
setup combines 27-entry face, edge and corner tables in a loop and sends in the directions the
result marks. The model keeps one variable per element, so a read by the loop index is a 27-way
conditional and the combined table a conditional of sums of them; the bytecode's stack check
counted both arms of every conditional and refused those expressions ("nests too deeply"), so
HPGMG-FV could not be predicted at any np. tests/programs/direction_tables/halo27.c; real Clang
parse, estimation under mpirun."""

from __future__ import annotations

from pathlib import Path

import pytest

import parjava as pj
from cost_lines import assert_linear

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "direction_tables" / "halo27.c"
MACHINE = pj.Machine.preset("shared-memory")


def _run(shape: int) -> list[str]:
    return ["./halo27", "20000", "10", str(shape)]


def test_direction_tables_are_followed_per_shape(tmp_path: Path) -> None:
    model = pj.build_model(PROGRAM, ["-O2"], argv=_run(0))
    model.estimate(run=_run(0), np=1, directory=tmp_path)
    times = {}
    for shape in (0, 1, 2):
        for np in (1, 2):
            prediction = pj.interpret(model, MACHINE, np=np, params=model.arguments(_run(shape)))
            times[shape, np] = float(prediction.times[0])
    # Faces: 6 directions, faces and edges: 18, all: 26; the relaxation before each send is
    # the time, so the predictions follow the tables (estimated on faces only): every direction
    # costs the same, and the directions are most of the run.
    for np in (1, 2):
        assert_linear((6, 18, 26), [times[shape, np] for shape in (0, 1, 2)], share=0.6)
