"""The PGAS patterns on a real OpenSHMEM run (examples/shmem_locks.c under the tracer): every PE
takes one global lock and holds it `HOLD_US`, so the others contend (P1), then runs barriers
and collectives (P4, P5, P9, ...). Checked against what the trace itself allows: a thread
cannot wait for a lock longer than its shmem_set_lock call lasted, and with four PEs holding the
lock 2 ms each some PE must wait at least one full hold."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import parjava as pj
from parjava.trace import EventKind

pytestmark = pytest.mark.mpi

PES = 4
ROUNDS = 5
HOLD_US = 2000
SOURCE = Path(__file__).resolve().parents[2] / "examples" / "shmem_locks.c"


@pytest.fixture(scope="module")
def shmem_trace(examples_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> pj.Trace:
    if not (examples_bin / "shmem_locks").exists():
        pytest.skip("OpenSHMEM example not built (no liboshmem)")
    out = tmp_path_factory.mktemp("shmem-scan") / "run"
    command = ["oshrun", "-np", str(PES), str(examples_bin / "shmem_locks")]
    command += ["-n", str(ROUNDS), "-w", str(HOLD_US)]
    return pj.trace(command, np=PES, output=out, timeout=180)


def _set_lock_line() -> int:
    lines = SOURCE.read_text().splitlines()
    return next(i + 2 for i, text in enumerate(lines) if "callsite: set-lock" in text)


def test_lock_contention_is_bounded_by_the_lock_calls(shmem_trace: pj.Trace) -> None:
    findings = pj.scan(shmem_trace, eps=0, patterns=["pgas"])
    p1 = findings.select("P1")
    assert len(p1) >= 1
    assert set(p1["line"].tolist()) == {_set_lock_line()}
    assert set(p1["call"].tolist()) == {"shmem_set_lock"}
    assert np.all(p1["peer_rank"] != p1["rank"])  # someone else held the lock
    # Each wait lies inside its shmem_set_lock call.
    ev = shmem_trace.events
    raw = findings.raw[findings.raw["pattern"] == p1["pattern"][0]]
    for event, start, idle in zip(raw["event"], raw["time"], raw["idle"]):
        enter = event - 1
        while ev.kind[enter] != EventKind.ENTER:
            enter -= 1
        leave = ev.match[enter]
        assert ev.time[enter] == start
        assert idle <= ev.time[leave] - ev.time[enter]
    # Four PEs holding the lock 2 ms each, one lock: at least one full hold was waited for.
    assert findings.total("P1") >= HOLD_US * 1e-6


def test_barriers_and_collectives_of_the_run(shmem_trace: pj.Trace) -> None:
    findings = pj.scan(shmem_trace, eps=0, patterns=["pgas"])
    codes = set(findings.array["code"].tolist())
    assert {"P1", "P4"} <= codes
    p4 = findings.select("P4")
    assert set(p4["call"].tolist()) <= {"shmem_barrier_all", "shmem_barrier"}
    # Per barrier instance, the last PE to arrive waits nothing: at most PES - 1 rows each.
    p4_id = next(p.id for p in pj.patterns() if p.code == "P4")
    instances = findings.raw[findings.raw["pattern"] == p4_id]["instance"]
    if len(instances):
        assert np.bincount(instances).max() <= PES - 1
    # Identical on a second scan.
    assert pj.scan(shmem_trace, eps=0, patterns=["pgas"]).raw.tobytes() == findings.raw.tobytes()
