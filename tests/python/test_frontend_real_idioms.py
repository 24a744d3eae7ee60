"""The model builder on the idioms of real mini-apps (issue 12), with real Clang parses.

The programs in tests/programs/ are written the way CoMD, miniAMR and LULESH are: several
files, globals shared between them, options registered in a table and parsed by getopt_long,
state in structs reached through pointers, neighbour ranks in small arrays, rank 0 parsing and
broadcasting, C++ accessors and a helper that parses into a pointer, reused loop indices. Each
test builds the unmodified sources and checks what a new user needs: named parameters with
their options and defaults, peers the model computes for every rank, and predictions that run.
"""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

import parjava as pj

pytest.importorskip("parjava._frontend", reason="the Clang model builder is not built")

PROGRAMS = Path(__file__).resolve().parents[1] / "programs"
HALO = sorted(str(p) for p in (PROGRAMS / "halo3d").glob("*.c"))
BCAST = [str(PROGRAMS / "bcast_params" / "main.c")]
DOMAIN = sorted(str(p) for p in (PROGRAMS / "domain_cpp").glob("*.cpp"))
MACHINE = pj.Machine.preset("shared-memory")


def parameters(model: pj.Model) -> dict[str, dict]:
    doc = json.loads(model.to_json())["parameters"]
    return {k: v if isinstance(v, dict) else {"value": v} for k, v in doc.items()}


def errors(model: pj.SourceModel) -> list[str]:
    return [str(d) for d in model.diagnostics if d.severity == "error"]


def send_peers(prediction: pj.Prediction, np_: int, rank: int) -> set[int]:
    trace = prediction.trace(np_)
    ev = trace.events
    kinds = ev["kind"]
    mine = ev["location"] == rank
    sends = mine & np.isin(kinds, [int(pj.EventKind.SEND), int(pj.EventKind.ISEND_POST)])
    return set(int(p) for p in ev["peer"][sends])


def test_option_table_struct_fields_and_neighbour_arrays() -> None:
    model = pj.build_model(HALO, ["-O2"], argv=["./halo3d", "-x", "24", "--nSteps=7"])
    assert model.name == "main"  # the file holding main, not the first source
    assert not errors(model)
    params = parameters(model)
    # Registered with addOption("nx", 'x', ...) and parsed by getopt_long in another file.
    assert params["nx"]["options"] == ["--nx", "-x"]
    assert params["nx"]["value"] == 24 and params["nx"]["default"] == 32
    assert params["nSteps"]["value"] == 7 and params["nSteps"]["default"] == 10
    assert params["px"]["value"] == 1 and "params.px" in params["px"]["aliases"]
    # The global defined in main.c and declared extern in decomp.c is one variable with its
    # initialiser.
    doc = json.loads(model.to_json())
    assert {"name": "nVars", "init": "4"} in doc["globals"]
    sendrecv = next(n for n in doc["nodes"] if n.get("op") == "MPI_Sendrecv")
    # The message size is the face size from a small local array, face[dim].
    assert "face_0" in sendrecv["args"]["sendbytes"]
    assigns = [a for n in doc["nodes"] for a in n.get("assign", [])]
    assert any(var == "face_0" and "nVars" in value for var, value in assigns)
    assert sendrecv["args"]["dest"] != "0" and sendrecv["args"]["source"] != "ANY_SOURCE"
    # Command lines become parameters the way getopt reads them.
    assert model.arguments(["./halo3d", "-i", "2", "--py=2", "-N100", "-x", "8"]) == {
        "argc": 7,
        "nx": 8,
        "ny": 32,
        "nz": 32,
        "px": 2,
        "py": 2,
        "pz": 1,
        "nSteps": 100,
    }
    # The reused index: relax()'s counted loops stay counted despite the search loop on i.
    relax = [
        n
        for n in doc["nodes"]
        if n["kind"] == "for" and n["label"] in ("for i < n - 1", "for i < n")
    ]
    assert len(relax) == 2 and all("cond" in n and "opaque" not in n for n in relax)


