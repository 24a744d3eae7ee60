"""Options without a value are parameters (issue 12, program inputs become parameters).

LULESH's `-q`, `-p` and `-v` set a constant under a `strcmp` test in its option loop
(lulesh-util.cc). Such a test has both outcomes in any run with several options, so the model
drew it by its frequency, and whether a flag was on depended on the draw, not on the command
line. tests/programs/inputs/flag_options.c: `-b` adds a barrier to every step."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import parjava as pj

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "inputs" / "flag_options.c"
MACHINE = pj.Machine.preset("shared-memory")


def test_a_flag_is_a_parameter_that_follows_the_command_line(tmp_path: Path) -> None:
    run = ["./flag_options", "-n", "10", "-b", "-q"]
    model = pj.build_model(PROGRAM, ["-O2"], argv=run)
    params = json.loads(model.to_json())["parameters"]
    sync = next(p for p in params.values() if isinstance(p, dict) and p.get("options") == ["-b"])
    assert (sync["flag"], sync["default"], sync["value"]) == (1, 0, 1), params
    tol = next(p for p in params.values() if isinstance(p, dict) and p.get("options") == ["-e"])
    assert (tol["flag"], tol["default"]) == (1e-9, 1e-3), params
    assert model.arguments(["./f", "-n", "5"])[next(k for k, v in params.items() if v is sync)] == 0
    model.estimate(run=run, np=2, directory=tmp_path)
    barrier = next(n["id"] for n in model.nodes() if n.get("op") == "MPI_Barrier")
    for argv, barriers in (
        (run, 10),
        (["./f", "-n", "20", "-b"], 20),
        (["./f", "-q", "-n", "20"], 0),
        (["./f", "-b", "-n", "30", "-q"], 30),
        (["./f", "-n", "5", "-e"], 5),
    ):
        p = pj.interpret(model, MACHINE, np=2, params=model.arguments(argv))
        rows = {r["id"]: r for r in p.nodes(2)}
        assert rows.get(barrier, {}).get("freq", 0) == 2 * barriers, (argv, rows.get(barrier))
