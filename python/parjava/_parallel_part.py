"""One analysis rank's share of a trace, read and replayed over MPI (:mod:`parjava.parallel`).

What every parallel analysis shares: the MPI helpers (the communicator, failing together,
aborting on an unexpected error) and :func:`open_part`, which reads this rank's block of
processes and replays what its analyses read on other processes
(``cpp/include/parjava/trace/partition.hpp``; docs/running-at-scale.md, "How it works").
"""

from __future__ import annotations

import functools
import os
import sys
import traceback
from typing import Any, Callable, TypeVar

import numpy as np

from . import errors as errors_module
from ._core_loader import load_core
from .errors import Error, MissingDependencyError
from .trace import Trace

T = TypeVar("T")

REPLAY_COLUMNS = ("time", "kind", "location", "region", "peer", "tag", "comm", "bytes", "aux")
REPLAY_COLUMNS += ("callsite",)
_NO_REF = 0xFFFFFFFF
_DTYPES = {
    "time": np.int64,
    "kind": np.uint8,
    "location": np.uint32,
    "region": np.uint32,
    "peer": np.int32,
    "tag": np.int32,
    "comm": np.uint32,
    "bytes": np.uint64,
    "aux": np.uint64,
    "callsite": np.uint32,
    "position": np.uint64,
    "sequence": np.uint32,
}
# Global collective instances reduced per round of MPI_Allreduce (bounds the buffers: 176 B an
# instance, so 11 MiB a round).
_REDUCTION_CHUNK = 1 << 16


def _comm(comm: Any) -> Any:
    if comm is not None:
        return comm
    try:
        from mpi4py import MPI  # type: ignore[import-not-found]
    except ImportError as exc:
        raise MissingDependencyError(
            f"parallel trace analysis needs mpi4py (pip install mpi4py, built against the "
            f"system MPI; run under mpirun): {exc}"
        ) from None
    return MPI.COMM_WORLD


def _collective(function: Callable[..., T]) -> Callable[..., T]:
    """Abort the whole MPI job when ``function`` fails other than with a parjava error.

    An unexpected exception on one rank would otherwise leave the others waiting in the next
    exchange (and its own MPI_Finalize waiting for them) forever.
    """

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> T:
        try:
            return function(*args, **kwargs)
        except Error:
            raise
        except Exception:
            traceback.print_exc()
            sys.stderr.flush()
            _comm(kwargs.get("comm")).Abort(1)
            raise

    return wrapper


def _together(comm: Any, step: str, work: Callable[[], T]) -> T:
    """Run ``work`` on every rank; if it fails on any, every rank raises that rank's error.

    Without this a rank that fails (a damaged event file) would leave the others waiting in
    the next exchange forever.
    """
    result: Any = None
    failure: tuple[str, str] | None = None
    try:
        result = work()
    except Error as exc:
        failure = (type(exc).__name__, str(exc))
    failures = comm.allgather(failure)
    for rank, f in enumerate(failures):
        if f is not None:
            kind, message = f
            cls = getattr(errors_module, kind, Error)
            text = f"{step} failed on analysis rank {rank} of {comm.size}: {message}"
            try:
                error = cls(text)
            except TypeError:  # an error class with more arguments than a message
                error = Error(text)
            raise error
    return result


def _sum_counts(parts: list[dict[str, int]]) -> dict[str, int]:
    total: dict[str, int] = {}
    for counts in parts:
        for key, value in counts.items():
            if key == "largest_ns":
                total[key] = max(total.get(key, 0), int(value))
            else:
                total[key] = total.get(key, 0) + int(value)
    return total


class PartTrace:
    """One analysis rank's share of a trace: own events plus the replayed ones, matched.

    ``trace`` is a :class:`parjava.Trace` whose definitions are the whole archive's;
    ``owned`` marks its locations (True: this rank's). In ``trace`` a location's own events
    come first, ``own_events[l]`` of them, at their positions in the whole trace; the received
    ones follow, their positions in ``received_positions`` (location by location), which
    :meth:`global_events` reads. ``location_events`` is the whole trace's event count per
    location (summed over the ranks), ``owned_events`` this rank's event count and
    ``received_events`` how many events the replay brought.
    """

    def __init__(
        self,
        trace: Trace,
        owned: np.ndarray,
        own_events: np.ndarray,
        received_positions: np.ndarray,
        location_events: np.ndarray,
        owned_events: int,
        received_events: int,
        comm: Any,
    ) -> None:
        self.trace = trace
        self.owned = owned
        self.own_events = own_events
        self.received_positions = received_positions
        self.location_events = location_events
        self.owned_events = owned_events
        self.received_events = received_events
        self.comm = comm
        self.instance_map = np.zeros(0, dtype=np.int64)
        self.mpi_collective_calls = False

    def global_events(self, events: np.ndarray) -> np.ndarray:
        """Map event indices of this part's trace to those of the whole trace (-1 stays)."""
        events = np.asarray(events, dtype=np.int64)
        whole = np.concatenate([[0], np.cumsum(self.location_events, dtype=np.int64)])
        here = np.asarray(self.trace.core.column("location_offsets")).astype(np.int64)
        received = np.diff(here) - self.own_events
        first_received = np.concatenate([[0], np.cumsum(received)])
        valid = events >= 0
        safe = np.where(valid, events, 0)
        location = np.asarray(self.trace.events.location)[safe]
        index = safe - here[location]  # in its location here: own events first
        own = self.own_events[location]
        is_own = index < own
        position = index
        if len(self.received_positions):
            at = np.where(is_own, 0, first_received[location] + index - own)
            position = np.where(is_own, index, self.received_positions[at].astype(np.int64))
        return np.where(valid, whole[location] + position, -1)


