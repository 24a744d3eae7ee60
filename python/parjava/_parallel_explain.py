"""The explanation analyses on MPI: POP metrics (:func:`pop`) and the critical path.

Both run under ``mpirun -np K`` on the parts :func:`parjava.parallel.open_part` reads (each
rank its block of processes plus the replayed partner events) and give on the root exactly
what the serial :func:`parjava.pop` and :func:`parjava.critical_path` give.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._core_loader import load_core
from ._parallel_intervals import intervals
from ._parallel_part import PartTrace, _collective, _comm, _mpi_op, _together, open_part
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
    """POP metrics of a run (or of several) on every rank of ``comm`` together.

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


__all__ = ["TRANSFER_NOTE", "pop"]
