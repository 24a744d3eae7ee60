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