@_collective
def open_part(
    path: str | os.PathLike[str],
    comm: Any = None,
    threads: int = 0,
    mpi_collective_calls: bool = False,
    reduce_collectives: bool = True,
) -> PartTrace:
    """Read this rank's share of the archive and replay what its patterns need (collective).

    Every rank of ``comm`` (default ``MPI.COMM_WORLD``) must call it. Members of MPI
    collectives travel as their Begin and End, and of an instance only its decisive members
    (the latest to begin, the first to end, the root, ...: chosen by a reduction over the
    ranks) unless the instance needs every member (cpp/include/parjava/trace/partition.hpp);
    ``reduce_collectives=False`` sends every member (the earlier replay, for comparison).
    ``mpi_collective_calls`` sends every member with the Enter and Leave of its call, which
    only the PGAS patterns on MPI collectives (``pgas_mpi_collectives=True``) read.
    """
    comm = _comm(comm)
    core = load_core()
    part, parts = int(comm.rank), int(comm.size)
    local = _together(
        comm, "reading the archive", lambda: core.Trace.open_part(str(path), part, parts, threads)
    )

    # Collectives travel reduced (their decisive members only) unless their calls must travel.
    whole = mpi_collective_calls or not reduce_collectives or parts == 1
    reduction = None if whole else _reduce_collectives(local, comm)

    def select() -> tuple[np.ndarray, np.ndarray]:
        selection = core.replay_selection(local, part, parts, mpi_collective_calls, reduction)
        counts = np.array([len(events) for events in selection], dtype=np.int32)
        counts[part] = 0
        selection[part] = selection[part][:0]
        return np.concatenate(selection).astype(np.int64), counts

    # The replay: every column goes in one MPI_Alltoallv of raw buffers, one column at a time
    # (no pickled copies), ordered by destination rank.
    events, send_counts = _together(comm, "selecting the replayed events", select)
    recv_counts = np.zeros(parts, dtype=np.int32)
    comm.Alltoall(send_counts, recv_counts)
    received: dict[str, np.ndarray] = {}
    for name in (*REPLAY_COLUMNS, "position", "sequence"):
        if name == "sequence":
            # A collective end's place in its sequence: its location's others may stay home.
            sendbuf = np.asarray(core.sequence_indices(local, events))
        elif name == "position":
            offsets = np.asarray(local.column("location_offsets")).astype(np.int64)
            location = np.asarray(local.column("location"))[events]
            sendbuf = (events - offsets[location]).astype(np.uint64)
            del offsets, location
        else:
            sendbuf = np.ascontiguousarray(np.asarray(local.column(name))[events])
        recvbuf = np.empty(int(recv_counts.sum()), dtype=_DTYPES[name])
        comm.Alltoallv([sendbuf, send_counts], [recvbuf, recv_counts])
        received[name] = recvbuf
        del sendbuf
    del events
    received_events = len(received["time"])
    # Each location's own events, which keep their positions in the merged trace.
    own_events = np.diff(np.asarray(local.column("location_offsets")).astype(np.int64))
    # In place: `local` becomes the merged trace (no view of its columns may be alive here);
    # it takes the received columns out of `received` as it copies them.
    received_positions = _together(
        comm,
        "merging the replayed events",
        lambda: core.merge_part(local, received, part, parts, max(1, threads), reduction),
    )
    reduction = None  # its rows named the instances before the merge
    merged = local
    owners = np.asarray(core.partition_owners(merged, parts))
    owned = owners == part
    mask = owned.astype(np.uint8)
    counts = np.diff(np.asarray(merged.column("location_offsets")).astype(np.int64))
    location_events = np.zeros_like(counts)
    comm.Allreduce(np.where(owned, counts, 0), location_events, op=_mpi_op("SUM"))
    # The notes of a scan state the whole trace's unmatched events and clock violations.
    unmatched = _sum_counts(comm.allgather(dict(core.count_unmatched(merged, mask))))
    clock = _sum_counts(comm.allgather(dict(core.count_clock_violations(merged, mask))))
    core.set_match_counts(merged, unmatched, clock)
    trace = Trace(merged)
    result = PartTrace(
        trace,
        owned,
        own_events,
        np.asarray(received_positions),
        np.asarray(location_events, dtype=np.int64),
        int(counts[owned].sum()),
        received_events,
        comm,
    )
    result.instance_map = _instance_map(trace, comm)
    result.mpi_collective_calls = mpi_collective_calls
    return result