def test_neighbour_ranks_are_computed_per_rank() -> None:
    model = pj.build_model(HALO, ["-O2"])
    params = model.arguments(["./halo3d", "-x", "8", "-y", "8", "-z", "8", "-N", "3"])
    params.update({"px": 2, "py": 2, "pz": 2})
    prediction = pj.interpret(model, MACHINE, np=8, params=params, trace=True)
    assert prediction.times[0] > 0
    # Rank 0 sits at (0, 0, 0) of a periodic 2 x 2 x 2 grid: its x, y and z neighbours.
    assert send_peers(prediction, 8, 0) == {1, 2, 4}
    assert send_peers(prediction, 8, 7) == {6, 5, 3}
    assert prediction.trace(8).kind_counts()["SEND"] == 8 * 6 * 3


def test_params_accept_options_and_variable_spellings() -> None:
    model = pj.build_model(HALO, ["-O2"])
    assert model.resolve_params({"--nx": 5, "-N": 2, "params.px": 2, "ny": 3}) == {
        "nx": 5,
        "nSteps": 2,
        "px": 2,
        "ny": 3,
    }
    with pytest.raises(pj.UsageError, match="no parameter '--no-such-option'"):
        model.resolve_params({"--no-such-option": 1})


def test_rank_zero_parses_and_broadcasts() -> None:
    model = pj.build_model(BCAST, ["-O2"], argv=["./bcast", "--num_tsteps", "9"])
    assert not errors(model)
    params = parameters(model)
    assert params["num_tsteps"]["value"] == 9 and params["num_tsteps"]["default"] == 20
    assert params["block_size"]["options"] == ["--nx", "--block_size"]
    # What the other ranks unpack after the broadcast is what rank 0 parsed: one parameter.
    assert not any(name.startswith("params") for name in params)
    unpack = next(n for n in model.nodes() if n.get("label") == "inputs set by MPI_Bcast")
    assert ["params_0", "num_tsteps"] in unpack["assign"]
    # The value rank 0 reads from a file is an input the estimation run measures; until then
    # the builder says so.
    assert params["sweeps"]["origin"] == "file"
    assert any("'sweeps'" in str(d) and d.kind == "parameter" for d in model.diagnostics)
    prediction = pj.interpret(
        model, MACHINE, np=3, params={"num_tsteps": 4, "sweeps": 1}, trace=True
    )
    # A chain: the end ranks talk to one neighbour (MPI_PROC_NULL on the other side).
    assert send_peers(prediction, 3, 0) == {1}
    assert send_peers(prediction, 3, 1) == {0, 2}


