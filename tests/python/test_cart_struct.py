"""SimpleMOC's decomposition and inputs (ANL-CESAR/SimpleMOC, tried unmodified in the
twentieth session), reproduced in tests/programs/cart_struct/cart_struct.c.

Three things made its model wrong without a word: MPI_Cart_create given its dimension count in
a variable (`int ndims = 3;`) left the grid unknown, so all six neighbours, copied into a struct
and from it into a table, were rank 0 and ANY_SOURCE (a deadlock at np 2); the size of the
derived datatype kept in that struct (`grid.flux`) was measured, not `groups` floats; and the
track count, computed from the input but also summed from a tracking file on a path the run
never takes, was data everywhere, so another input kept the estimation's trip counts.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import parjava as pj
from program_runs import median_time, source_line

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "cart_struct" / "cart_struct.c"
MACHINE = pj.Machine.preset("shared-memory")
STEPS = 10
RUN = ["./cart_struct", "40", str(STEPS)]


def _line(text: str) -> int:
    return source_line(PROGRAM, text)


@pytest.fixture(scope="module")
def model() -> pj.SourceModel:
    return pj.build_model(PROGRAM, ["-O2"], argv=RUN)


def _freq(prediction: pj.Prediction, np: int, line: int) -> float:
    return sum(r["freq"] for r in prediction.nodes(np) if r["line"] == line)


def test_neighbours_kept_in_a_struct_are_each_ranks_own(model: pj.SourceModel) -> None:
    """Every rank sends to its grid neighbours only (MPI_PROC_NULL elsewhere): 2 x 1 x 1 at np
    2, 2 x 2 x 1 at np 4, as MPI_Dims_create makes them; before, the peers were unknown."""
    errors = [d for d in model.diagnostics if d.severity == "error"]
    assert not errors, errors
    sends = [n for n in model.nodes() if n.get("op") == "MPI_Isend"]
    assert len(sends) == 1, sends
    # The message is `per_face` elements of the struct's datatype, `groups` floats each.
    assert sends[0]["args"]["bytes"] == "per_face * Grid_flux", sends[0]["args"]
    assert not [d for d in model.diagnostics if "size of datatype" in d.message]
    isend, irecv = _line("MPI_Isend("), _line("MPI_Irecv(")
    for np_, faces in ((1, 0), (2, 1), (4, 2)):
        p = pj.interpret(model, MACHINE, np=np_, params=model.arguments(RUN))
        assert _freq(p, np_, isend) == np_ * faces * STEPS, (np_, p.nodes(np_))
        assert _freq(p, np_, irecv) == np_ * faces * STEPS, (np_, p.nodes(np_))


def test_a_count_another_path_reads_from_data_stays_computed(model: pj.SourceModel) -> None:
    """`in->ntracks += counts[i]` in load_tracks() (run only with a tracking file) takes the
    value the estimation measures there; derive()'s formula keeps the count computed."""
    load = _line("in->ntracks += counts[i];")
    notes = [d for d in model.diagnostics if "measures after it" in d.message]
    assert [d.line for d in notes] == [load], notes
    assert "derive()" in notes[0].message and "parameter 'ntracks'" in notes[0].message
    sweep = [n for n in model.nodes() if n["kind"] == "for" and n["label"] == "for t < in.ntracks"]
    # sweep(Input in, ...) takes main's `in` through its parameter's cells (record_copies.hpp).
    assert len(sweep) == 1 and sweep[0]["cond"] == "(t < in_ntracks)", sweep
    line = sweep[0]["source"]["line"]
    assert not [d for d in model.diagnostics if d.kind == "opaque" and d.line == line]
    counts = {}
    for angles in ("40", "80"):
        params = model.arguments(["./cart_struct", angles, str(STEPS)])
        p = pj.interpret(model, MACHINE, np=1, params=params)
        counts[angles] = _freq(p, 1, line + 1)  # the loop over groups runs once per track
    # The loop over groups tests its condition groups + 1 times per track.
    assert counts == {"40": 20000 * STEPS * 17, "80": 40000 * STEPS * 17}, counts


def test_twice_the_angles_against_the_program(model: pj.SourceModel, tmp_path: Path) -> None:
    """Estimated at np 2 on 40 angles, the model predicts 80 as the program runs them: the ratio
    of the two times (a uniformly slower machine does not change it), at np 2. With the count
    measured, the model said 1.0."""
    model.estimate(run=RUN, np=2, directory=tmp_path / "est")
    exe = tmp_path / "cart_struct"
    subprocess.run(["mpicc", "-O2", str(PROGRAM), "-o", str(exe)], check=True, timeout=120)

    def predicted(angles: str) -> float:
        params = model.arguments(["./cart_struct", angles, str(STEPS)])
        return pj.interpret(model, MACHINE, np=2, params=params).time

    ratio = predicted("80") / predicted("40")
    real = 0.0
    for _ in range(2):  # timings on a shared VM: a second measurement decides
        real = median_time(exe, 2, ["80", str(STEPS)]) / median_time(exe, 2, ["40", str(STEPS)])
        if abs(ratio - real) <= 0.2 * real:
            break
    assert ratio == pytest.approx(real, rel=0.2), (ratio, real)
    assert 1.6 < ratio < 2.4, ratio