def _reduce_collectives(local: Any, comm: Any) -> Any:
    """Reduce the collective instances' extremes over the parts (partition.hpp, "reduced").

    Each instance of a communicator spanning parts has a global slot (its communicator's
    sequence, then its index there); per slot the parts sum the member counts and take the
    minimum of the extremes (maxima negated), then the minimum of the ids of the members at
    those extremes (and of the second all-to-all step's earliest end), then of the member at
    that end. Returns the part's CollectiveReduction with the reduced rows.
    """
    core = load_core()
    reduction = _together(
        comm,
        "reducing the collectives",
        lambda: core.collective_reduction(local, comm.size),
    )
    spread = np.asarray(reduction.spread).astype(bool)
    rows = np.flatnonzero(spread)
    sequence = np.asarray(reduction.sequence).astype(np.int64)[rows]
    index = np.asarray(reduction.index).astype(np.int64)[rows]
    sequences = comm.allreduce(int(sequence.max()) + 1 if len(rows) else 0, op=_mpi_op("MAX"))
    here = np.bincount(sequence, minlength=sequences).astype(np.int64)
    everywhere = np.zeros_like(here)
    comm.Allreduce(here, everywhere, op=_mpi_op("MAX"))
    first = np.concatenate([[0], np.cumsum(everywhere)])
    slots = first[sequence] + index  # increasing: instances are in sequence order
    total = int(first[-1])

    def rounds(tables: list[tuple[Any, Any, Any]]) -> None:
        for start in range(0, total, _REDUCTION_CHUNK):
            stop = min(total, start + _REDUCTION_CHUNK)
            lo, hi = np.searchsorted(slots, [start, stop])
            at, mine = slots[lo:hi] - start, rows[lo:hi]
            for table, identity, op in tables:
                buffer = np.full((stop - start, table.shape[1]), identity, dtype=table.dtype)
                buffer[at] = table[mine]
                comm.Allreduce(_mpi_in_place(), buffer, op=op)
                table[mine] = buffer[at]

    int64_max = np.iinfo(np.int64).max
    sums, minima, decisive = reduction.sums, reduction.minima, reduction.decisive
    rounds([(sums, 0, _mpi_op("SUM")), (minima, int64_max, _mpi_op("MIN"))])
    none = np.iinfo(np.uint64).max
    for stage, columns in ((1, slice(0, -1)), (2, slice(-1, None))):
        _together(
            comm,
            "reducing the collectives",
            lambda stage=stage: core.decisive_members(local, reduction, stage),
        )
        rounds([(decisive[:, columns], none, _mpi_op("MIN"))])
    return reduction


def _mpi_in_place() -> Any:
    from mpi4py import MPI  # type: ignore[import-not-found]

    return MPI.IN_PLACE


def _instance_map(trace: Trace, comm: Any) -> np.ndarray:
    """Index of each of this part's collective instances among the whole trace's.

    Matching numbers instances sequence by sequence (a communicator's, the one of collectives
    without communicator, one per location for MPI_COMM_SELF), in sequence order
    (cpp/src/trace/collective_matching.cpp); a part holds every instance of each sequence it
    sees, so the whole trace's numbering follows from the sequences' sizes, the largest count
    any part has.
    """
    table = trace.collectives
    communicators = trace.communicators
    comms = len(communicators)
    sequences = comms + 1 + trace.location_count
    inst_comm = np.asarray(table["comm"]).astype(np.int64)
    first = np.asarray(table["first_member"]).astype(np.int64)
    members = np.asarray(trace.collective_members)
    location = np.asarray(trace.events.location)  # a view: only self instances' are read
    keys = np.full(len(inst_comm), comms, dtype=np.int64)  # no communicator
    known = inst_comm < comms
    self_comm = np.array([c.self for c in communicators] + [False], dtype=bool)
    is_self = known & self_comm[np.where(known, inst_comm, comms)]
    keys[known & ~is_self] = inst_comm[known & ~is_self]
    if is_self.any():
        keys[is_self] = comms + 1 + location[members[first[is_self]]].astype(np.int64)
    here = np.bincount(keys, minlength=sequences).astype(np.int64)
    everywhere = np.zeros_like(here)
    comm.Allreduce(here, everywhere, op=_mpi_op("MAX"))
    serial_first = np.concatenate([[0], np.cumsum(everywhere)])[:-1]
    local_first = np.concatenate([[0], np.cumsum(here)])[:-1]
    index = np.arange(len(keys), dtype=np.int64)
    return serial_first[keys] + (index - local_first[keys])


def _mpi_op(name: str) -> Any:
    from mpi4py import MPI  # type: ignore[import-not-found]

    return getattr(MPI, name)
