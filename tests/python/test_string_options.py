"""C++ option parsers are read as C's are (issue 12, program inputs become parameters).

C++ programs hold each argument in a std::string, compare it with `==`, and convert the next
one with std::stoi / std::stod (tests/programs/inputs/string_options.cpp), or copy the whole
command line into a `std::vector<std::string>` first and parse that by index
(tests/programs/inputs/argument_vector.cpp). std::stoi was an external call and the copy's
elements no positions of argv: the step counts were data, measured once, and a prediction for
another command line kept the estimation run's steps."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import parjava as pj
from parjava._arguments import arguments
from program_runs import source_line

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

INPUTS = Path(__file__).resolve().parents[1] / "programs" / "inputs"
MACHINE = pj.Machine.preset("shared-memory")


def _freq(model: pj.SourceModel, argv: list[str], node: int, np: int = 1) -> int:
    p = pj.interpret(model, MACHINE, np=np, params=model.arguments(argv))
    return int({r["id"]: r for r in p.nodes(np)}[node]["freq"])


def test_std_stoi_of_the_next_argument_is_an_option(tmp_path: Path) -> None:
    run = ["./string_options", "--size", "20000", "--steps", "10", "--sweeps", "2"]
    model = pj.build_model(INPUTS / "string_options.cpp", ["-O2"], argv=run)
    params = json.loads(model.to_json())["parameters"]
    # std::stoi(argv[++i]), std::stoi(std::string(argv[++i])) and atoi(value.c_str()).
    assert params["steps"]["options"] == ["--steps"] and params["steps"]["default"] == 10, params
    assert params["sweeps"]["options"] == ["--sweeps"], params
    assert (params["sweeps"]["default"], params["sweeps"]["value"]) == (1, 2), params
    reads = [str(d) for d in model.diagnostics if "stoi() returns" in str(d)]
    assert not reads, reads
    model.estimate(run=run, np=1, directory=tmp_path)
    allreduce = next(n["id"] for n in model.nodes() if n.get("op") == "MPI_Allreduce")
    assert _freq(model, run, allreduce) == 10
    assert _freq(model, ["./s", "--steps", "40", "--size", "20000"], allreduce, np=2) == 80
    assert _freq(model, ["./s", "--size", "500"], allreduce) == 10  # the program's default
    # The sweeps (relax() in a loop, measured as one block) follow --sweeps: each costs the same.
    sweeps = (1, 3, 5)
    times = [
        pj.interpret(model, MACHINE, np=1, params=model.arguments([*run[:5], "--sweeps", str(k)]))
        for k in sweeps
    ]
    assert times[2].time - times[1].time == pytest.approx(times[1].time - times[0].time)
    # All the growth is relax()'s, whose calls follow --sweeps (not a ratio of the totals: the
    # run's one-off blocks, each measured once, took 1.4 ms of 1.9 in a CI run, 0.1 ms here).
    line = source_line(INPUTS / "string_options.cpp", "sum += relax(u, weight);")
    relax = [next(r for r in t.nodes(1) if r["kind"] == "ufc" and r["line"] == line) for t in times]
    assert [r["freq"] for r in relax] == [10 * k for k in sweeps], relax
    assert relax[0]["time"] > 0, relax
    assert relax[1]["time"] == pytest.approx(3 * relax[0]["time"]), relax
    grown = times[1].time - times[0].time
    assert grown == pytest.approx(relax[1]["time"] - relax[0]["time"], rel=1e-6), relax


def test_a_vector_of_the_arguments_keeps_their_positions(tmp_path: Path) -> None:
    run = ["./argument_vector", "10", "-n", "20000"]
    model = pj.build_model(INPUTS / "argument_vector.cpp", ["-O2"], argv=run)
    params = json.loads(model.to_json())["parameters"]
    # args[0] of a copy from argv + 1 is argv[1]; `-n` is an option of the loop over the copy.
    assert params["argv1"]["value"] == 10, params
    assert params["n"]["options"] == ["-n"] and params["n"]["default"] == 1000, params
    # The copy holds argc - 1 strings: the loop over it is counted from the command line.
    opaque = [str(d) for d in model.diagnostics if "args.size()" in str(d)]
    assert not opaque, opaque
    model.estimate(run=run, np=1, directory=tmp_path)
    allreduce = next(n["id"] for n in model.nodes() if n.get("op") == "MPI_Allreduce")
    assert _freq(model, run, allreduce) == 10
    assert _freq(model, ["./a", "25", "-n", "500"], allreduce) == 25
    assert model.arguments(["./a", "25"])["n"] == 1000
    longer = [
        pj.interpret(model, MACHINE, np=1, params=model.arguments(["./a", str(k), "-n", "20000"]))
        for k in (10, 40, 70)
    ]
    assert longer[2].time - longer[1].time == pytest.approx(longer[1].time - longer[0].time)


def test_settings_a_parsing_helper_reads_into_references_are_parameters(tmp_path: Path) -> None:
    """miniXyce's get_parms(argc, argv, ..., double &t_stop, ...) copies argv into strings and
    calls parse_command_line() for the command line and then for its defaults; each sets
    `t_stop = atof(argv[i].data())` under `parm_name == "tstop"`, the name stripped of its
    dashes. main's t_stop was data written through a reference: the time loop `while (t <
    t_stop)` replayed its estimation count at every -tstop. A reference the helpers only read
    numbers into is a program input, under the names the helper compares."""
    run = ["./parsing_helper", "-n", "200000", "-tstep", "1e-8", "-tstop", "2e-7"]
    model = pj.build_model(INPUTS / "parsing_helper.cpp", ["-O2"], argv=run)
    params = json.loads(model.to_json())["parameters"]
    assert params["t_stop"]["origin"] == "helper", params
    assert params["t_stop"]["options"] == ["-tf", "--tf", "-tstop", "--tstop"], params
    assert params["t_step"]["options"] == ["-h", "--h", "-tstep", "--tstep"], params
    assert params["n"]["options"] == ["-n", "--n"], params
    # `int values = 0;` under `parm_name == "init"` is a local of the loop's body, not a flag.
    assert "values" not in params, params
    opaque = [str(d) for d in model.diagnostics if "while t < t_stop" in str(d)]
    assert not opaque, opaque
    model.estimate(run=run, np=1, directory=tmp_path)
    measured = json.loads(model.to_json())["parameters"]
    assert (measured["t_stop"]["value"], measured["n"]["value"]) == (2e-7, 200000), measured
    allreduce = next(n["id"] for n in model.nodes() if n.get("op") == "MPI_Allreduce")
    assert _freq(model, run, allreduce) == 19  # t = 1e-8, 2e-8, ... below 2e-7
    assert _freq(model, [*run[:5], "--tf", "4e-7"], allreduce) == 39
    assert _freq(model, [*run[:3], "-h", "2e-8", "-tstop", "4e-7"], allreduce) == 19
    # Left out where the estimation run gave it, a setting's value is unknown (the helper's
    # defaults): said. Left out of both, it keeps what the defaults gave the estimation run.
    with pytest.warns(UserWarning, match="-n / --n is not on the command line"):
        model.arguments(["./p", "-tstop", "4e-7"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        given = arguments(measured, ["./p", "-tstop", "4e-7"], estimated=["./p", "-tstop", "1"])
    assert given == {"argc": 3, "t_stop": 4e-7}, given


def test_a_settings_file_read_into_references_gives_measured_parameters(tmp_path: Path) -> None:
    """`read_settings(path, nx, steps)` fills its references with `in >> nx` and
    `sscanf(line.c_str(), "%d", &steps)`: the caller's variables are inputs (origin helper),
    measured by the estimation run and set with params=; the keys of the file are no options,
    and another settings file is said to keep the measured values."""
    settings = tmp_path / "run.txt"
    settings.write_text("nx 20000\nsteps 12\n")
    run = ["./config_reader", str(settings)]
    model = pj.build_model(INPUTS / "config_reader.cpp", ["-O2"], argv=run)
    params = json.loads(model.to_json())["parameters"]
    assert params["nx"]["origin"] == params["steps"]["origin"] == "helper", params
    assert "options" not in params["nx"] and "in >> nx" in params["nx"]["doc"], params
    opaque = [str(d) for d in model.diagnostics if "for step < steps" in str(d)]
    assert not opaque, opaque
    model.estimate(run=run, np=1, directory=tmp_path / "est")
    measured = json.loads(model.to_json())["parameters"]
    assert (measured["nx"]["value"], measured["steps"]["value"]) == (20000, 12), measured
    allreduce = next(n["id"] for n in model.nodes() if n.get("op") == "MPI_Allreduce")
    assert _freq(model, run, allreduce) == 12
    p = pj.interpret(model, MACHINE, np=1, params={**model.arguments(run), "steps": 30})
    assert {r["id"]: r for r in p.nodes(1)}[allreduce]["freq"] == 30
    with pytest.warns(UserWarning, match=r"parsing functions set \(nx, steps\)"):
        model.arguments(["./config_reader", str(tmp_path / "other.txt")])
