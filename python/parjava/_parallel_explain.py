"""The explanation analyses on MPI: POP metrics (:func:`pop`) and the critical path.

Both run under ``mpirun -np K`` on the parts :func:`parjava.parallel.open_part` reads (each
rank its block of processes plus the replayed partner events) and give on the root exactly
what the serial :func:`parjava.pop` and :func:`parjava.critical_path` give.
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._core_loader import load_core
from ._parallel_intervals import intervals
from ._parallel_part import PartTrace, _collective, _comm, _mpi_op, _together, open_part
from .causes import CriticalPath
from .errors import UsageError
from .pop import (
    INTERVAL_SOURCES,
    REGION_SOURCES,
    PopMetrics,
    PopScaling,
    _process_rows,
    _window,
    tree_rows,
    window_stats,
)

#: Why an MPI analysis has no transfer and serialisation efficiency (docs/running-at-scale.md).
TRANSFER_NOTE = (
    "transfer and serialisation efficiency need the ideal-network replay, one serial "
    "simulation of the whole run: not computed under MPI; run `parjava pop TRACE` serially "
    "for them"
)

# How each of pop.WINDOW_STATS combines over the parts.
_WINDOW_REDUCTIONS = {
    "events": "SUM",
    "first": "MIN",
    "last": "MAX",
    "init_count": "SUM",
    "init": "MAX",
    "finalize_count": "SUM",
    "finalize": "MIN",
}

TraceLike = str | os.PathLike[str] | PartTrace


def _check_window(window: Any) -> None:
    """Raise the serial analysis' error for a bad ``window`` (on every rank, before reading)."""
    if window in ("main", "all"):
        return
    try:
        a, b = window
        float(a), float(b)
    except (TypeError, ValueError):
        raise UsageError(
            f'pop: window must be "main", "all" or (begin, end) in seconds, got {window!r}'
        ) from None


def _pop_one(
    trace: TraceLike,
    comm: Any,
    root: int,
    threads: int,
    window: Any,
    tables: bool,
    transfer: bool,
) -> PopMetrics | None:
    core = load_core()
    part = trace if isinstance(trace, PartTrace) else open_part(trace, comm, threads)
    # Every rank stops on a trace without MPI processes, as the serial analysis does.
    _together(comm, "the POP metrics", lambda: _process_rows(part.trace))
    # The window's extremes over the ranks' own locations: integers, so exact.
    own = window_stats(part.trace, part.owned)
    stats = {k: int(comm.allreduce(v, op=_mpi_op(_WINDOW_REDUCTIONS[k]))) for k, v in own.items()}
    begin, end = _together(comm, "the POP window", lambda: _window(part.trace, window, stats))
    # Per location, ns outside and inside MPI within the window: a location's figures read
    # only its own events, which its owner holds all of; the others contribute 0 to the sum.
    times = core.window_times(part.trace.core, begin, end)
    owned = part.owned
    whole: dict[str, np.ndarray] = {}
    for name in ("computation", "communication"):
        mine = np.where(owned, np.asarray(times[name], dtype=np.int64), 0)
        total = np.zeros_like(mine) if comm.rank == root else None
        comm.Reduce(mine, total, op=_mpi_op("SUM"), root=root)
        whole[name] = total if total is not None else mine
    del times
    frames: dict[str, Any] = {}
    if tables:
        for name, sources in (("intervals", INTERVAL_SOURCES), ("regions", REGION_SOURCES)):
            tree = intervals(part, comm, root, sources=sources, record_executions=False)
            if tree is not None:
                frames[name] = tree_rows(tree, {})
    if comm.rank != root:
        return None
    note = TRANSFER_NOTE if transfer else None
    return PopMetrics._of_parts(part.trace, (begin, end), window, whole, note, frames)


