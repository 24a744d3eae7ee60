"""Trip counts of nests the builder cannot count by their bounds alone (issue 12, counted loops
stay counted; issue 13, never silently wrong).

A triangle (`for j = i + 1; j < n`, miniVite's pairwise graph generator; the lower triangle of a
factorisation) is averaged over the enclosing loop's iterations, so the nest scales as n^2/2:
the estimation kept the measured mean (n/2 at the estimation's n) and the nest scaled as n, so
miniVite's generator at twice the vertices was predicted 2x slower where it ran 3.9x slower. A
band the triangle's formula does not describe keeps its measured mean (the formula would give
it no iteration at all). And a work-sharing loop the model keeps (its body synchronises threads
with `omp atomic`) over a count held in data is counted by each thread: it had no probe and
ran one iteration per step in the model. tests/programs/nests/; real Clang parses, estimation
under mpirun."""

from __future__ import annotations

from pathlib import Path

import pytest

import parjava as pj

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

PROGRAMS = Path(__file__).resolve().parents[1] / "programs" / "nests"
MACHINE = pj.Machine.preset("shared-memory")


def _node_times(model: pj.SourceModel, argv: list[str]) -> dict[int, float]:
    prediction = pj.interpret(model, MACHINE, np=1, params=model.arguments(argv))
    return {int(r["id"]): float(r["time"]) for r in prediction.nodes(1)}


def test_triangles_scale_as_their_area_and_a_band_keeps_its_mean(tmp_path: Path) -> None:
    run = ["./triangle", "400"]
    model = pj.build_model(PROGRAMS / "triangle.c", ["-O2"], argv=run)
    model.estimate(run=run, np=1, directory=tmp_path)
    nests = {
        int(n["source"]["line"]): n
        for n in model.nodes()
        if n["kind"] == "rb" and str(n.get("label", "")).startswith("for i")
    }
    assert sorted(nests) == [16, 22, 28], sorted(nests)
    small, large = _node_times(model, run), _node_times(model, ["./triangle", "800"])
    for line in (16, 22):  # the upper and the lower triangle: n (n - 1) / 2 bodies
        ratio = large[nests[line]["id"]] / small[nests[line]["id"]]
        assert 3.95 < ratio < 4.05, (line, ratio, nests[line]["time"])
        assert "/ 2.0" in str(nests[line]["time"])
    # The band (j from i up to n / 4) is not a triangle over i < n: its measured mean stays,
    # never the formula's zero iterations.
    band = nests[28]
    assert "/ 2.0" not in str(band["time"]) and large[band["id"]] > 0.0


def test_a_kept_work_sharing_loop_over_data_is_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    run = ["./atomic_loop", "8000"]
    model = pj.build_model(PROGRAMS / "atomic_loop.cpp", ["-O2", "-fopenmp"], argv=run)
    model.estimate(run=run, np=1, directory=tmp_path)
    loops = [n for n in model.nodes() if n.get("label") == "for i < nv"]
    assert len(loops) == 1
    # The filter keeps 3 of every 4 of the 8000: one thread runs all 6000 per step.
    assert loops[0]["opaque"]["trips"] == pytest.approx(6000.0), loops[0]["opaque"]


def test_a_triangle_inside_a_loop_with_its_own_variable_reads_that_variable(
    tmp_path: Path,
) -> None:
    # HPCCG estimated at np 2 stopped with "unknown name 'i'": the triangle's count was written
    # with the function's `i`, while the enclosing loop counts with a variable of its own.
    run = ["./scoped_triangle", "4000"]
    model = pj.build_model(PROGRAMS / "scoped_triangle.c", ["-O2"], argv=run)
    outer = [n for n in model.nodes() if n["kind"] == "for" and n["source"]["line"] == 22]
    assert len(outer) == 1
    counter = str(outer[0]["init"][0][0])
    assert counter != "i", outer  # the loop has a variable of its own
    model.estimate(run=run, np=1, directory=tmp_path)
    triangle = [n for n in model.nodes() if "(n) - ((" in str(n.get("time", ""))]
    assert len(triangle) == 1, [n.get("time") for n in model.nodes()]
    text = str(triangle[0]["time"])
    # Its count reads the enclosing loop's own variable, one the model has.
    assert f"(({counter} + 1))" in text, (text, counter)
    small, large = _node_times(model, run), _node_times(model, ["./scoped_triangle", "8000"])
    # The triangle dominates: twice the range, about four times its time.
    ratio = large[outer[0]["id"]] / small[outer[0]["id"]]
    assert 3.6 < ratio < 4.2, (ratio, text)
