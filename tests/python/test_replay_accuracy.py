"""Issue 14: a replay of a real traced run on the machine it ran on (netbench's description of
it) reproduces the run's time (tests/programs/replay/exchange.c under mpirun; the benchmark
with more cases and the reasons for the remaining error: benchmarks/replay_accuracy.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import parjava as pj

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from replay_accuracy import window


def test_replay_of_a_traced_imbalanced_exchange_reproduces_its_time(repo, tmp_path):
    """Rank 1 computes twice as long as rank 0, so rank 0 waits half of every iteration in the
    exchange: the replay rebuilds that waiting from the measured computation and the network
    model. A replay that lost it (rank 0 ending after its own computation) is 33 % short, one
    that counted the waiting as computation or the computation twice is far longer.

    The computation sleeps (`-z 1`) and each iteration is 160 ms, because this test runs on a
    2-core VM shared with builds: a busy loop gets a fraction of a core there, and a rank
    descheduled inside MPI stalls its partner for a scheduler time slice (8-20 ms measured at
    load 9 on a message that was already there), time the trace records inside MPI and that no
    network model contains (docs/replay.md, "How close a replay comes to the run"). Those
    stalls only lengthen the recorded run, so the best of two runs is kept."""
    binary = tmp_path / "exchange"
    source = repo / "tests" / "programs" / "replay" / "exchange.c"
    subprocess.run(["mpicc", "-O2", "-o", str(binary), str(source)], check=True)
    machine = pj.Machine.measure(np=2, quick=True)
    command = [str(binary), "-n", "6", "-c", "80000", "-i", "100", "-s", "1024", "-z", "1"]
    errors = []
    for attempt in range(2):
        trace = pj.trace(command, np=2, output=tmp_path / f"run-{attempt}", timeout=300)
        r = pj.replay(trace, machine)
        recorded, replayed = window(trace), window(r.trace)
        # 6 iterations of rank 1's 160 ms: the window cannot be shorter than its computation.
        assert recorded >= 0.95 * 6 * 0.160, recorded
        errors.append(replayed / recorded - 1.0)
        # Every rank's end, not only the run's: rank 0's end holds the rebuilt waiting.
        ends = r.end_times / r.original_end_times - 1.0
        assert np.all(ends <= 0.05), r.report()
        if abs(errors[-1]) <= 0.15 and np.all(np.abs(ends) <= 0.15):
            break
    assert min(errors, key=abs) == pytest.approx(0.0, abs=0.15), (errors, r.report())
    # The tolerance tells a right replay from a wrong one: without the waiting (every rank's
    # computation set to the mean, so nobody waits) the same trace comes out far outside it.
    balanced = pj.replay(trace, machine, balance=True)
    assert window(balanced.trace) / recorded - 1.0 < -0.2, balanced.report()


def _call_durations(trace, name: str) -> np.ndarray:
    """Seconds of every call of MPI function `name` in `trace`, all ranks."""
    names = [r.name for r in trace.regions]
    region = names.index(name)
    ev = trace.events
    out = []
    for loc in range(trace.location_count):
        idx = np.flatnonzero((ev.location == loc) & (ev.region == region))
        kinds = ev.kind[idx]
        enters = idx[kinds == int(pj.EventKind.ENTER)]
        leaves = idx[kinds == int(pj.EventKind.LEAVE)]
        out.extend((ev.time[leaves] - ev.time[enters]) * 1e-9)
    return np.asarray(out)


def test_call_overhead_does_not_count_a_large_allreduce_transfer_twice(repo, tmp_path):
    """`call_overhead="minimum"` keeps as local time what a call took beyond the network model's
    own time for it. A 512 KiB allreduce's shortest recorded call already holds its transfer:
    counting the whole of it as overhead replayed the call at recorded minimum + transfer
    (+30-37 % at np 2, benchmarks/replay_accuracy.md). Now an uncontended replayed call takes
    max(recorded minimum, network time): both figures come from the same trace and the same
    machine, so the check does not depend on how loaded the run was."""
    binary = tmp_path / "exchange"
    source = repo / "tests" / "programs" / "replay" / "exchange.c"
    subprocess.run(["mpicc", "-O2", "-o", str(binary), str(source)], check=True)
    command = [str(binary), "-n", "8", "-c", "2000", "-i", "0", "-s", "0", "-a", "65536", "-z", "1"]
    trace = pj.trace(command, np=2, output=tmp_path / "run", timeout=300)
    machine = pj.Machine.preset("shared-memory")
    recorded = _call_durations(trace, "MPI_Allreduce").min()
    # The network model's own time for the call: the replay without any local time, where the
    # ranks arrive together (the computation is equal and sleeps).
    bare = pj.replay(trace, machine, call_overhead="none")
    network = _call_durations(bare.trace, "MPI_Allreduce").min()
    assert network > 5e-6, network  # 512 KiB through shared memory is not free
    replayed = _call_durations(pj.replay(trace, machine).trace, "MPI_Allreduce").min()
    assert replayed == pytest.approx(max(recorded, network), rel=0.02, abs=2e-7), (
        recorded,
        network,
        replayed,
    )
    # The old rule's figure is outside that: the transfer counted twice.
    assert replayed < recorded + 0.5 * network, (recorded, network, replayed)
