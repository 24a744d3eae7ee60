"""Idioms of the OSU micro-benchmarks (5.3, `mpi/pt2pt/osu_latency.c` with `osu_pt2pt.c`), tried
unmodified in the thirteenth session, reproduced in a small program of our own
(tests/programs/inputs/setter_options.c).

OSU parses its options with getopt and hands each number straight to a setter,
`if (set_num_iterations(atoi(optarg))) ...`, which stores it in the global options that bound
the timing loop of every message size. The number was no parameter ("the number atoi() reads
from 'optarg' (a program input, modelled only when assigned to a variable)"), so `-i 2000`
predicted the estimation's `-i 200`, and the setter, called under getopt's switch, made the
loop's count a data decision replayed from the estimation run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import parjava as pj

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "inputs" / "setter_options.c"
MACHINE = pj.Machine.preset("shared-memory")


def test_a_number_handed_to_a_setter_is_a_parameter_named_after_it(tmp_path: Path) -> None:
    run = ["./setter_options", "-i", "20", "-x", "5"]
    model = pj.build_model(PROGRAM, ["-O2"], argv=run)
    params = json.loads(model.to_json())["parameters"]
    assert params["num_iterations"]["options"] == ["-i"], params
    assert params["num_warmup"]["options"] == ["-x"], params
    assert params["num_iterations"]["aliases"] == ["set_num_iterations"], params
    assert model.arguments(["./s", "-x", "7", "-i", "90"])["num_iterations"] == 90
    model.estimate(run=run, np=2, directory=tmp_path)
    send = next(n["id"] for n in model.nodes() if n.get("op") == "MPI_Send")
    sizes = 7  # 1, 4, ..., 4096 bytes
    # The options in another order are the same inputs.
    for argv, rounds in (
        (run, 25),
        (["./s", "-i", "80", "-x", "5"], 85),
        (["./s", "-x", "5", "-i", "40"], 45),
    ):
        p = pj.interpret(model, MACHINE, np=2, params=model.arguments(argv))
        # Rank 0's send in each round (rank 1 sends from the other branch).
        assert {r["id"]: r for r in p.nodes(2)}[send]["freq"] == sizes * rounds, argv
    # The setter's default lives in the caller (`options.skip = 100`): an option left out says
    # that the model keeps the estimation's value.
    with pytest.warns(UserWarning, match="-x is not on the command line"):
        model.arguments(["./s", "-i", "40"])
