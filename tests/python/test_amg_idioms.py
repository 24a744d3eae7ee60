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
import warnings
from pathlib import Path
from typing import Any

import pytest

import parjava as pj
from cost_lines import assert_linear

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
    steps = (10, 40, 70)
    times = [
        pj.interpret(model, MACHINE, np=1, params=model.arguments([*argv[:2], str(n)])).time
        for n in steps
    ]
    assert_linear(steps, times, share=0.4)


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


COMM_PKG = LIBRARY.parent / "records" / "comm_pkg.c"


def test_a_communicator_field_set_in_several_functions_holds_the_last_one(tmp_path: Path) -> None:
    """hypre's comm packages: `hypre_ParCSRCommPkgComm(pkg) = comm;` in several functions, each
    from its own communicator parameter, and the exchange elsewhere uses the field. The field was
    named after the first assignment in source order, a parameter of a function called only
    after the solve, and every np stopped with "communicator ... is used on rank 0 before it was
    created" (AMG's par_csr_communication.c:304). Each assignment now copies the communicator
    into the field per rank, so the exchange runs on the world communicator it was given."""
    argv = ["./pkg", "200000", "20"]
    model = pj.build_model(COMM_PKG, ["-O2"], argv=argv)
    assert not [d for d in model.diagnostics if "comm_pkg::comm" in d.message], [
        d.message for d in model.diagnostics
    ]
    model.estimate(run=argv, np=1, directory=tmp_path)
    one = pj.interpret(model, MACHINE, np=1, params=model.arguments(argv))
    assert one.time > 0
    for np_ in (2, 4):
        run = pj.interpret(model, MACHINE, np=np_, params=model.arguments(argv)).runs[0]
        # Each step: two neighbours' sends per rank, and the allreduce on the same field.
        assert run.engine["messages"] >= 2 * 20 * np_, (np_, run.engine)
    steps = (20, 80, 140)
    times = [
        pj.interpret(model, MACHINE, np=1, params=model.arguments([*argv[:2], str(n)])).time
        for n in steps
    ]
    assert_linear(steps, times, share=0.4)
    model_json = json.loads(model.to_json())
    assert model_json["field_communicators"] == ["comm_pkg_comm"], model_json.get(
        "field_communicators"
    )


def field_model(fields: list[str]) -> pj.Model:
    """A package filled only behind a branch the run does not take, then used: the order an
    AMG model's draws can take (`if (!comm_pkg) hypre_MatvecCommPkgCreate(A);`)."""
    doc: dict[str, Any] = {
        "format": "parjava-model",
        "version": 1,
        "name": "fields",
        "functions": [{"name": "main", "params": [], "body": 1}],
        "nodes": [
            {"id": 1, "kind": "seq", "children": [2, 4, 5]},
            {"id": 2, "kind": "if", "cond": "size < 0", "children": [3]},
            {
                "id": 3,
                "kind": "cfc",
                "op": "comm_assign",
                "args": {"comm": "world", "newcomm": "pkg_comm"},
            },
            {
                "id": 4,
                "kind": "cfc",
                "op": "MPI_Sendrecv",
                "args": {
                    "comm": "pkg_comm",
                    "dest": "(rank + 1) % size",
                    "sendbytes": "8",
                    "source": "(rank + size - 1) % size",
                },
            },
            {
                "id": 5,
                "kind": "cfc",
                "op": "MPI_Allreduce",
                "args": {"comm": "pkg_comm", "bytes": "8"},
            },
        ],
    }
    if fields:
        doc["field_communicators"] = fields
    return pj.Model.from_json(json.dumps(doc))


def test_a_communicator_field_read_before_it_is_assigned_is_world_with_a_warning() -> None:
    """A field is world until assigned, said once per field with the leaf; any other
    communicator read before it exists stays an error."""
    pred = pj.interpret(field_model(["pkg_comm"]), MACHINE, np=4)
    said = [w for w in pred.warnings if "communicator field 'pkg_comm'" in w]
    assert len(said) == 1 and "read before the model assigned it" in said[0], pred.warnings
    assert pred.runs[0].engine["messages"] >= 4, pred.runs[0].engine
    with pytest.raises(pj.ModelError, match="'pkg_comm' is used on rank 0 before it was created"):
        pj.interpret(field_model([]), MACHINE, np=4)


TRIPLES = LIBRARY.parent / "inputs" / "triples.c"


def test_options_with_several_values_set_one_parameter_each(tmp_path: Path) -> None:
    """`-n 20 20 20` (AMG's `arg_index++; nx = atoi(argv[arg_index++]); ny = ...`) and `-P 2 1
    1` (`argv[i + 1]`, `argv[i + 2]`, ...): each value is its own parameter, at its place after
    the option. Before, every one of them took the first value, and `-n 40 40 40` was warned as
    "no model parameter reads them"."""
    argv = ["./triples", "-n", "40", "40", "40", "-s", "6"]
    model = pj.build_model(TRIPLES, ["-O2"], argv=argv)
    params = json.loads(model.to_json())["parameters"]
    places = {k: (v["options"], v.get("position", 1)) for k, v in params.items() if "options" in v}
    assert places == {
        "nx": (["-n"], 1),
        "ny": (["-n"], 2),
        "nz": (["-n"], 3),
        "px": (["-P"], 1),
        "py": (["-P"], 2),
        "pz": (["-P"], 3),
        "sweeps": (["-s"], 1),
    }, places
    given = model.arguments(["./triples", "-n", "20", "30", "50", "-P", "2", "1", "1"])
    assert {k: given[k] for k in ("nx", "ny", "nz", "px", "py", "pz")} == {
        "nx": 20,
        "ny": 30,
        "nz": 50,
        "px": 2,
        "py": 1,
        "pz": 1,
    }
    assert given["sweeps"] == 4  # the program's default: -s is not on that command line
    model.estimate(run=argv, np=1, directory=tmp_path)
    base = pj.interpret(model, MACHINE, np=1, params=model.arguments(argv)).time
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "no model parameter reads them"
        deeper = pj.interpret(
            model, MACHINE, np=1, params=model.arguments([*argv[:4], "80", "-s", "6"])
        ).time
    # Twice the planes, about twice the time: less where the set-up is a larger part on a
    # slow machine, more where the deeper grid leaves a cache level (priced by its size).
    assert 1.5 * base < deeper < 2.6 * base, (base, deeper)
