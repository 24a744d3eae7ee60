"""Loop nests priced at the estimation's cost per iteration (python/parjava/_cache_growth_check.py):
a nest whose working set the estimation could not see (static arrays,
tests/programs/cache_growth/sweep.c; mrnorman/miniWeather's globals were 10 % slower than
predicted at 4x the cells, without a word) warns when a prediction gives it several times the
work per iteration, and stays quiet at the estimation's input and for more time steps."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import parjava as pj
from program_runs import source_line

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "cache_growth" / "sweep.c"
MACHINE = pj.Machine.preset("shared-memory")
RUN = ["./sweep", "200", "200"]


def _said(prediction: pj.Prediction) -> list[str]:
    return [w for w in prediction.warnings if "priced at the estimation run's cost" in w]


def test_a_nest_of_unknown_working_set_warns_when_its_work_grows(tmp_path: Path) -> None:
    """Estimated on 200 x 200 cells: the two sweeps are recorded as unscaled nests (working set
    unknown); 1000 x 1000 is 25x their work per execution and warns, naming both loops and their
    lines; the estimation's own input and ten times its steps (the same data swept more often)
    do not."""
    model = pj.build_model(PROGRAM, ["-O2"], argv=RUN)
    model.estimate(run=RUN, np=1, directory=tmp_path / "est")
    first = source_line(PROGRAM, "for (int i = 1; i < n - 1; ++i) {")
    nests = model._doc.get("unscaled_nests", [])
    lines = {n["id"]: n["source"]["line"] for n in model.nodes()}
    assert {lines[int(n["node"])] for n in nests} >= {first}, nests
    assert all(n["working_set"] == 0 for n in nests), nests
    same = pj.interpret(model, MACHINE, np=1, params=model.arguments(RUN))
    longer = pj.interpret(model, MACHINE, np=1, params=model.arguments(["./s", "200", "2000"]))
    assert not _said(same) and not _said(longer), (same.warnings, longer.warnings)
    large = pj.interpret(model, MACHINE, np=1, params=model.arguments(["./s", "1000", "200"]))
    said = _said(large)
    assert len(said) == 1, large.warnings
    assert f"line {first}," in said[0] and "working set unknown" in said[0], said
    assert "2 loop nest(s)" in said[0], said
    # (998 / 198)^2 = 25.4 times the cells of a sweep
    growth = [float(g) for g in re.findall(r"x([0-9.]+) the work per execution", said[0])]
    assert len(growth) == 2 and all(20 < g < 30 for g in growth), said
