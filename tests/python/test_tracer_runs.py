"""Real runs of the example programs under the tracer, checked through otf2-print.

Each archive is read by the OTF2 library's own `otf2-print`, independently of parjava's reader:
what it records must be what the program did (calls per function and rank, complete message
and request matching, collectives on every member, call sites at the right source lines).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from pathlib import Path

import pytest

import parjava
from otf2_text import Archive, Event, marker_line, read
from parjava import tracing

pytestmark = pytest.mark.mpi

EXAMPLES_SRC = Path(__file__).resolve().parents[2] / "examples"

# Seed 004 App. 2 (notes 004 §5): the 46 MPI functions of categories 1-6.
SEED_004_FUNCTIONS = """MPI_Barrier MPI_Bcast MPI_Gather MPI_Gatherv MPI_Scatter MPI_Scatterv
MPI_Allgather MPI_Allgatherv MPI_Alltoall MPI_Alltoallv MPI_Reduce MPI_Allreduce
MPI_Reduce_scatter MPI_Scan MPI_Send MPI_Bsend MPI_Ssend MPI_Rsend MPI_Isend MPI_Ibsend
MPI_Issend MPI_Irsend MPI_Recv MPI_Wait MPI_Waitany MPI_Waitall MPI_Waitsome MPI_Probe
MPI_Sendrecv MPI_Sendrecv_replace MPI_Irecv MPI_Test MPI_Testany MPI_Testall MPI_Testsome
MPI_Iprobe MPI_Request_free MPI_Cancel MPI_Test_cancelled MPI_Send_init MPI_Bsend_init
MPI_Ssend_init MPI_Rsend_init MPI_Recv_init MPI_Start MPI_Startall""".split()


def _location(value: str) -> int:
    """World location from an otf2-print peer field such as `1 ("rank 1" <1>)`."""
    return int(re.findall(r"<(\d+)>", value)[-1])


def _comm(event: Event) -> int:
    return _location(event.fields["Communicator"])


def assert_complete_matching(archive: Archive, freed: int = 0) -> None:
    """Every send has a receive with the same envelope and size, every request completes.

    `freed`: requests per location the program released with MPI_Request_free while active
    (they have no completion event).
    """
    sends: Counter[tuple[int, int, int, int, int]] = Counter()
    receives: Counter[tuple[int, int, int, int, int]] = Counter()
    for e in archive.events:
        if e.kind in ("MPI_SEND", "MPI_ISEND"):
            key = (_comm(e), e.location, _location(e.fields["Receiver"]), e.number("Tag"))
            sends[(*key, e.number("Length"))] += 1
        elif e.kind in ("MPI_RECV", "MPI_IRECV"):
            key = (_comm(e), _location(e.fields["Sender"]), e.location, e.number("Tag"))
            receives[(*key, e.number("Length"))] += 1
    assert sends, "the run sent no messages"
    assert sends == receives, f"unmatched: sends-receives {sends - receives}, " + (
        f"receives-sends {receives - sends}"
    )
    posted: dict[int, set[int]] = defaultdict(set)
    completed: dict[int, set[int]] = defaultdict(set)
    for e in archive.events:
        if e.kind in ("MPI_ISEND", "MPI_IRECV_REQUEST"):
            posted[e.location].add(e.number("Request"))
        elif e.kind in ("MPI_ISEND_COMPLETE", "MPI_IRECV", "MPI_REQUEST_CANCELLED"):
            completed[e.location].add(e.number("Request"))
    assert set(posted) == set(completed)
    for location, ids in posted.items():
        assert completed[location] <= ids
        assert len(ids - completed[location]) == freed, (location, ids - completed[location])


def assert_collectives_complete(archive: Archive, world: int) -> None:
    """Each collective operation ends on every member of its communicator equally often."""
    members: dict[int, set[int]] = defaultdict(set)
    per_location: Counter[tuple[int, str, int]] = Counter()
    for e in archive.of("MPI_COLLECTIVE_END"):
        comm = _comm(e)
        members[comm].add(e.location)
        per_location[(comm, e.fields["Operation"], e.location)] += 1
    assert len(archive.of("MPI_COLLECTIVE_BEGIN")) == len(archive.of("MPI_COLLECTIVE_END"))
    for (comm, op, _), n in per_location.items():
        counts = {per_location[(comm, op, loc)] for loc in members[comm]}
        assert counts == {n}, f"{op} on communicator {comm} ended unequally: {counts}"
    assert any(m == set(range(world)) for m in members.values()), "no collective spans all ranks"


def assert_callsite(archive: Archive, source: str, marker: str, region: str, rank: int) -> None:
    expected = marker_line(EXAMPLES_SRC / source, marker)
    sites = {e.callsite for e in archive.enters(region, rank)}
    assert (str(EXAMPLES_SRC / source), expected) in sites or any(
        s is not None and s[0].endswith(source) and s[1] == expected for s in sites
    ), f"{region} on rank {rank}: expected {source}:{expected}, found {sites}"


@pytest.fixture(scope="module")
def coverage(examples_bin: Path, tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("coverage")
    run = tracing.run_traced([str(examples_bin / "mpi_coverage")], np=4, output=out)
    return run, read(run.archive)


def test_coverage_counts_every_call_of_every_function(coverage) -> None:
    run, archive = coverage
    truth = {}
    for line in run.stdout.splitlines():
        _, rank, name, count = line.split()
        truth[(int(rank), name)] = int(count)
    assert len(truth) == 4 * 56
    counts = archive.enter_counts()
    for (rank, name), expected in truth.items():
        assert counts[(rank, name)] == expected, f"rank {rank} {name}"
    for rank in range(4):
        assert counts[(rank, "MPI_Init")] == 1 and counts[(rank, "MPI_Finalize")] == 1
    recorded = {name for (_, name), n in counts.items() if n > 0}
    assert set(SEED_004_FUNCTIONS) <= recorded, set(SEED_004_FUNCTIONS) - recorded
    assert len(SEED_004_FUNCTIONS) == 46
    assert archive.stderr == "", "otf2-print must read the archive without warnings"


def test_coverage_matching_is_complete(coverage) -> None:
    _, archive = coverage
    assert_complete_matching(archive, freed=1)  # one Isend is released with MPI_Request_free
    assert_collectives_complete(archive, 4)
    # The cancelled receive is reported as cancelled, not as a message.
    assert len(archive.of("MPI_REQUEST_CANCELLED")) == 4
    # Persistent requests post every start: 8 starts of sends and receives per rank pair.
    assert len(archive.of("MPI_IRECV_REQUEST")) >= 4 * 4


def test_coverage_defines_communicators_with_members(coverage) -> None:
    _, archive = coverage
    comms = re.findall(r'^COMM\s+\d+\s+Name: "([^"]+)"', archive.definitions, re.M)
    assert comms[:2] == ["MPI_COMM_WORLD", "MPI_COMM_SELF"]
    made = [c for c in comms[2:] if "(" in c]
    # dup, split (two: even and odd ranks), create (evens), cart.
    assert sorted(c.split("(")[1].rstrip(")") for c in made) == [
        "MPI_Cart_create",
        "MPI_Comm_create",
        "MPI_Comm_dup",
        "MPI_Comm_split",
        "MPI_Comm_split",
    ]
    groups = re.findall(
        r"^GROUP .*Type: COMM_GROUP.*?(\d+) Members: (.*)$", archive.definitions, re.M
    )
    member_lists = sorted(tuple(re.findall(r"(\d+) \(", m)) for _, m in groups)
    assert ("0", "2") in member_lists and ("1", "3") in member_lists  # the split halves
    properties = archive.definitions
    assert "PARJAVA::TRACER_OVERHEAD_NS" in properties
    assert re.search(r"Property value\s+linear", properties)


def test_pingpong_late_sender_callsites_and_timing(examples_bin: Path, tmp_path: Path) -> None:
    run = tracing.run_traced(
        [str(examples_bin / "pingpong"), "-n", "4", "-d", "20"], np=2, output=tmp_path
    )
    archive = read(run.archive)
    for marker, region, rank in [
        ("ping-send", "MPI_Send", 0),
        ("ping-recv", "MPI_Recv", 0),
        ("pong-recv", "MPI_Recv", 1),
        ("pong-send", "MPI_Send", 1),
        ("final-barrier", "MPI_Barrier", 1),
    ]:
        assert_callsite(archive, "pingpong.c", marker, region, rank)
    assert_complete_matching(archive)
    # Rank 0 computes 20 ms before each send while rank 1 waits in MPI_Recv (late sender):
    # the receive on rank 1 lasts about that long, in clock-corrected time.
    enters = [e.time for e in archive.enters("MPI_Recv", 1)]
    leaves = [e.time for e in archive.of("LEAVE", 1) if e.region == "MPI_Recv"]
    waits = [(b - a) / 1e6 for a, b in zip(enters, leaves)]
    assert len(waits) == 4
    assert all(15.0 < w < 200.0 for w in waits[1:]), waits
    sends = archive.of("MPI_SEND", 0)
    receives = archive.of("MPI_RECV", 1)
    for send, recv in zip(sends, receives):
        assert recv.time >= send.time, "a message cannot arrive before it was sent"


def test_stencil_halo_exchange_and_intervals(examples_bin: Path, tmp_path: Path) -> None:
    run = tracing.run_traced(
        [str(examples_bin / "stencil2d"), "-n", "16", "-i", "6", "-r", "3"], np=4, output=tmp_path
    )
    archive = read(run.archive)
    assert_complete_matching(archive)
    assert_collectives_complete(archive, 4)
    for rank in range(4):
        assert len(archive.enters("MPI_Irecv", rank)) == 4 * 6
        assert len(archive.enters("MPI_Waitall", rank)) == 6
        assert len(archive.enters("MPI_Allreduce", rank)) == 2
        assert len(archive.enters("iteration", rank)) == 6
        assert len(archive.enters("halo exchange", rank)) == 6
        # On a 2 x 2 grid every rank has two neighbours: two messages in, two out.
        assert len(archive.of("MPI_ISEND", rank)) == 2 * 6
        assert len(archive.of("MPI_IRECV", rank)) == 2 * 6
    for marker, region in [
        ("halo-irecv", "MPI_Irecv"),
        ("halo-isend", "MPI_Isend"),
        ("halo-waitall", "MPI_Waitall"),
        ("residual-allreduce", "MPI_Allreduce"),
        ("cart-create", "MPI_Cart_create"),
        ("comm-free", "MPI_Comm_free"),
    ]:
        assert_callsite(archive, "stencil2d.cpp", marker, region, 3)
    # Interval regions: canonical name parjava_interval:<id>, the marker's file and line.
    source = (EXAMPLES_SRC / "stencil2d.cpp").read_text().splitlines()
    begin = 1 + next(i for i, t in enumerate(source) if "begin(kIterationInterval" in t)
    assert re.search(
        r'REGION\s+\d+\s+Name: "iteration".*"parjava_interval:1".*Role: CODE.*'
        rf'Paradigm: "?USER.*File: "[^"]*stencil2d.cpp" <\d+>, Begin: {begin},',
        archive.definitions,
    )
    assert {e.callsite[1] for e in archive.enters("iteration") if e.callsite} == {begin}


def test_master_worker_any_source_receives_name_the_actual_sender(
    examples_bin: Path, tmp_path: Path
) -> None:
    run = tracing.run_traced(
        [str(examples_bin / "master_worker"), "-t", "12", "-w", "200"], np=4, output=tmp_path
    )
    archive = read(run.archive)
    assert_complete_matching(archive)
    results = [e for e in archive.of("MPI_RECV", 0) if e.number("Tag") == 3]
    assert len(results) == 12
    by_worker = Counter(_location(e.fields["Sender"]) for e in results)
    sent = {w: sum(1 for e in archive.of("MPI_SEND", w)) for w in (1, 2, 3)}
    assert by_worker == sent
    assert_callsite(archive, "master_worker.c", "master-recv-any", "MPI_Recv", 0)


def test_send_modes_with_delayed_sender(examples_bin: Path, tmp_path: Path) -> None:
    delay_ms = 50
    run = tracing.run_traced(
        [str(examples_bin / "send_modes"), "-n", "3", "-d", str(delay_ms)],
        np=2,
        output=tmp_path,
    )
    archive = read(run.archive)
    assert_complete_matching(archive)
    for region in ("MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend"):
        assert len(archive.enters(region, 0)) == 3
    assert len(archive.enters("MPI_Recv", 1)) == 9
    for marker, region in [
        ("send-standard", "MPI_Send"),
        ("send-synchronous", "MPI_Ssend"),
        ("send-buffered", "MPI_Bsend"),
        ("send-ready", "MPI_Rsend"),
    ]:
        assert_callsite(archive, "send_modes.c", marker, region, 0)
    # The standard-mode receive waits for the sender's computation (late sender). How long
    # depends on when the receiver got the core on a busy machine, so the trace is checked
    # against itself: the sender computed the full delay before each send after the first, and
    # each receive ends only after its send started (times corrected to rank 0's clock), so its
    # recorded wait covers the whole time the sender was late.
    clock_tolerance_ns = 1_000_000
    sends = archive.enters("MPI_Send", 0)  # rank 0's only standard sends, one per iteration
    sender_leaves = archive.of("LEAVE", 0)
    for send in sends[1:]:
        computed_from = max(e.time for e in sender_leaves if e.time <= send.time)
        assert send.time - computed_from >= delay_ms * 1e6 * 0.999, (send, computed_from)
    line = marker_line(EXAMPLES_SRC / "send_modes.c", "recv-standard")
    enters = [e for e in archive.enters("MPI_Recv", 1) if e.callsite and e.callsite[1] == line]
    leaves = archive.of("LEAVE", 1)
    assert len(enters) == 3
    waits = []
    for send, enter in zip(sends, enters):
        leave = next(e for e in leaves if e.time >= enter.time and e.region == "MPI_Recv")
        assert leave.time >= send.time - clock_tolerance_ns, (enter, leave, send)
        waits.append((leave.time - enter.time) / 1e6)
    # The receiver posts its receive within milliseconds of the previous exchange while the
    # sender computes for 50 ms, so the late sender shows in at least one iteration even when
    # the receiver is descheduled for a scheduler period or two.
    assert max(waits) > delay_ms / 2, waits


def test_include_dir_serves_the_interval_header() -> None:
    header = parjava.include_dir() / "parjava" / "interval.h"
    assert header.exists()
    assert "parjava_interval_begin" in header.read_text()
