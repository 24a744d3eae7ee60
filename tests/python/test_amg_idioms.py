"""Idioms of LLNL/AMG (the hypre-derived algebraic multigrid benchmark), tried unmodified in the
tenth session, reproduced in small programs of our own (tests/programs/static_library/).

AMG's build archives each directory into a static library and links the driver against them.
parcsr_ls/par_difconv.c defines GenerateDifConv, which calls hypre_map: declared in a header,
defined in no file of AMG. The driver never calls GenerateDifConv, so the archive member is never
taken and the program links; the estimation code linked every object directly and failed
("undefined reference to `hypre_map'") after six minutes of compiling.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import parjava as pj

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

LIBRARY = Path(__file__).resolve().parents[1] / "programs" / "static_library"
SOURCES = [str(LIBRARY / n) for n in ("main.c", "solver.c", "legacy.c")]
MACHINE = pj.Machine.preset("shared-memory")


def test_estimation_links_as_a_static_library_build(tmp_path: Path) -> None:
    argv = ["./relax", "200000", "10"]
    model = pj.build_model(SOURCES, ["-O2"], argv=argv)
    model.estimate(run=argv, np=1, directory=tmp_path)
    notes = [d.message for d in model.diagnostics if "static librar" in d.message]
    assert notes and "grid_map" in notes[0], [d.message for d in model.diagnostics]
    longer = pj.interpret(model, MACHINE, np=1, params=model.arguments(["./relax", "200000", "40"]))
    short = pj.interpret(model, MACHINE, np=1, params=model.arguments(argv))
    assert longer.time == pytest.approx(4 * short.time, rel=0.25)


NESTED = LIBRARY.parent / "nested_solver" / "nested.c"


def test_recursion_measured_never_taken_is_bounded(tmp_path: Path) -> None:
    """`if (s->coarse) destroy(s->coarse);` (hypre's `if (amg) hypre_BoomerAMGDestroy(amg);`):
    the guard is opaque, and the estimation run evaluated it and never took it, so the recursion
    has the measured depth, not an error at every np."""
    argv = ["./nested", "100000", "10"]
    model = pj.build_model(NESTED, ["-O2"], argv=argv)
    model.estimate(run=argv, np=1, directory=tmp_path)
    assert not [d for d in model.diagnostics if "has no depth" in d.message]
    for np_ in (1, 2):
        params = model.arguments(["./nested", "100000", "40"])
        assert pj.interpret(model, MACHINE, np=np_, params=params).time > 0


def test_relative_sources_in_a_compilation_database_are_instrumented(tmp_path: Path) -> None:
    """A compile_commands.json written from make runs (`mpicc -c amg.c` in AMG's test/) names
    each source relative to its directory. The estimation code compiled those originals, not
    their instrumented copies: no probe ran, and AMG's model predicted 0 s (coverage 0 %)."""
    database = [
        {
            "directory": str(LIBRARY),
            "arguments": ["mpicc", "-O2", "-c", name, "-o", name.replace(".c", ".o")],
            "file": name,
        }
        for name in ("main.c", "solver.c", "legacy.c")
    ]
    (tmp_path / "compile_commands.json").write_text(json.dumps(database))
    argv = ["./relax", "200000", "10"]
    model = pj.build_model(compile_commands=tmp_path / "compile_commands.json", argv=argv)
    model.estimate(run=argv, np=1, directory=tmp_path / "est")
    prediction = pj.interpret(model, MACHINE, np=1, params=model.arguments(argv))
    assert prediction.time > 0, [d.message for d in model.diagnostics if "self-check" in d.message]