def test_an_optional_position_rank_zero_broadcasts_keeps_its_default() -> None:
    """PRK transpose: rank 0 reads `tile = atoi(*++argv)` only when argc is 4, else keeps
    32, and broadcasts it. Absent from the command line, the position's parameter is that 32,
    so every rank runs the tiled loop the program runs (before, 0: the plain loop, never run by
    the program, and PRK transpose predicted -95 %)."""
    source = [str(PROGRAMS / "bcast_params" / "positional.c")]
    model = pj.build_model(source, ["-O2"], argv=["./positional", "3", "256"])
    assert not errors(model)
    params = parameters(model)
    assert params["argv3"]["value"] == 32 and params["argv3"]["default"] == 32, params
    assert model.arguments(["./positional", "3", "256"])["argv3"] == 32
    assert model.arguments(["./positional", "3", "256", "0"])["argv3"] == 0
    text = (PROGRAMS / "bcast_params" / "positional.c").read_text().splitlines()
    lines = {n["source"]["line"]: n["id"] for n in model.nodes() if n["kind"] == "for"}
    plain = lines[next(k + 1 for k, t in enumerate(text) if "j < order; j++" in t)]
    tiled = lines[next(k + 1 for k, t in enumerate(text) if "jt < j + tile" in t)]
    for np_ in (1, 2):
        counts = {
            r["id"]: r["freq"]
            for r in pj.interpret(
                model, MACHINE, np=np_, params=model.arguments(["./positional", "3", "256"])
            ).nodes()
        }
        assert counts.get(tiled, 0) > 0 and counts.get(plain, 0) == 0, (np_, counts)
    untiled = pj.interpret(
        model, MACHINE, np=2, params=model.arguments(["./positional", "3", "256", "0"])
    )
    counts = {r["id"]: r["freq"] for r in untiled.nodes()}
    assert counts.get(plain, 0) > 0 and counts.get(tiled, 0) == 0, counts
    # What rank 0 computes from its inputs and sends (`share = order / size`) is that
    # expression on every rank, not a parameter the estimation run measures.
    sent = [n for n in model.nodes() if n.get("label") == "inputs set by MPI_Bcast"]
    assert ["share", "(argv2 / size_)"] in [a for n in sent for a in n["assign"]], sent
    assert "share" not in params
    loop = lines[next(k + 1 for k, t in enumerate(text) if "k < share" in t)]
    for np_, order in ((1, 256), (2, 256), (4, 1024)):
        run = pj.interpret(
            model, MACHINE, np=np_, params=model.arguments(["./positional", "3", str(order)])
        )
        body = next(n["children"][0] for n in model.nodes() if n["id"] == loop)
        freq = {r["id"]: r["freq"] for r in run.nodes()}
        assert freq[body] == order, (np_, order, freq[body])  # np ranks x order / np


def test_cxx_accessors_helper_parser_and_cbrt_grid() -> None:
    model = pj.build_model(DOMAIN, ["-O2", "-std=c++17"], argv=["./d", "-i", "20", "-s", "12"])
    assert not errors(model)
    params = parameters(model)
    # StrToInt(argv[i + 1], &opts->its) under strcmp(argv[i], "-i"): the caller's input.
    assert params["its"]["options"] == ["-i"] and params["its"]["default"] == 9999999
    assert params["its"]["value"] == 20 and params["nx"]["value"] == 12
    doc = json.loads(model.to_json())
    peers = {
        n["args"].get("dest", n["args"].get("source"))
        for n in doc["nodes"]
        if n.get("op") in ("MPI_Isend", "MPI_Irecv")
    }
    assert any("Domain_m_tp" in p for p in peers)  # tp() is the field m_tp
    # tp = cbrt(8) + 0.5 = 2: rank 0 at (0, 0, 0) sends to +x, +y, +z.
    prediction = pj.interpret(model, MACHINE, np=8, params={"its": 3, "nx": 6}, trace=True)
    assert send_peers(prediction, 8, 0) == {1, 2, 4}
    assert prediction.trace(8).kind_counts()["ISEND_POST"] == 3 * 12


def test_parjava_param_names_an_input_no_idiom_covers(tmp_path: Path) -> None:
    src = tmp_path / "annotated.c"
    src.write_text(
        textwrap.dedent(
            """
            #include <mpi.h>
            #include <parjava/model.h>
            typedef struct { int nsteps; } Config;
            static void read_config(Config *c, const char *path) {
              c->nsteps = path[0] == 'x' ? 3 : 5;
            }
            int main(int argc, char **argv) {
              Config cfg;
              MPI_Init(&argc, &argv);
              read_config(&cfg, argc > 1 ? argv[1] : "y");
              int steps = cfg.nsteps;
              PARJAVA_PARAM(steps);
              double x = 0;
              for (int s = 0; s < steps; s++)
                MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
              MPI_Finalize();
              return 0;
            }
            """
        )
    )
    model = pj.build_model(src)
    params = parameters(model)
    assert params["steps"]["origin"] == "annotation"
    loop = next(n for n in model.nodes() if n["kind"] == "for")
    assert "opaque" not in loop and "steps" in loop["cond"]
    # The annotated program still compiles normally, with the header parjava ships.
    include = pj.include_dir("model.h")
    subprocess.run(
        ["mpicc", "-c", str(src), "-I", str(include), "-o", str(tmp_path / "a.o")], check=True
    )


