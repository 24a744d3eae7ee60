"""Ranks and sizes in communicators other than world (issue 12, seen in miniAMR and the ParRes
Kernels): MPI_Comm_rank / MPI_Comm_size of communicators made by MPI_Comm_split,
MPI_Cart_create, a copy of an array element and MPI_Comm_create of groups (MPI_Comm_group +
MPI_Group_incl / MPI_Group_range_incl), and a function called with two communicators. The model
of tests/programs/subcomms/subcomm_ranks.c, estimated at np 1, is interpreted at np 2 and 4;
every rank's sources of messages (world ranks, in program order) and its collectives per
communicator size must be the ones a real `mpirun` run reports. A communicator or group the
model cannot follow is a warning on its line and a warning of every prediction that uses it."""

from __future__ import annotations

import json
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

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "subcomms" / "subcomm_ranks.c"
ARGS = ["20000", "3", "64"]


def real_sources(binary: Path, np_: int) -> dict[int, list[int]]:
    """Per rank, the world ranks it received from in one step of a real run."""
    mpirun = shutil.which("mpirun")
    assert mpirun is not None
    out = subprocess.run(
        [mpirun, "--oversubscribe", "-np", str(np_), str(binary), *ARGS],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    found = {
        int(m.group(1)): [int(x) for x in m.group(2).split()]
        for m in re.finditer(r"^from (\d+):(.*)$", out, re.M)
    }
    assert len(found) == np_, out
    return found


def test_ranks_in_subcommunicators_follow_mpi(tmp_path: Path) -> None:
    model = pj.build_model(PROGRAM, ["-O2"])
    about_comms = [
        str(d) for d in model.warnings() if "communicator" in d.message or "group" in d.message
    ]
    assert not about_comms, about_comms
    nodes = list(model.nodes())
    queries = {
        (n["op"], n["args"]["comm"])
        for n in nodes
        if n.get("op") in ("MPI_Comm_rank", "MPI_Comm_size") and "approximate" not in n
    }
    # Every query the loops and peers read is an operation of its communicator.
    assert {
        ("MPI_Comm_rank", "row"),
        ("MPI_Comm_size", "row"),
        ("MPI_Comm_rank", "line"),
        ("MPI_Comm_size", "half"),
        ("MPI_Comm_rank", "stride"),
        ("MPI_Comm_size", "low"),
    } <= queries, queries
    made = {n["args"]["newcomm"]: n for n in nodes if "newcomm" in n.get("args", {})}
    assert made["half"]["op"] == "comm_assign" and made["half"]["args"]["comm"] == "halves[k]"
    assert made["stride"]["op"] == made["low"]["op"] == "MPI_Comm_create"
    assert made["stride_group"]["op"] == "MPI_Group_incl"
    assert "peer" in made["stride_group"]["args"]["rank"]
    assert made["low_group"]["args"]["rank"] == "ranges_0_0 + peer * ranges_0_2", made["low_group"]
    # ring(comm) is called with the row and with the column: its parameter is set per call.
    ring_comm = [
        n for n in nodes if n.get("op") == "comm_assign" and "ring" in n["args"]["newcomm"]
    ]
    assert {n["args"]["comm"] for n in ring_comm} == {"row", "col"}

    model.estimate(run=["./subcomm_ranks", *ARGS], np=1, directory=tmp_path / "est")
    binary = tmp_path / "subcomm_ranks"
    subprocess.run(["mpicc", "-O2", "-o", str(binary), str(PROGRAM)], check=True)
    params = model.arguments(["./subcomm_ranks", *ARGS])
    steps = int(ARGS[1])
    for np_ in (2, 4):
        pred = pj.interpret(
            model, pj.Machine.preset("shared-memory"), np=np_, params=params, trace=True
        )
        assert pred.ok, pred.warnings
        assert not [w for w in pred.warnings if "approximate" in w], pred.warnings
        events = pred.trace(np_).to_pandas()
        recvs = events[events["kind"].astype(str) == "RECV"]
        expected = real_sources(binary, np_)
        for rank, sources in expected.items():
            model_sources = [int(p) for p in recvs[recvs["rank"] == rank]["peer"]]
            assert model_sources == sources * steps, (np_, rank, model_sources, sources)
        # Collectives per communicator size on rank 0: a broadcast per row member, an
        # allreduce per member of its half and of the lower half.
        members = {c.name: len(c.members) for c in pred.trace(np_).communicators}
        ends = events[(events["kind"].astype(str) == "COLLECTIVE_END") & (events["rank"] == 0)]
        sizes = Counter(
            (str(r), members[str(c)]) for r, c in zip(ends["region"], ends["comm"], strict=True)
        )
        px = 2
        half = np_ // 2
        assert sizes[("MPI_Bcast", px)] == px * steps, sizes
        assert sizes[("MPI_Allreduce", half)] == 2 * half * steps, sizes


def test_what_the_model_cannot_follow_is_said_on_its_line_and_in_predictions(
    tmp_path: Path,
) -> None:
    """A group of ranks in a heap array, a group the model never makes (MPI_Group_excl) and a
    communicator variable given two communicators: warnings naming the line, and the
    predictions that run those calls say they are approximate."""
    source = tmp_path / "opaque_groups.c"
    source.write_text(
        textwrap.dedent(
            """\
            #include <mpi.h>
            #include <stdlib.h>
            int main(int argc, char **argv) {
              MPI_Init(&argc, &argv);
              int rank, size;
              MPI_Comm_rank(MPI_COMM_WORLD, &rank);
              MPI_Comm_size(MPI_COMM_WORLD, &size);
              MPI_Group world, evens, rest;
              MPI_Comm_group(MPI_COMM_WORLD, &world);
              int *ranks = malloc(sizeof(int) * (size_t)size);
              for (int i = 0; i < size; i++) ranks[i] = i;
              MPI_Group_incl(world, (size + 1) / 2, ranks, &evens);
              MPI_Comm ev;
              MPI_Comm_create(MPI_COMM_WORLD, evens, &ev);
              MPI_Group_excl(world, 1, ranks, &rest);
              MPI_Comm others;
              MPI_Comm_create(MPI_COMM_WORLD, rest, &others);
              MPI_Comm c = MPI_COMM_WORLD;
              MPI_Comm row;
              MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &row);
              if (argc > 5) c = row;
              int r;
              MPI_Comm_rank(c, &r);
              MPI_Barrier(MPI_COMM_WORLD);
              MPI_Finalize();
              free(ranks);
              return 0;
            }
            """
        )
    )
    model = pj.build_model(source, ["-O2"])
    warnings = {d.line: d.message for d in model.warnings()}
    assert "MPI_Group_incl" in warnings.get(12, ""), warnings
    assert "'ranks' is not a small array" in warnings[12]
    assert "group 'rest'" in warnings.get(17, ""), warnings
    assert "'c' is assigned 'row' at line 21 and 'world' elsewhere" in warnings.get(21, ""), (
        warnings
    )
    pred = pj.interpret(model, pj.Machine.preset("shared-memory"), np=2)
    approximate = [w for w in pred.warnings if "approximate" in w]
    lines = sorted(
        int(m.group(1)) for w in approximate for m in [re.search(r"\.c:(\d+)\)", w)] if m
    )
    assert lines == [12, 17, 23], pred.warnings


def group_model(members: str, count: str = "size / 2") -> pj.Model:
    """World's group, a group of `count` members (`members`: rank of member `peer`), its
    communicator, the rank and size there, and a ring on it for the members."""
    doc = {
        "format": "parjava-model",
        "version": 1,
        "name": "groups",
        "functions": [{"name": "main", "params": [], "body": 1}],
        "nodes": [
            {"id": 1, "kind": "seq", "children": [2, 3, 4, 5, 6, 7]},
            {"id": 2, "kind": "cfc", "op": "comm_assign", "args": {"newcomm": "wg"}},
            {
                "id": 3,
                "kind": "cfc",
                "op": "MPI_Group_incl",
                "args": {"comm": "wg", "count": count, "rank": members, "newcomm": "g"},
            },
            {
                "id": 4,
                "kind": "cfc",
                "op": "MPI_Comm_create",
                "args": {"group": "g", "newcomm": "c"},
            },
            {"id": 5, "kind": "cb", "assign": [["r", "-1"], ["s", "0"]]},
            {"id": 6, "kind": "if", "cond": "rank % 2 == 1", "children": [8]},
            {"id": 8, "kind": "seq", "children": [9, 10, 11]},
            {"id": 9, "kind": "cfc", "op": "MPI_Comm_rank", "args": {"comm": "c", "rank": "r"}},
            {"id": 10, "kind": "cfc", "op": "MPI_Comm_size", "args": {"comm": "c", "size": "s"}},
            {
                "id": 11,
                "kind": "cfc",
                "op": "MPI_Sendrecv",
                "args": {
                    "comm": "c",
                    "dest": "(r + 1) % s",
                    "sendbytes": "8 * (r + 1)",
                    "source": "(r + s - 1) % s",
                },
            },
            {"id": 7, "kind": "cfc", "op": "MPI_Barrier"},
        ],
    }
    return pj.Model.from_json(json.dumps(doc))


def test_groups_and_created_communicators_in_a_written_model() -> None:
    """Odd ranks in reverse order (member peer is world rank size - 1 - 2 * peer): at np 6 the
    communicator is 5, 3, 1, so world rank 5 is its rank 0 and sends 8 bytes to world rank 3."""
    model = group_model("size - 1 - 2 * peer")
    pred = pj.interpret(model, pj.Machine.preset("shared-memory"), np=6, trace=True)
    assert pred.ok, pred.warnings
    events = pred.trace(6).to_pandas()
    sends = events[events["kind"].astype(str) == "SEND"]
    got = {
        (int(r), int(p), int(b))
        for r, p, b in zip(sends["rank"], sends["peer"], sends["bytes"], strict=True)
    }
    assert got == {(5, 3, 8), (3, 1, 16), (1, 5, 24)}, got
    created = [c for c in pred.trace(6).communicators if c.name == "c"]
    assert [list(c.members) for c in created] == [[5, 3, 1]]


@pytest.mark.parametrize(
    ("members", "count", "message"),
    [
        ("1", "size / 2", "listed twice"),
        ("size + peer", "size / 2", "outside the 4 processes"),
        ("rank == 0 ? peer : peer + 1", "2", "pass a group of 2"),
    ],
)
def test_wrong_groups_are_errors_that_say_why(members: str, count: str, message: str) -> None:
    """A rank listed twice or outside the base is an error; so is a group whose members do not
    all pass it to MPI_Comm_create (rank 0 passes {0, 1}, rank 1 passes {1, 2})."""
    with pytest.raises(pj.ModelError, match=message):
        pj.interpret(group_model(members, count), pj.Machine.preset("shared-memory"), np=4)
