"""Communicators held in arrays (issue 12, seen in miniAMR): `MPI_Comm grid[2]` split into rows
and columns, `levels[0] = MPI_COMM_WORLD` and `levels[l + 1]` split from `levels[l]` in a loop.
Each element is a communicator of its own in the model, so at np 4 the collectives run over
their real members (2, 2, 4, 2, 1) instead of world's 4; estimated at np 1, interpreted at np 4
and, on a quiet machine (PARJAVA_TIMING_TESTS=1), compared with a real `mpirun -np 4` run."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import textwrap
from collections import Counter
from pathlib import Path

import pytest

import parjava as pj

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "subcomms" / "grid_levels.c"
# 2^23 doubles of work and 2^15-double messages: a step is about 30 ms of work at np 1, so the
# real np-4 run is mostly work shared by the cores and not the scheduling of waiting ranks.
ARGS = ["8388608", "10", "32768"]


def this_machine() -> pj.Machine:
    """One node with this machine's cores; mpirun --oversubscribe places every rank on it."""
    cores = os.cpu_count() or 1
    return pj.Machine.preset("shared-memory").with_layout(
        nodes=1, cores_per_node=cores, ranks_per_node=64
    )


def real_time(program: Path, np_: int, runs: int = 3) -> float:
    """The fastest of `runs` real runs (the program's own "time" line)."""
    mpirun = shutil.which("mpirun")
    assert mpirun is not None
    best = float("inf")
    for _ in range(runs):
        out = subprocess.run(
            [mpirun, "--oversubscribe", "-np", str(np_), str(program), *ARGS],
            capture_output=True,
            text=True,
            check=True,
            timeout=300,
        ).stdout
        found = re.search(r"^time ([0-9.]+)$", out, re.M)
        assert found is not None, out
        best = min(best, float(found.group(1)))
    return best


def test_communicator_arrays_are_communicators_of_their_own(tmp_path: Path) -> None:
    model = pj.build_model(PROGRAM, ["-O2"])
    about_comms = [d for d in model.diagnostics if "communicator" in d.message]
    assert not about_comms, [str(d) for d in about_comms]
    nodes = list(model.nodes())
    made = {
        n["args"]["newcomm"]: n for n in nodes if n.get("op") in ("MPI_Comm_split", "comm_assign")
    }
    assert {"grid[0]", "grid[1]", "levels[0]"} <= set(made)
    assert made["levels[0]"]["op"] == "comm_assign" and made["levels[0]"]["args"]["comm"] == "world"
    # The loop's split: from levels[nlev] into levels[nlev + 1] (the index a control variable).
    loop_split = [k for k in made if k.startswith("levels[") and k != "levels[0]"]
    assert len(loop_split) == 1 and "+ 1" in loop_split[0]
    used = {n["args"]["comm"] for n in nodes if n.get("op") in ("MPI_Allreduce", "MPI_Bcast")}
    assert "grid[d]" in used and any(c.startswith("levels[") for c in used)

    # Nothing here depends on data: np 1 measures the blocks without ranks sharing the cores.
    model.estimate(
        run=["./grid_levels", *ARGS], np=1, directory=tmp_path / "est", repeat=3, combine="min"
    )
    params = model.arguments(["./grid_levels", *ARGS])
    pred = pj.interpret(model, this_machine(), np=4, params=params, trace=True)
    assert pred.ok
    trace = pred.trace(4)
    members = {c.name: len(c.members) for c in trace.communicators}
    events = trace.to_pandas()
    ends = events[(events["kind"].astype(str) == "COLLECTIVE_END") & (events["rank"] == 0)]
    per_comm = Counter((str(r), str(c)) for r, c in zip(ends["region"], ends["comm"], strict=True))
    steps = int(ARGS[1])
    # Rank 0 is in row 0 (ranks 0, 1), column 0 (ranks 0, 2), levels of 4, 2 and 1 ranks.
    sizes: Counter[tuple[str, int]] = Counter()
    for (region, comm), count in per_comm.items():
        if region in ("MPI_Allreduce", "MPI_Bcast"):
            sizes[(region, members[comm])] += count
    assert sizes == {
        ("MPI_Allreduce", 2): 3 * steps,  # row, column, level 1
        ("MPI_Allreduce", 4): steps,  # level 0 = world
        ("MPI_Allreduce", 1): steps,  # level 2
        ("MPI_Bcast", 2): steps,  # levels[nlev / 2] = level 1
    }, per_comm
    # The ring in the row: rank 0 sends to its row's rank 1, which is world rank 1.
    sends = events[(events["rank"] == 0) & (events["kind"].astype(str) == "SEND")]
    assert set(sends["peer"]) == {1}

    if not os.environ.get("PARJAVA_TIMING_TESTS"):
        return  # a timing: on a quiet machine only (see test_recursive_prediction.py)
    program = tmp_path / "grid_levels"
    subprocess.run(["mpicc", "-O2", "-o", str(program), str(PROGRAM)], check=True)
    predicted = pred.region_time(np=4)
    measured = real_time(program, 4)
    assert abs(predicted - measured) / measured < 0.25, (predicted, measured, os.getloadavg())


def test_an_element_the_model_cannot_compute_is_a_warning_with_its_line(tmp_path: Path) -> None:
    """Through a pointer parameter or with an index read from data, an element is named world
    with a warning on its line; an array in a struct field is one like any other."""
    source = tmp_path / "opaque_comms.c"
    source.write_text(
        textwrap.dedent(
            """\
            #include <mpi.h>
            static void reduce(MPI_Comm *c, double *x) {
              MPI_Allreduce(MPI_IN_PLACE, x, 1, MPI_DOUBLE, MPI_SUM, c[1]);
            }
            int main(int argc, char **argv) {
              MPI_Init(&argc, &argv);
              int rank;
              MPI_Comm_rank(MPI_COMM_WORLD, &rank);
              MPI_Comm comms[2];
              double x[4] = {rank, 1, 0, 1};
              MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &comms[0]);
              MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
              MPI_Allreduce(MPI_IN_PLACE, x, 4, MPI_DOUBLE, MPI_SUM, comms[(int)x[3]]);
              reduce(comms, x);
              struct grid { int n; MPI_Comm axes[2]; } g;
              MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &g.axes[1]);
              MPI_Barrier(g.axes[1]);
              MPI_Finalize();
              return 0;
            }
            """
        )
    )
    model = pj.build_model(source, ["-O2"])
    warnings = {d.line: d.message for d in model.diagnostics if "communicator '" in d.message}
    assert set(warnings) == {3, 13}, warnings
    assert "'c' is a parameter" in warnings[3] and "uses world" in warnings[3]
    assert "its index depends on" in warnings[13] and "uses world" in warnings[13]
    # An array in a struct field is named after its record and field.
    nodes = list(model.nodes())
    made = [n["args"]["newcomm"] for n in nodes if n.get("op") == "MPI_Comm_split"]
    barrier = next(n for n in nodes if n.get("op") == "MPI_Barrier")
    assert made == ["comms[0]", "grid_axes[1]"] and barrier["args"]["comm"] == "grid_axes[1]"
