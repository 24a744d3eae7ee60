"""Trip counts measured over a shorter run than the one predicted (issue 13, never silently
wrong): a loop whose bound reads data the time-step loop rewrites keeps the counts the
estimation saw. tests/programs/rewritten/mesh.c has one such count that stays put until a mesh
refines (as miniAMR's did, 97 % too fast at ten times the steps, without a word), one that
drifts, and one that varies without drifting. Real Clang parse, real estimation run under
mpirun, and a real run of the longer input to show the warning is deserved."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import parjava as pj

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "rewritten" / "mesh.c"


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> pj.SourceModel:
    m = pj.build_model(PROGRAM, ["-O2"])
    m.estimate(run=["./mesh", "10", "20"], np=1, directory=tmp_path_factory.mktemp("est"))
    return m


def _bound(model: pj.SourceModel, data: str) -> dict:
    return next(b for b in model._doc["rewritten_bounds"] if b["data"] == data)


def test_builder_finds_bounds_the_time_step_loop_rewrites(model: pj.SourceModel) -> None:
    """Each loop of compute() reads data refine() writes; the time-step loop of main() calls
    both, so it is the enclosing loop, and the write is refine()'s line."""
    lines = PROGRAM.read_text().splitlines()

    def line_of(text: str) -> int:
        return next(i + 1 for i, s in enumerate(lines) if text in s)

    expected = {
        "nblocks": ("for (int b = 0; b < nblocks[0]; b++)", "nblocks[0] = nblocks[0] * 2;"),
        "queue": ("for (int q = 0; q < queue[0]; q++)", "queue[0] += 2;"),
        "cells": ("for (int j = 0; j < cells[c]; j++)", "cells[c] = 2 +"),
    }
    assert sorted(b["data"] for b in model._doc["rewritten_bounds"]) == sorted(expected)
    step_loop = line_of("for (int step = 0; step < steps; step++)")
    for data, (loop, write) in expected.items():
        b = _bound(model, data)
        assert b["source"]["line"] == line_of(loop)
        assert b["written"]["line"] == line_of(write)
        assert b["enclosing"]["line"] == step_loop


def test_estimation_measures_how_each_count_moved(model: pj.SourceModel) -> None:
    """Ten steps before the onset: the block count never moved; the queue grew from 4 to 22,
    by 18 over a mean of 13 (the least-squares drift is exact on a straight line); the cells
    varied from 2 to 6 without a trend."""
    blocks = _bound(model, "nblocks")["measured"]
    assert (blocks["min"], blocks["max"], blocks["executions"]) == (4, 4, 10)
    queue = _bound(model, "queue")["measured"]
    assert (queue["min"], queue["max"]) == (4, 22)
    assert queue["drift"] == pytest.approx(18 / 13, rel=1e-9)
    cells = _bound(model, "cells")["measured"]
    assert cells["min"] == 2 and cells["max"] == 6 and cells["executions"] == 80
    assert abs(cells["drift"]) < 0.1
    assert model.self_check is not None
    assert model.self_check["executions"][str(_bound(model, "nblocks")["node"])] == 10


def test_longer_prediction_names_the_counts_it_extrapolates(model: pj.SourceModel) -> None:
    """At ten times the steps the prediction says which counts it kept, with lines; the one
    that varied without drifting is not named. At the estimation's own input nothing is said.
    The real run of the longer input shows why: the mesh refines and the run takes far longer
    than the model's extrapolation."""
    machine = pj.Machine.preset("shared-memory")
    same = pj.interpret(model, machine, np=1, params=model.arguments(["./mesh", "10", "20"]))
    assert not [w for w in same.warnings if "trip counts extrapolated" in w]

    longer = pj.interpret(model, machine, np=1, params=model.arguments(["./mesh", "100", "20"]))
    warning = next(w for w in longer.warnings if "trip counts extrapolated" in w)
    text = PROGRAM.read_text().splitlines()
    blocks_line = next(i + 1 for i, s in enumerate(text) if "b < nblocks[0]" in s)
    queue_line = next(i + 1 for i, s in enumerate(text) if "q < queue[0]" in s)
    cells_line = next(i + 1 for i, s in enumerate(text) if "j < cells[c]" in s)
    assert "'nblocks', rewritten at mesh.c:" in warning and "run up to 10x as often" in warning
    assert f"(mesh.c:{blocks_line}: always 4 iteration(s)," in warning
    assert f"(mesh.c:{queue_line}: drifted +138% (4 to 22 iterations)," in warning
    assert f"mesh.c:{cells_line}" not in warning and "'cells'" not in warning

    mpicc = shutil.which("mpicc")
    assert mpicc is not None
    build = Path(os.environ.get("TMPDIR", "/tmp")) / f"parjava-mesh-{os.getpid()}"
    subprocess.run([mpicc, "-O2", str(PROGRAM), "-o", str(build)], check=True)
    try:
        run = subprocess.run(
            ["mpirun", "--oversubscribe", "-np", "1", str(build), "100", "20"],
            check=True,
            capture_output=True,
            text=True,
        )
    finally:
        build.unlink(missing_ok=True)
    found = re.search(r"blocks 64 queue 204 .* elapsed ([0-9.]+)", run.stdout)
    assert found is not None, run.stdout
    measured = float(found.group(1))
    # The extrapolation keeps 4 blocks where the run has 64: far too fast, as it warned.
    assert longer.time < 0.5 * measured, (longer.time, measured)
    assert re.search(r"\d+% of the predicted time", warning)