@_collective
def pop(
    traces: TraceLike | Sequence[TraceLike],
    comm: Any = None,
    root: int = 0,
    threads: int = 0,
    *,
    window: Any = "main",
    tables: bool = False,
    transfer: bool = True,
    scaling: str = "strong",
) -> PopMetrics | PopScaling | None:
    """Compute the POP metrics of a run (or of several) on every rank of ``comm`` together.

    ``traces`` is an archive's path or a :class:`PartTrace` (a :class:`parjava.PopMetrics`
    on ``root``), or a list of them at different process counts (a
    :class:`parjava.PopScaling`); ``None`` on the other ranks. Every rank reads its block of
    processes (:func:`open_part`); the window's extremes (MPI_Init's end, MPI_Finalize's
    start) and each process's nanoseconds outside and inside MPI are reduced over the ranks as
    integers, so load balance, communication and parallel efficiency, computation scalability
    and global efficiency equal the serial :func:`parjava.pop` to the last digit.
    ``tables=True`` also computes the per-interval and per-region metrics
    (:meth:`~parjava.PopMetrics.intervals`, :meth:`~parjava.PopMetrics.regions`) from the
    parallel interval analysis. Transfer and serialisation efficiency need an ideal-network
    replay of the whole run, which is one serial simulation: they are NaN here, and with
    ``transfer=True`` (the default) the result's ``transfer_note`` and report say so
    (``transfer=False`` as in the serial call leaves the note out). ``window`` and ``scaling``
    are those of :func:`parjava.pop`; the machine only matters for the replay.
    """
    comm = _comm(comm)

    def check() -> None:
        _check_window(window)
        if scaling not in ("strong", "weak"):
            raise UsageError(f'pop: scaling must be "strong" or "weak", got {scaling!r}')

    _together(comm, "checking the options", check)
    if isinstance(traces, Sequence) and not isinstance(traces, (str, bytes)):
        if not traces:
            raise UsageError("pop: give at least one trace")
        runs = [_pop_one(t, comm, root, threads, window, tables, transfer) for t in traces]
        if comm.rank != root:
            return None
        return PopScaling([r for r in runs if r is not None], scaling)
    return _pop_one(traces, comm, root, threads, window, tables, transfer)


_NO_REF = 0xFFFFFFFF
_TOKEN_TAG = 16


@_collective
def critical_path(
    trace: TraceLike, comm: Any = None, root: int = 0, threads: int = 0
) -> CriticalPath | None:
    """Find the critical path of a trace on every rank of ``comm``; ``root`` gets it.

    ``trace`` is an archive's path (read in parts by :func:`open_part`) or a
    :class:`PartTrace`. Returns on ``root`` the :class:`parjava.CriticalPath` of the whole
    trace, identical to the serial :func:`parjava.critical_path` (segments, length, profile
    per activity and rank, imbalance), and ``None`` on the other ranks. Each rank builds the
    timelines and finds the wait states of its own processes
    (``cpp/include/parjava/analysis/causes/cause_parts.hpp``); the backward walk is one chain,
    so the rank holding it walks while the path stays on its processes and sends (location,
    time, step) on to the rank owning the process the path jumps to; then each rank profiles
    its own segments and ``root`` merges the rows. The delay costs are
    :func:`parjava.parallel.root_causes`.
    """
    comm = _comm(comm)
    started = time.perf_counter()
    part, cause_part, owners = cause_part_of(trace, comm, threads, "the critical path")
    local = part.trace.core
    # The walk starts at the end of the run (the first process to end last) and ends at its
    # start (the first event of all).
    begins, ends = cause_part.begins(), cause_part.ends()
    comm.Allreduce(_in_place(), begins, op=_mpi_op("MIN"))
    comm.Allreduce(_in_place(), ends, op=_mpi_op("MAX"))
    start = int(np.argmax(ends))
    _walk(cause_part, comm, owners, start, int(ends[start]), int(begins.min()))
    raw = merged_causes(comm, root, cause_part, local, started, "the critical path")
    return None if raw is None else CriticalPath(part.trace, raw)


def merged_causes(
    comm: Any, root: int, cause_part: Any, local: Any, started: float, what: str
) -> Any:
    """Gather every rank's cause part on ``root`` and merge them there (None elsewhere).

    The tail of the critical path and of the root causes on MPI: each rank's result bytes,
    the slowest rank's time, one merge into the serial analysis' arrays.
    """
    data = _together(comm, what, cause_part.result_bytes)
    gathered = comm.gather(data, root=root)
    del data
    seconds = comm.reduce(time.perf_counter() - started, root=root, op=_mpi_op("MAX"))
    if comm.rank != root:
        return None
    return load_core().merge_cause_parts(local, gathered, float(seconds))


