"""Options read by key through a record that holds the command line, in a database that builds
two programs (issue 12: program inputs, whole programs; ORNL minisweep's idioms).

minisweep copies argv into `args->argv_unconsumed` (Arguments_create(&args, argc, argv)) and
reads each option anywhere the record is passed: `dims.nx = Arguments_consume_int_or_default(
args, "--nx", 5)`. Every such value was data (its helper returns what `strcmp` and `atoi` made),
so no size or step count of the app followed its command line. Its CMake database also builds
`sweep` and `tester`, two mains: the whole database made one program of both, the tester's.
tests/programs/inputs/argument_object.c; real Clang parses, estimation under mpirun."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import parjava as pj

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "inputs" / "argument_object.c"
MACHINE = pj.Machine.preset("shared-memory")


def test_options_read_through_the_record_are_parameters(tmp_path: Path) -> None:
    run = ["./argument_object", "--nx", "20000", "--steps", "40"]
    model = pj.build_model(PROGRAM, ["-O2"], argv=run)
    params = json.loads(model.to_json())["parameters"]
    assert params["nx"]["default"] == 5 and params["steps"]["default"] == 3, params
    assert "--nx" in params["nx"]["options"] and "--steps" in params["steps"]["options"], params
    assert model.arguments(["./a", "--steps", "7"])["steps"] == 7
    assert model.arguments(["./a", "--steps", "7"])["nx"] == 5  # the call's default
    model.estimate(run=run, np=1, directory=tmp_path / "est")
    # The sweep's time follows --nx (the steps' own node, not the whole run: at a few ms the
    # allocations and the exchange are a share of it), and the ring's messages at np 2 carry
    # nx doubles.
    steps = next(n for n in model.nodes() if str(n.get("label", "")).startswith("for t <"))
    times = [
        next(
            r["time"]
            for r in pj.interpret(
                model, MACHINE, np=1, params=model.arguments(["./a", "--nx", nx])
            ).nodes(1)
            if r["id"] == steps["id"]
        )
        for nx in ("20000", "80000")
    ]
    assert times[1] == pytest.approx(4 * times[0], rel=0.15), times
    argv = ["./a", "--nx", "8000", "--steps", "6"]
    two = pj.interpret(model, MACHINE, np=2, params=model.arguments(argv), trace=True)
    ev = two.trace(2).events
    mine = (ev["location"] == 1) & np.isin(
        ev["kind"], [int(pj.EventKind.SEND), int(pj.EventKind.ISEND_POST)]
    )
    assert int(mine.sum()) == 6 and {int(b) for b in ev["bytes"][mine]} == {8000 * 8}


LIBRARY = "int work(int n) { int s = 0; for (int i = 0; i < n; ++i) s += i % 7; return s; }\n"
MAIN = """#include <mpi.h>
#include <stdlib.h>
int work(int n);
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 10;
  int s = 0;
  for (int k = 0; k < %d; ++k) s += work(n);
  MPI_Finalize();
  return s == 0;
}
"""


def test_a_database_of_two_programs_models_the_one_the_command_line_names(tmp_path: Path) -> None:
    (tmp_path / "lib.c").write_text(LIBRARY)
    (tmp_path / "sweep.c").write_text(MAIN % 3)
    (tmp_path / "tester.c").write_text(MAIN % 5)
    cc = shutil.which("mpicc") or "mpicc"
    commands = [
        {"directory": str(tmp_path), "file": f, "arguments": [cc, "-O2", "-c", f]}
        for f in ("tester.c", "lib.c", "sweep.c")
    ]
    (tmp_path / "compile_commands.json").write_text(json.dumps(commands))
    model = pj.build_model(compile_commands=tmp_path, argv=["./sweep", "100"])
    assert model.name == "sweep"
    notes = [d.message for d in model.diagnostics if "builds 2 programs" in d.message]
    assert notes and "modelled the one in " + str(tmp_path / "sweep.c") in notes[0], notes
    loops = [n["label"] for n in model.nodes() if str(n.get("label", "")).startswith("for k")]
    assert loops and all("3" in label for label in loops), loops
    with pytest.raises(pj.UsageError, match=r"builds 2 programs: main is defined in .*tester\.c"):
        pj.build_model(compile_commands=tmp_path)
