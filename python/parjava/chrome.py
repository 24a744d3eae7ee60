"""Chrome / Perfetto trace-event JSON export of any :class:`parjava.Trace` (issue 14 item 6).

``parjava.chrome.write(trace, "run.json")`` (or ``trace.to_chrome_trace("run.json")``)
writes the Trace Event Format that https://ui.perfetto.dev and chrome://tracing open: each
region instance (an MPI call, a user region, an interval) is a complete event (``"ph": "X"``)
on its process (``pid`` = rank) and thread (``tid``), each message a flow arrow from the send
to the receive, and the critical path, when given, a row of its own. It works the same for a
real, a model and a replayed trace. Times are microseconds from the trace's origin.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

from ._trace_data import EventKind, TraceData

#: The pid of the row that shows a critical path.
PATH_PID = 1_000_000


def _location_ids(trace: TraceData) -> tuple[np.ndarray, np.ndarray, list[dict[str, Any]]]:
    """Per location: pid, tid, and the metadata events that name them."""
    pids = []
    tids = []
    meta: list[dict[str, Any]] = []
    named = set()
    for loc in trace.locations:
        pid = loc.rank if loc.rank is not None else 100_000 + (loc.group or 0)
        tid = loc.thread if loc.rank is not None else loc.index
        pids.append(pid)
        tids.append(tid)
        if pid not in named:
            named.add(pid)
            label = f"rank {loc.rank}" if loc.rank is not None else loc.name
            meta.append({"ph": "M", "name": "process_name", "pid": pid, "args": {"name": label}})
            meta.append(
                {"ph": "M", "name": "process_sort_index", "pid": pid, "args": {"sort_index": pid}}
            )
        meta.append(
            {"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": loc.label}}
        )
    return np.array(pids, dtype=np.int64), np.array(tids, dtype=np.int64), meta


def events(
    trace: TraceData, *, messages: bool = True, critical_path: Any = None
) -> list[dict[str, Any]]:
    """Return the trace-event list (dicts) of ``trace``; see :func:`write`."""
    ev = trace.events
    kind = ev.kind
    time = ev.time
    match = ev.match
    pids, tids, out = _location_ids(trace)
    regions = trace.regions
    names = [r.name for r in regions]
    cats = [
        "mpi" if r.paradigm == "mpi" else ("shmem" if r.paradigm == "shmem" else "user")
        for r in regions
    ]
    sites = trace.callsites
    # Region instances: an Enter with its Leave; intervals likewise.
    for begin_kind in (EventKind.ENTER, EventKind.INTERVAL_BEGIN):
        enters = np.nonzero((kind == begin_kind) & (match >= 0))[0]
        leaves = match[enters]
        ts = time[enters] / 1e3
        dur = (time[leaves] - time[enters]) / 1e3
        loc = ev.location[enters]
        reg = ev.region[enters]
        site = ev.callsite[enters]
        for i in range(len(enters)):
            r = int(reg[i])
            record: dict[str, Any] = {
                "ph": "X",
                "name": names[r] if r < len(names) else "?",
                "cat": (cats[r] if r < len(cats) else "user")
                if begin_kind == EventKind.ENTER
                else "interval",
                "pid": int(pids[loc[i]]),
                "tid": int(tids[loc[i]]),
                "ts": float(ts[i]),
                "dur": float(dur[i]),
            }
            s = int(site[i])
            if s < len(sites):
                record["args"] = {"callsite": str(sites[s])}
            out.append(record)
    if messages:
        sends = np.nonzero(
            ((kind == EventKind.SEND) | (kind == EventKind.ISEND_POST)) & (match >= 0)
        )[0]
        recvs = match[sends]
        for n, (s, r) in enumerate(zip(sends.tolist(), recvs.tolist())):
            for phase, e in (("s", s), ("f", r)):
                record = {
                    "ph": phase,
                    "name": "message",
                    "cat": "message",
                    "id": n,
                    "pid": int(pids[ev.location[e]]),
                    "tid": int(tids[ev.location[e]]),
                    "ts": float(time[e] / 1e3),
                }
                if phase == "f":
                    record["bp"] = "e"
                out.append(record)
    if critical_path is not None:
        out.append(
            {"ph": "M", "name": "process_name", "pid": PATH_PID, "args": {"name": "critical path"}}
        )
        for rank, begin, end in critical_path.intervals():
            out.append(
                {
                    "ph": "X",
                    "name": f"rank {rank}",
                    "cat": "critical path",
                    "pid": PATH_PID,
                    "tid": 0,
                    "ts": begin * 1e6,
                    "dur": (end - begin) * 1e6,
                }
            )
    return out


def write(
    trace: TraceData,
    path: str | os.PathLike[str],
    *,
    messages: bool = True,
    critical_path: Any = None,
) -> int:
    """Write ``trace`` as Chrome/Perfetto trace-event JSON to ``path``; returns the event count.

    Args:
        trace: any trace (real, model or replayed).
        path: the ``.json`` file to write.
        messages: draw each matched message as a flow arrow from its send to its receive.
        critical_path: a :class:`parjava.causes.CriticalPath` to show as a row of its own.

    """
    records = events(trace, messages=messages, critical_path=critical_path)
    with open(path, "w", encoding="utf-8") as out:
        json.dump({"traceEvents": records, "displayTimeUnit": "ns"}, out, separators=(",", ":"))
    return len(records)


__all__ = ["PATH_PID", "events", "write"]