def test_paths_are_absolute_and_relative_to_the_compile_directory(tmp_path: Path) -> None:
    build = tmp_path / "build"
    src = tmp_path / "src"
    build.mkdir()
    src.mkdir()
    for p in HALO:
        (src / Path(p).name).write_text(Path(p).read_text())
    (src / "halo.h").write_text((PROGRAMS / "halo3d" / "halo.h").read_text())
    commands = [
        {
            "directory": str(build),
            "file": f"../src/{Path(p).name}",
            "arguments": ["mpicc", "-O2", "-I../src", "-c", f"../src/{Path(p).name}"],
        }
        for p in HALO
    ]
    (build / "compile_commands.json").write_text(json.dumps(commands))
    model = pj.build_model(compile_commands=build)
    assert model.name == "main"
    doc = json.loads(model.to_json())
    assert all(Path(f).is_absolute() and Path(f).exists() for f in doc["files"])
    assert str(src / "halo.h") not in doc["files"] or (src / "halo.h").exists()
    for d in model.diagnostics:
        assert not d.file or Path(d.file).is_absolute(), d


def test_cartesian_topologies_are_computed_per_rank() -> None:
    # MPI_Dims_create / Cart_create / Cart_coords / Cart_shift / Cart_rank become formulas of
    # the grid: every rank finds its own neighbours, at any np.
    model = pj.build_model([str(PROGRAMS / "cart2d" / "cart2d.c")], ["-O2"])
    assert not [d for d in model.diagnostics if d.severity != "note"]
    params = model.arguments(["./cart2d", "64", "2"])
    prediction = pj.interpret(model, MACHINE, np=6, params=params, trace=True)
    # 6 = 3 x 2, rows periodic, columns not: rank 0 at (0, 0) sends up to 4, down to 2 and
    # not left (MPI_PROC_NULL); rank 1 at (0, 1) also sends left to 0.
    assert send_peers(prediction, 6, 0) == {4, 2}
    assert send_peers(prediction, 6, 1) == {5, 3, 0}
    assert send_peers(prediction, 6, 5) == {3, 1, 4}


