"""Words after an option that select a constant (issue 12: program inputs become parameters).

XSBench's read_CLI sets its simulation method by `-m history|event` and its grid by `-G
unionized|nuclide|hash`. The builder made each a flag with one value for all its words, so `-m
event` set the history method's 1, the model ran the other kernel, and its self-check missed by
52 %; and a constant `-m event` sets only under a further test (particles = 0 while neither -p
nor -l came first) was taken for what the word sets. tests/programs/inputs/keyword_options.c:
the model's method, grid and loop counts follow each command line exactly as the program's own
(compiled with mpicc and run under mpirun) do; real Clang parse, no estimation run."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import parjava as pj
from parjava._arguments import unread_differences

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "inputs" / "keyword_options.c"
MACHINE = pj.Machine.preset("shared-memory")
# The event method's work follows -l and -G exactly; the history method's also the particles,
# which `-m event`'s branch reads to update lookups, so the model keeps -p's read where the
# program makes it (measured by an estimation run), and only the method and grid are compared.
EVENT_LINES = [
    ["-m", "event", "-l", "1000"],
    ["-G", "nuclide", "-p", "7", "-m", "event", "-l", "50"],
    ["-m", "history", "-m", "event", "-G", "hash", "-l", "9"],
]
HISTORY_LINES = [
    ["-m", "history", "-G", "hash", "-l", "20", "-p", "30"],
    ["-m", "event", "-m", "history", "-G", "unionized", "-p", "3", "-l", "9"],
]


def _program_says(exe: Path, args: list[str]) -> tuple[int, int, int]:
    """Run the program; return its method, grid and work as it prints them."""
    env = {**os.environ, "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
    mpirun = shutil.which("mpirun") or "mpirun"
    out = subprocess.run(
        [mpirun, "--oversubscribe", "-np", "1", str(exe), *args],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=60,
    ).stdout
    m = re.search(r"method (\d+) grid (\d+) work (\d+)", out)
    assert m is not None, out
    return int(m.group(1)), int(m.group(2)), int(m.group(3))


def test_each_word_sets_its_own_constant(tmp_path: Path) -> None:
    exe = tmp_path / "keyword_options"
    subprocess.run(["mpicc", "-O2", str(PROGRAM), "-o", str(exe)], check=True)
    model = pj.build_model(PROGRAM, ["-O2"], argv=["./keyword_options", *EVENT_LINES[0]])
    params = json.loads(model.to_json())["parameters"]
    assert params["simulation_method"]["choices"] == {"history": 1, "event": 2}, params
    assert params["grid_type"]["choices"] == {"unionized": 0, "nuclide": 1, "hash": 2}, params
    assert params["simulation_method"]["value"] == 2  # the build's command line: -m event
    # 0 only under a further test in `-m event`'s branch: no choice, and no known default.
    assert "choices" not in params["particles"] and "default" not in params["particles"], params
    loops = {n["label"]: n["children"][0] for n in model.nodes() if n.get("kind") == "for"}
    labels = ("for i < in.lookups", "for j < in.lookups", "for g < in.grid_type")
    counted = [loops[k] for k in labels]
    for args in EVENT_LINES + HISTORY_LINES:
        method, grid, work = _program_says(exe, args)
        values = model.arguments(["./keyword_options", *args])
        # `-G`, which introduces a choice word, is read too: against the build's command line
        # (no -G), the differences are all read (no "differs ... no model parameter reads it").
        built = ["./keyword_options", *EVENT_LINES[0]]
        assert unread_differences(params, ["./keyword_options", *args], built) is None, args
        assert (values["simulation_method"], values["grid_type"]) == (method, grid), args
        if args in EVENT_LINES:
            p = pj.interpret(model, MACHINE, np=1, params=values)
            freq = {r["id"]: int(r["freq"]) for r in p.nodes(1)}
            assert sum(freq[b] for b in counted) == work, (args, work, freq)
