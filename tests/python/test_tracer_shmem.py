"""OpenSHMEM under the tracer (seed 001's PGAS events): lock events with one lock id in every
PE despite ASLR, RMA collectives with their synchronisation levels, collective allocation,
puts and gets; and the trace survives Debian's OpenSHMEM crashing inside shmem_finalize."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from otf2_text import marker_line, read
from parjava import tracing

pytestmark = pytest.mark.mpi

EXAMPLES_SRC = Path(__file__).resolve().parents[2] / "examples"
PES = 4
ROUNDS = 5


@pytest.fixture(scope="module")
def shmem_run(examples_bin: Path, tmp_path_factory: pytest.TempPathFactory):
    if not (examples_bin / "shmem_locks").exists():
        pytest.skip("OpenSHMEM example not built (no liboshmem)")
    out = tmp_path_factory.mktemp("shmem")
    run = tracing.run_traced(
        ["oshrun", "-np", str(PES), str(examples_bin / "shmem_locks"), "-n", str(ROUNDS)],
        output=out,
    )
    return run, read(run.archive)


def test_run_completes_despite_the_runtime_crashing_in_finalize(shmem_run) -> None:
    run, archive = shmem_run
    assert f"counter {PES * ROUNDS} (expected {PES * ROUNDS})" in run.stdout
    if run.returncode != 0:
        assert any("finalize" in w for w in run.warnings)
    assert archive.stderr == ""
    for pe in range(PES):
        # Everything up to shmem_finalize was written before the runtime's own finalize.
        assert len(archive.enters("shmem_finalize", pe)) == 1
        assert len(archive.enters("shmem_barrier_all", pe)) == 8
    assert 'LOCATION_GROUP                         0  Name: "PE 0"' in archive.definitions


def test_lock_events_and_one_lock_id_for_all_pes(shmem_run) -> None:
    _, archive = shmem_run
    locks = {
        e.fields["Lock"]
        for k in ("RMA_REQUEST_LOCK", "RMA_ACQUIRE_LOCK", "RMA_RELEASE_LOCK")
        for e in archive.of(k)
    }
    assert locks == {"0"}, "the same symmetric lock variable must have one id in every PE"
    for pe in range(PES):
        requests = archive.of("RMA_REQUEST_LOCK", pe)
        acquires = archive.of("RMA_ACQUIRE_LOCK", pe)
        tries = archive.of("RMA_TRY_LOCK", pe)
        releases = archive.of("RMA_RELEASE_LOCK", pe)
        assert len(requests) == ROUNDS
        assert len(acquires) + len(tries) == ROUNDS + 1  # set_lock rounds + one test_lock
        assert len(releases) == len(acquires)
        assert all("Remote: UNDEFINED" in e.text for e in requests)
    # Mutual exclusion, seen in rank-0 time: holdings of the lock never overlap across PEs.
    holdings = []
    for pe in range(PES):
        acquires = [e.time for e in archive.of("RMA_ACQUIRE_LOCK", pe)]
        releases = [e.time for e in archive.of("RMA_RELEASE_LOCK", pe)]
        holdings += [(a, r, pe) for a, r in zip(acquires, releases)]
    holdings.sort()
    tolerance_ns = 50_000  # clock-offset error is below half a shared-memory round trip
    for (_, release, pe), (acquire, _, other) in zip(holdings, holdings[1:]):
        assert acquire + tolerance_ns >= release, f"PE {other} acquired before PE {pe} released"


def test_rma_collectives_carry_operation_root_and_sync_level(shmem_run) -> None:
    _, archive = shmem_run
    assert len(archive.of("RMA_COLLECTIVE_BEGIN")) == len(archive.of("RMA_COLLECTIVE_END"))
    per_pe = Counter((e.location, e.fields["Operation"]) for e in archive.of("RMA_COLLECTIVE_END"))
    for pe in range(PES):
        expected_barriers = 8 + (1 if pe % 2 == 0 else 0)  # evens also sync their active set
        assert per_pe[(pe, "BARRIER")] == expected_barriers
        assert per_pe[(pe, "BCAST")] == 1
        assert per_pe[(pe, "ALLOCATE")] == 2 and per_pe[(pe, "DEALLOCATE")] == 2
        assert per_pe[(pe, "ALLGATHER")] == 1 and per_pe[(pe, "ALLGATHERV")] == 1
        assert per_pe[(pe, "ALLREDUCE")] == 2
    for e in archive.of("RMA_COLLECTIVE_END"):
        level = e.fields["Level of Synchronicity"]
        if e.fields["Operation"] in ("BARRIER", "ALLOCATE", "DEALLOCATE"):
            assert level == "{PROCESS, MEMORY}"
        else:
            assert level == "{MEMORY}"
    broadcasts = [e for e in archive.of("RMA_COLLECTIVE_END") if e.fields["Operation"] == "BCAST"]
    assert all(e.fields["Root"].startswith("0") for e in broadcasts)
    assert [e.number("Sent") for e in broadcasts if e.location == 0] == [8]
    # The even PEs' active set is its own communicator and window.
    assert re.search(r'RMA_WIN .*"shmem SHMEM active set 0:1:2', archive.definitions)
    assert re.search(r"GROUP .*active set 0:1:2.* 2 Members: 0 .*, 2 ", archive.definitions)


def test_puts_gets_and_call_sites(shmem_run) -> None:
    _, archive = shmem_run
    for pe in range(PES):
        puts = archive.of("RMA_PUT", pe)
        gets = archive.of("RMA_GET", pe)
        assert len(puts) == ROUNDS and len(gets) == ROUNDS
        assert all("Remote: 0" in e.text and "Bytes: 8" in e.text for e in puts + gets)
        assert len(archive.of("RMA_OP_COMPLETE_BLOCKING", pe)) == 2 * ROUNDS
    source = EXAMPLES_SRC / "shmem_locks.c"
    for marker, region in [
        ("set-lock", "shmem_set_lock"),
        ("clear-lock", "shmem_clear_lock"),
        ("broadcast", "shmem_broadcast64"),
        ("sum-to-all", "shmem_int_sum_to_all"),
    ]:
        line = marker_line(source, marker)
        sites = {e.callsite for e in archive.enters(region)}
        assert all(s is not None and s[0].endswith("shmem_locks.c") for s in sites)
        lines = {s[1] for s in sites if s}
        # shmem_clear_lock is also called once after a successful shmem_test_lock.
        assert lines == {line} or (region == "shmem_clear_lock" and line in lines), sites