def test_dims_create_matches_the_mpi_library(tmp_path: Path) -> None:
    # The model's dims_create against Open MPI's MPI_Dims_create, for every n up to 300.
    probe = tmp_path / "dims.c"
    probe.write_text(
        "#include <mpi.h>\n#include <stdio.h>\n"
        "int main(int c, char **v) { MPI_Init(&c, &v);\n"
        "  for (int nd = 1; nd <= 3; nd++) for (int n = 1; n <= 300; n++) {\n"
        "    int d[3] = {0, 0, 0}; MPI_Dims_create(n, nd, d);\n"
        '    for (int i = 0; i < nd; i++) printf("%d %d %d %d\\n", n, nd, i, d[i]); }\n'
        "  MPI_Finalize(); return 0; }\n"
    )
    exe = tmp_path / "dims"
    subprocess.run(["mpicc", str(probe), "-o", str(exe)], check=True)
    out = subprocess.run(
        ["mpirun", "--oversubscribe", "-np", "1", str(exe)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    expected = {
        tuple(int(x) for x in line.split()[:3]): int(line.split()[3]) for line in out.splitlines()
    }
    model = pj.Model("dims")
    ids = {
        key: model.compute(f"1e-6 * dims_create({key[0]}, {key[1]}, {key[2]})") for key in expected
    }
    times = {n["id"]: n["time"] for n in pj.interpret(model, MACHINE, np=1).nodes()}
    got = {key: round(times[i] * 1e6) for key, i in ids.items()}
    assert got == expected


def test_the_estimation_run_measures_the_inputs_it_reads(tmp_path: Path) -> None:
    # Built without a command line: the options keep their defaults and the value rank 0
    # reads from a file has none. The estimation run (np 2) reads all of them where the
    # program does, and the model takes what it read.
    model = pj.build_model(BCAST, ["-O2"])
    assert parameters(model)["num_tsteps"]["value"] == 20
    data = tmp_path / "sweeps.txt"
    data.write_text("3\n")
    run = ["./bcast", "--num_tsteps", "5", "--nx", "3000", "--input", str(data)]
    est = model.estimate(run=run, np=2, directory=tmp_path / "est")
    params = parameters(model)
    assert params["sweeps"]["value"] == 3
    assert params["num_tsteps"]["value"] == 5 and params["block_size"]["value"] == 3000
    assert params["num_tsteps"]["default"] == 20  # the program's own default stays listed
    notes = [d.message for d in est.diagnostics if d.kind == "parameter"]
    assert any("parameter 'sweeps' = 3 as the estimation run read it" in m for m in notes), notes
    assert not any(d.severity == "warning" and "'sweeps'" in d.message for d in est.diagnostics)
    # The options set their variables once the parser loop ends, from their parameters (an
    # option the estimation run did not give sets its variable too); the loop's conditions,
    # if any stay in the model, are counted (3 options of 7 arguments), not guessed at 0.5.
    labels = [str(n.get("label", "")) for n in model.nodes()]
    assert "inputs set by the option loop" in labels, labels
    options = [n for n in model.nodes() if str(n.get("label", "")).startswith("if !strcmp(")]
    assert all(n["opaque"].get("samples", 0) > 0 for n in options), options
    # The prediction runs the measured program: 5 steps, each sending once to rank 1.
    prediction = pj.interpret(model, MACHINE, np=2, trace=True)
    ev = prediction.trace(2).events
    sends = (
        (ev["location"] == 0)
        & (ev["peer"] == 1)
        & np.isin(ev["kind"], [int(pj.EventKind.SEND), int(pj.EventKind.ISEND_POST)])
    )
    assert int(sends.sum()) == 5


POTENTIAL = sorted(str(p) for p in (PROGRAMS / "potential").glob("*.c"))


def test_function_pointers_layout_inheritance_and_arrays_by_pointer(tmp_path: Path) -> None:
    """CoMD's idioms: `s->pot->force(s)` through a pointer the caller's file cannot name (a
    static function of another file), a derived potential written as `LjPotential` and read as
    `BasePotential`, and the global extent passed as `real3` (an array decayed to a pointer)."""
    argv = ["./sim", "-x", "6", "-N", "3"]
    model = pj.build_model(POTENTIAL, ["-O2"], argv=argv)
    assert not errors(model)
    dispatch = [d.message for d in model.diagnostics if "function pointer" in d.message]
    assert dispatch and "ljForce" in dispatch[0] and "morseForce" in dispatch[0]
    # The extent is followed into initDecomposition: no loop bound is left to the array's data.
    assert not any("globalExtent" in d.message for d in model.diagnostics if d.kind == "opaque")
    model.estimate(run=argv, np=1, repeat=1, directory=tmp_path / "est")
    doc = json.loads(model.to_json())
    chosen = next(n for n in doc["nodes"] if n.get("label") == "if s->pot->force == ljForce")
    assert chosen["opaque"]["probability"] == 1.0 and chosen["opaque"]["samples"] == 3

    def predicted(np_: int, nx: int) -> float:
        params = model.arguments(["./sim", "-x", str(nx), "-N", "3"])
        return float(pj.interpret(model, MACHINE, np=np_, params=params).times[0])

    # The force loop runs over (nx * lat / cutoff)^3 / np boxes with LjPotential's lat and
    # cutoff: twice the cells is 8x the work, two ranks halve it. Timed as a constant inside
    # the caller (the old behaviour) both ratios would be 1.
    assert 6.0 < predicted(1, 12) / predicted(1, 6) < 10.0
    assert 0.4 < predicted(2, 12) / predicted(1, 12) < 0.65
