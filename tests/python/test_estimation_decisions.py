"""Communication decided by data (issue 13, consistent communication): neighbours found from
block data, as adaptive-mesh codes find them, and parameters that rank 0 changes before it
broadcasts them. Estimated at np 3 under mpirun, then interpreted at np 3 for real."""

from __future__ import annotations

from pathlib import Path

import pytest

import parjava as pj

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "decisions" / "neighbours.c"


def _sends_per_rank(model: pj.SourceModel, params: dict[str, float]) -> dict[int, int]:
    prediction = pj.interpret(
        model, pj.Machine.preset("ethernet-10g"), np=3, params=params, trace=True
    )
    events = prediction.trace().to_pandas()
    sends = events[events["kind"].astype(str) == "SEND"]
    return {int(r): int(n) for r, n in sends.groupby("rank", observed=True).size().items()}


def test_partners_found_from_data_exchange_what_each_rank_measured(tmp_path: Path) -> None:
    """Each rank lists its partners under data tests (`if (!found)`), counting them per
    direction; left to per-rank draws, the counts came out differently on the two sides of a
    message and the model deadlocked where the program cannot. The loops over partners now
    replay each rank's measured counts at the estimation's np, while the time-step loop stays
    counted from its parameter."""
    model = pj.build_model(PROGRAM, ["-O2"])
    model.estimate(run=["./neighbours"], np=3, directory=tmp_path / "est")
    loops = [n for n in model.nodes() if str(n.get("label", "")) == "for i < num_partners[dir]"]
    # add_partner's search of the list has no communication: it is not replayed.
    partner_loops = [n for n in loops if "trips_by_rank" in n]
    assert len(loops) == 3 and len(partner_loops) == 2
    # Rank 0 has a right neighbour only, rank 2 a left one, rank 1 both; 6 steps x 2 directions.
    for loop in partner_loops:
        assert loop["trips_by_rank"] == [[0, 1] * 6, [1, 1] * 6, [1, 0] * 6]
    steps_loop = next(n for n in model.nodes() if str(n.get("label", "")) == "for s < steps")
    assert "trips_by_rank" not in steps_loop
    # Rank 0 turns steps = 0 into 6 before broadcasting it: the other ranks' copy is a
    # parameter of its own, and the builder says so.
    warning = next(d for d in model.diagnostics if "before broadcasting it" in d.message)
    assert "'params_0'" in warning.message and "'steps'" in warning.message

    assert _sends_per_rank(model, model.arguments(["./neighbours"])) == {0: 6, 1: 12, 2: 6}
    longer = {**model.arguments(["./neighbours", "--steps", "12"]), "params_0": 12}
    assert _sends_per_rank(model, longer) == {0: 12, 1: 24, 2: 12}
