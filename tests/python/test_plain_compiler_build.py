"""A build as UoB-HPC/flow's make and bear record it (thirty-first session), reproduced with a
program of our own (tests/programs/process_exit/no_finalize.c).

* bear around `mpicc` writes the compiler mpicc ran: `/usr/bin/gcc` with Open MPI's `-I` flags.
  The estimation code and the unmodified program linked with it and missed libmpi.
* flow returns from main without MPI_Finalize; mpirun reports such a job as failed, and the
  estimation stopped there. Both runs now finalize for the program at a successful exit, and
  the estimation says that the program never does.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

import parjava as pj

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "process_exit" / "no_finalize.c"
MACHINE = pj.Machine.preset("shared-memory")


def test_a_gcc_database_of_a_program_that_never_finalizes(tmp_path: Path) -> None:
    mpicc = shutil.which("mpicc")
    gcc = shutil.which("gcc")
    assert mpicc is not None and gcc is not None
    flags = subprocess.run(
        [mpicc, "--showme:compile"], capture_output=True, text=True, check=True
    ).stdout.split()
    source = tmp_path / PROGRAM.name
    shutil.copy(PROGRAM, source)
    database = [
        {
            "directory": str(tmp_path),
            "arguments": [gcc, "-O2", *flags, "-c", source.name, "-o", "no_finalize.o"],
            "file": str(source),
        }
    ]
    (tmp_path / "compile_commands.json").write_text(json.dumps(database))
    argv = ["./no_finalize", "200000", "20"]
    model = pj.build_model(compile_commands=tmp_path, argv=argv)
    est = model.estimate(run=argv, np=2, directory=tmp_path / "est")
    said = [d.message for d in model.diagnostics]
    assert any("--showme:link" in m for m in said), said
    assert any("without calling MPI_Finalize" in m for m in said), said
    assert not any("exited with status" in m for m in said), said
    # The unmodified program's spans were measured too: the self-check compared with them.
    assert est.self_check is not None and est.self_check.measured > 0, est.self_check
    barrier = next(n["id"] for n in model.nodes() if n.get("op") == "MPI_Barrier")
    prediction = pj.interpret(model, MACHINE, np=3)
    assert {r["id"]: r for r in prediction.nodes(3)}[barrier]["freq"] == 20 * 3
