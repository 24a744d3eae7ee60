"""Fields set for several objects (issue 13, honest predictions). HPCG's GenerateProblem(A) sets
the sizes of the fine matrix and, through GenerateCoarseProblem, of every coarser level; a field
is one model variable per type, so once its size became a parameter the fine level's loops ran
the coarsest level's trip counts (self-check -98 %). Such a field is data, measured, with the
calls named; a prediction at another size says that what it bounds keeps the estimation's
counts. tests/programs/records/levels.cpp; real Clang parse, estimation under mpirun."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import parjava as pj

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "records" / "levels.cpp"
# 200 sweeps: about 15 ms between MPI_Init and MPI_Finalize. At 20 (2 ms) the unmodified
# program's launches differ by more than the self-check's 30 % here.
RUN = ["./levels", "-n", "48", "-s", "200"]
MACHINE = pj.Machine.preset("shared-memory")


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> pj.SourceModel:
    m = pj.build_model(PROGRAM, ["-O2"], argv=RUN)
    m.estimate(run=RUN, np=1, directory=tmp_path_factory.mktemp("est"), repeat=3, combine="min")
    return m


def test_a_field_set_for_two_objects_is_data_and_measured(model: pj.SourceModel) -> None:
    opaque = [d.message for d in model.diagnostics if d.kind == "opaque"]
    assert any(
        "'Level::rows' is set by generate() for 2 objects" in m and "'fine' (levels.cpp:" in m
        for m in opaque
    ), opaque
    # The defect this guards against predicts -98 %. The unmodified program's vectorised
    # 20-ms loop runs 18-75 ms from launch to launch on this VM while the estimation code's
    # stays at 22-23 ms (run side by side, 2026-12-01), so a CI run saw -24 % and -32 %.
    check = model.self_check
    assert check is not None and check["coverage"] > 0.5, check
    assert abs(check["error"]) < 0.5, check


def test_another_size_says_what_stays_measured(model: pj.SourceModel) -> None:
    spec = json.loads(model.to_json())["parameters"]["n"]
    assert spec["measured_through"] == ["Level::rows"]
    same = pj.interpret(model, MACHINE, np=1, params=model.arguments(RUN))
    assert not [w for w in same.warnings if "set for several objects" in w]
    other = pj.interpret(model, MACHINE, np=1, params=model.arguments(["./levels", "-n", "64"]))
    said = [w for w in other.warnings if "parameter 'n' = 64 differs" in w]
    assert said and "'Level::rows'" in said[0], other.warnings
    # The steps are a parameter the model computes with: no such warning, twice the sweeps.
    longer = pj.interpret(model, MACHINE, np=1, params=model.arguments([*RUN[:3], "-s", "400"]))
    assert not [w for w in longer.warnings if "set for several objects" in w]
    assert 1.6 < longer.time / same.time < 2.1


TEARDOWN = PROGRAM.parent / "teardown.c"


def test_a_destructor_s_zeroed_size_is_no_second_value(tmp_path: Path) -> None:
    """vec_free() frees a vector's array and stores 0 in its size, for the work vector of every
    step and for the solution at the end. A constant stored where the object is released is no
    value another object reads: `Vec::n` stays the command line's n (CoSP2's hsize, zeroed by
    destroySparseMatrix for two matrices, made every sparse loop replay its estimation counts)."""
    run = ["./teardown", "20000", "20"]
    model = pj.build_model(TEARDOWN, ["-O2"], argv=run)
    said = [d.message for d in model.diagnostics if "objects" in d.message]
    assert not said, said
    loops = [n for n in model.nodes() if n.get("kind") == "for" and "->n" in str(n.get("label"))]
    assert len(loops) == 3 and all("opaque" not in n for n in loops), loops
    model.estimate(run=run, np=1, directory=tmp_path)
    times = [
        pj.interpret(model, MACHINE, np=1, params=model.arguments(["./teardown", n, "20"])).time
        for n in ("20000", "40000", "60000")
    ]
    # The vectors' loops follow n: each 20000 more elements cost the same.
    assert times[2] - times[1] == pytest.approx(times[1] - times[0], rel=0.05), times
    assert times[1] > 1.3 * times[0], times
