"""The scanner on the real Score-P archives of tests/data/otf2: no errors, identical findings on
two runs, and Late Sender / N x N values checked against an independent NumPy computation of
Scalasca's formulas on the trace columns."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import numpy as np
import pytest

import parjava as pj
from parjava.trace import EventKind

DATA = Path(__file__).resolve().parents[1] / "data" / "otf2"
ARCHIVES = sorted(p.parent.name for p in DATA.glob("*/traces.otf2"))


@pytest.fixture(scope="module", params=ARCHIVES)
def trace(request: pytest.FixtureRequest) -> pj.Trace:
    return pj.Trace.open(DATA / request.param / "traces.otf2")


def test_every_archive_scans_identically_twice(trace: pj.Trace) -> None:
    first = pj.scan(trace, eps=0)
    second = pj.scan(trace, eps=0)
    assert len(first) == len(second)
    assert first.raw.tobytes() == second.raw.tobytes()
    assert first.diagnoses == second.diagnoses
    # Every report renders.
    assert "parjava scan of" in first.report()
    assert first.to_html().startswith("<!DOCTYPE html>")
    assert first.to_csv().splitlines()[0].startswith("pattern,code,name")
    assert '"findings"' in first.to_json()
    assert np.all(first.array["idle"][first.array["pattern"] != "early_prefix_reduction"] >= 0)


def test_csv_written_a_block_at_a_time_is_the_text(
    trace: pj.Trace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """write_csv (the CLI's, which holds one block of rows, not the text) writes to_csv's
    bytes, across block boundaries (blocks of 3 rows here) and to an open file too."""
    findings = pj.scan(trace, eps=0)
    text = findings.to_csv()
    monkeypatch.setattr(sys.modules["parjava.scan"], "_CSV_BLOCK", 3)
    findings.write_csv(tmp_path / "scan.csv")
    assert (tmp_path / "scan.csv").read_bytes() == text.encode()
    buffer = io.StringIO()
    findings.write_csv(buffer)
    assert buffer.getvalue() == text


def test_findings_refer_to_the_trace(trace: pj.Trace) -> None:
    findings = pj.scan(trace, eps=0)
    raw = findings.raw
    if len(raw) == 0:
        pytest.skip("no occurrence in this archive")
    n_events = len(trace)
    assert np.all((raw["event"] >= 0) & (raw["event"] < n_events))
    # The anchor event is on the location the time was lost on.
    assert np.array_equal(trace.events.location[raw["event"]], raw["location"])
    assert np.all(np.diff(findings.array["time"]) >= 0)  # ordered by time


def _call_enter(trace: pj.Trace, event: int) -> int:
    kind = trace.events.kind
    match = trace.events.match
    i = event - 1
    while kind[i] != EventKind.ENTER or (match[i] != -1 and match[i] < event):
        i = match[i] - 1 if kind[i] == EventKind.LEAVE and match[i] >= 0 else i - 1
    return i


def test_late_sender_matches_an_independent_computation() -> None:
    """pipit's ping-pong: w = min(E(Sc), L(Rc)) - E(Rc) at every MPI_Recv (anchors §2.1)."""
    trace = pj.Trace.open(DATA / "pipit-ping-pong" / "traces.otf2")
    ev = trace.events
    time = ev.time.astype(np.int64)
    expected = {}
    for r in np.flatnonzero(ev.kind == EventKind.RECV):
        s = int(ev.match[r])
        rc = _call_enter(trace, int(r))
        sc = _call_enter(trace, s)
        leave = int(ev.match[rc])
        w = min(time[sc], time[leave]) - time[rc]
        if w > 0:
            expected[int(r)] = int(w)
    assert expected, "the ping-pong has late senders"
    findings = pj.scan(trace, eps=0, patterns=["late_sender"])
    got = {int(e): int(w) for e, w in zip(findings.raw["event"], findings.raw["idle"])}
    assert got == expected
    assert findings.total("late_sender") == pytest.approx(sum(expected.values()) * 1e-9)
    # ParJava's late standard send measures the same waiting here (blocking MPI_Send/MPI_Recv).
    b2 = pj.scan(trace, eps=0, patterns=["B2"])
    assert b2.total() == pytest.approx(findings.total(), rel=1e-9)


def test_wait_at_nxn_matches_an_independent_computation() -> None:
    """sst-macro's MPI coverage run: Wait at N x N on fully overlapping instances (anchors §3.3)."""
    trace = pj.Trace.open(DATA / "sstmacro-mpi-coverage" / "traces.otf2")
    ev = trace.events
    coll = trace.collectives
    members = trace.collective_members
    names = {r.index: r.function for r in trace.regions}
    nxn = {"MPI_Allgather", "MPI_Allgatherv", "MPI_Allreduce", "MPI_Alltoall"}
    expected: dict[tuple[int, int], int] = {}
    for k in range(len(coll["comm"])):
        first, count = int(coll["first_member"][k]), int(coll["member_count"][k])
        if count < 2 or count < int(coll["expected"][k]):
            continue
        ends = members[first : first + count]
        if names.get(int(ev.region[ends[0]])) not in nxn:
            continue
        begins = ev.time[ev.match[ends]].astype(np.int64)
        finish = ev.time[ends].astype(np.int64)
        payload = (ev.bytes[ends] > 0) | (ev.aux[ends] > 0)
        if not payload.all():
            continue
        latest, earliest = begins.max(), finish.min()
        if earliest <= latest:
            continue  # partial overlap: not checked here
        for end, b, x in zip(ends, begins, finish):
            w = min(latest, x) - b
            if w > 0:
                expected[(k, int(end))] = int(w)
    assert expected, "the coverage run has N x N waiting"
    findings = pj.scan(trace, eps=0, patterns=["wait_at_nxn"])
    raw = findings.raw
    got = {(int(i), int(e)): int(w) for i, e, w in zip(raw["instance"], raw["event"], raw["idle"])}
    for key, w in expected.items():
        assert got[key] == w


def test_rescan_reuses_the_trace_and_applies_eps() -> None:
    trace = pj.Trace.open(DATA / "sstmacro-mpi-coverage" / "traces.otf2")
    everything = pj.scan(trace, eps=0)
    big = everything.rescan(eps=1e-4)
    assert big.trace is everything.trace
    assert len(big) < len(everything)
    assert big.array["idle"].min() >= 1e-4 or big.array["idle"].size == 0
    # The same occurrences, minus those under eps (suspected/negative terms aside).
    kept = everything.array[np.abs(everything.array["idle"]) >= 1e-4]
    assert len(kept) == len(big)
