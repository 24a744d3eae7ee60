"""Functions called from measured nests and from other places (issue 12 item 4: the estimation
code stays cheap). ORNL minisweep's ref_facexz() accessor, timed for its calls beside the face
exchange, ran its probes in every call of the sweep's innermost loops too: the estimation code
took 2.5-2.8x the program. A straight-line one is now left unprobed, and a larger one's probes
are silent while a nest that calls it runs. tests/programs/probes/accessor.c; real Clang parse,
estimation under mpirun."""

from __future__ import annotations

from pathlib import Path

import pytest

import parjava as pj

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "probes" / "accessor.c"
STEPS = 400
RUN = ["./accessor", "256", "256", str(STEPS)]


def test_accessors_in_a_nest_cost_it_nothing_and_count_their_other_calls(tmp_path: Path) -> None:
    model = pj.build_model(PROGRAM, ["-O2"], argv=RUN)
    est = model.estimate(run=RUN, np=1, directory=tmp_path, repeat=3, combine="min")
    code = (tmp_path / "accessor.c").read_text().splitlines()
    # ref(): straight-line, no probe at all; cell(): its probes silent inside the nest, which
    # says so on entry and on exit.
    assert not any("PJ_" in line for line in code if "const int at" in line), code
    assert any("PJ_QBEGIN" in line for line in code if "int row = iy;" in line), code
    nest = next(line for line in code if "for (int iy = 1; iy < ny; ++iy)" in line)
    assert "pj_quiet++;" in nest, nest
    assert sum("pj_quiet--;" in line for line in code) == 1, code
    # cell()'s block ran in the estimation run once per nx in every sweep (26 million times)
    # and once per two steps beside the communication: its probes saw the latter alone.
    first = next(n["id"] for n in model.nodes() if n.get("label") == "int row = iy;")
    executions = {int(n["node"]): n["executions"] for n in est.summary["nodes"]}
    assert executions[first] == STEPS // 2, executions
    # Probed in the nest, the accessors made the estimation code 6-9x the program here
    # (0.31-0.51 s against 0.04-0.06 s at 1000 steps); silent, 1.6x.
    assert est.overhead is not None and est.overhead < 3.5, est.records