def cause_part_of(
    trace: TraceLike, comm: Any, threads: int, step: str
) -> tuple[PartTrace, Any, np.ndarray]:
    """Return this rank's part, its ``CausePart`` and the rank owning each analysed location.

    The part's processes' timelines and wait states (cause_parts.hpp); Wait at Finalize is
    caused by the process that entered MPI_Finalize last (the first of them), when every
    process entered it: an ``allreduce`` (maximum) of each process's entry and one of the
    count.
    """
    core = load_core()
    part = trace if isinstance(trace, PartTrace) else open_part(trace, comm, threads)
    local = part.trace.core
    mask = part.owned.astype(np.uint8)
    entries, entered = _together(comm, step, lambda: core.finalize_entries(local, mask))
    latest_entries = np.empty_like(entries)
    comm.Allreduce(entries, latest_entries, op=_mpi_op("MAX"))
    latest, entry = _NO_REF, 0
    if int(comm.allreduce(int(entered), op=_mpi_op("SUM"))) == len(entries):
        latest = int(np.argmax(latest_entries))
        entry = int(latest_entries[latest])
    del entries, latest_entries
    cause_part = _together(comm, step, lambda: core.CausePart(local, mask, latest, entry))
    owners = np.asarray(core.partition_owners(local, comm.size))[cause_part.locations]
    return part, cause_part, owners.astype(np.uint32)


def _in_place() -> Any:
    from mpi4py import MPI  # type: ignore[import-not-found]

    return MPI.IN_PLACE


# Waiting for the token on a node with more analysis ranks than cores: polled for this long,
# then with sleeps growing to _POLL_MAX.
_SPIN_SECONDS = 5e-5
_POLL_FIRST, _POLL_MAX = 5e-5, 1e-3


def oversubscribed(comm: Any) -> bool:
    """Whether this node runs more ranks of ``comm`` than it has cores (collective)."""
    from mpi4py import MPI  # type: ignore[import-not-found]

    node = comm.Split_type(MPI.COMM_TYPE_SHARED)
    try:
        return int(node.size) > (os.cpu_count() or 1)
    finally:
        node.Free()


def wait_for(request: Any) -> None:
    """Complete ``request`` without keeping a core busy once the wait is long.

    For ranks that share cores: a blocking receive polls the network all the while (Open
    MPI), taking the CPU from the rank that holds the token. On ranks with a core each, the
    blocking receive answers fastest and is used instead.
    """
    deadline = time.perf_counter() + _SPIN_SECONDS
    while not request.Test():
        if time.perf_counter() < deadline:
            continue
        pause = _POLL_FIRST
        while not request.Test():
            time.sleep(pause)
            pause = min(2 * pause, _POLL_MAX)
        return


def _walk(part: Any, comm: Any, owners: np.ndarray, location: int, at: int, first: int) -> None:
    """Walk the critical path back with the ranks that own its processes, by a token.

    The rank owning ``location`` walks back from ``at`` while the path stays on its own
    processes, then sends (location, time, step) to the rank owning the process the path
    jumps to, which goes on; the others wait for the token. The rank that reaches ``first``
    (the start of the run) tells every other rank that the walk is over.
    """
    from mpi4py import MPI  # type: ignore[import-not-found]

    channel = comm.Dup()  # the token cannot meet the caller's own messages on `comm`
    shared = oversubscribed(comm)
    token = np.zeros(4, dtype=np.int64)  # location, time, step, done
    holding = int(owners[location]) == comm.rank
    step = 0
    try:
        while True:
            if not holding:
                if shared:
                    wait_for(channel.Irecv(token, source=MPI.ANY_SOURCE, tag=_TOKEN_TAG))
                else:
                    channel.Recv(token, source=MPI.ANY_SOURCE, tag=_TOKEN_TAG)
                if token[3]:
                    return
                location, at, step = int(token[0]), int(token[1]), int(token[2])
            try:
                location, at, step, done = part.walk(location, at, first, step)
            except Exception:
                # The others wait for the token: a failure here ends the job.
                traceback.print_exc()
                sys.stderr.flush()
                comm.Abort(1)
                raise
            if done:
                token[:] = (0, 0, step, 1)
                for rank in range(comm.size):
                    if rank != comm.rank:
                        channel.Send(token, dest=rank, tag=_TOKEN_TAG)
                return
            token[:] = (location, at, step, 0)
            channel.Send(token, dest=int(owners[location]), tag=_TOKEN_TAG)
            holding = False
    finally:
        channel.Free()


__all__ = ["TRANSFER_NOTE", "critical_path", "pop"]
