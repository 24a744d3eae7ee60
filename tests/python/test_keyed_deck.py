"""An input deck read by keyword (tests/programs/inputs/keyed_deck.cpp, CloverLeaf's idiom):
`c.tiles` is set by the key `tiles`, or by `tiles_per_problem` through arithmetic on the number
(`std::stoi(words[1]) / ranks`), or by neither, when the program keeps its own value. Before,
the arithmetic made `tiles` data, and a key the deck left out read 0 in the model (CloverLeaf's
tiles_per_chunk: a division by zero in its tile decomposition)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import parjava as pj

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "inputs" / "keyed_deck.cpp"


def _estimated(tmp_path: Path, deck: str) -> tuple[pj.SourceModel, dict]:
    path = tmp_path / "deck.txt"
    path.write_text(deck)
    run = ["./keyed_deck", str(path)]
    model = pj.build_model(PROGRAM, ["-O2", "-std=c++17"], argv=run)
    before = json.loads(model.to_json())["parameters"]
    # The program's own values before any run: no parameter of the deck reads 0.
    assert (before["tiles"]["default"], before["steps"]["default"]) == (1, 10), before
    model.estimate(run=run, np=1, directory=tmp_path / "est")
    return model, json.loads(model.to_json())["parameters"]


def test_a_key_set_through_arithmetic_is_the_same_parameter(tmp_path: Path) -> None:
    model, params = _estimated(tmp_path, "cells 60000\ntiles_per_problem 4\nsteps 12\n")
    assert params["tiles"]["origin"] == "file", params
    assert params["tiles"]["value"] == 4 and params["steps"]["value"] == 12, params
    opaque = [str(d) for d in model.diagnostics if "c.tiles" in str(d) and d.kind == "opaque"]
    assert not opaque, opaque


def test_a_key_the_deck_leaves_out_keeps_the_programs_value(tmp_path: Path) -> None:
    model, params = _estimated(tmp_path, "cells 60000\nsteps 12\n")
    assert params["tiles"]["value"] == 1, params
    # Read after the loop over the deck (where it holds whichever line set it, or none).
    notes = [d.message for d in model.diagnostics if "parameter 'tiles'" in d.message]
    assert any("parameter 'tiles' = 1" in m for m in notes), notes
    after = [n for n in model.nodes() if n.get("label") == "inputs set by the input file's loop"]
    assert after, [n.get("label") for n in model.nodes()]
    # The sweep (reduced to one timed block) counts its trips from the tiles and the cells:
    # computed, not the estimation run's count. The deck's cells per tile are the work.
    sweep = next(n for n in model.nodes() if n.get("label") == "for t < c.steps")
    assert "Config_tiles" in sweep["time"] and "Config_cells" in sweep["time"], sweep
    machine = pj.Machine.preset("shared-memory")
    times = [
        next(
            r["time"]
            for r in pj.interpret(model, machine, np=1, params={"cells": cells}).nodes(1)
            if r["id"] == sweep["id"]
        )
        for cells in (60000, 120000)
    ]
    assert times[1] == pytest.approx(2 * times[0], rel=0.05), times
