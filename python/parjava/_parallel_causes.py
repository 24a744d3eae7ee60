"""The root causes of waiting (delay costs) on MPI: :func:`root_causes`.

Böhme et al. (ICPP 2010, §5) compute delay costs with a backward replay: the waiting process
sends its side of each wait state — its time per activity since it last synchronised with the
process it waited for, and the waiting this wait state caused later — back along the traced
synchronisation to that process, which charges its own excess activities and propagates the
waiting to its own earlier wait states (``cpp/src/analysis/causes/delay_parts.hpp``). Here a
wait state's two sides run on the analysis ranks owning its two processes, in the serial order
(latest wait state first), so the result on the root is the serial
:func:`parjava.root_causes` to the last bit.
"""

from __future__ import annotations

import sys
import time
import traceback
from functools import partial
from typing import Any

import numpy as np

from ._core_loader import load_core
from ._parallel_explain import (
    TraceLike,
    cause_part_of,
    merged_causes,
    oversubscribed,
    wait_for,
)
from ._parallel_part import _collective, _comm, _mpi_op, _together
from .causes import RootCauses

_SIDES_TAG = 17
# Wait states a rank goes through before it sends what it has: the others may wait for it.
_BUDGET = 4096
_POLL_FIRST, _POLL_MAX = 5e-5, 1e-3

#: This rank's last propagation (benchmarks/parallel_explain.py): how often it stopped for a
#: waiting side another rank had not sent yet, and the messages it sent and received.
last_propagation: dict[str, int] = {}


@_collective
def root_causes(
    trace: TraceLike, comm: Any = None, root: int = 0, threads: int = 0
) -> RootCauses | None:
    """Compute the delay costs of a trace on every rank of ``comm``; ``root`` gets them.

    ``trace`` is an archive's path (read in parts by :func:`parjava.parallel.open_part`) or a
    :class:`parjava.parallel.PartTrace`. Returns on ``root`` the :class:`parjava.RootCauses`
    of the whole trace, identical to the serial :func:`parjava.root_causes` (every cost row
    in the serial order, every short- and long-term cost, the waiting totals, every table and
    report), and ``None`` on the other ranks. Each rank finds the wait states of its own
    processes (as :func:`parjava.parallel.critical_path`); each wait state whose cause is on
    another rank is sent there (one ``alltoall``), MPI_Init's latest entry is reduced (two
    ``allreduce``), and the ranks then propagate the costs from the latest wait state back,
    the waiting side of each wait state travelling to its cause's rank
    (``cpp/src/analysis/causes/delay_parts.hpp``).
    """
    comm = _comm(comm)
    core = load_core()
    started = time.perf_counter()
    part, cause_part, owners = cause_part_of(trace, comm, threads, "the root causes")
    local = part.trace.core
    mask = part.owned.astype(np.uint8)
    latest, entered = _together(comm, "the root causes", lambda: core.init_entries(local, mask))
    latest = int(comm.allreduce(int(latest), op=_mpi_op("MAX")))
    init_all = int(comm.allreduce(int(entered), op=_mpi_op("SUM"))) == len(owners)
    caused = _together(
        comm, "the root causes", partial(cause_part.caused_elsewhere, owners, comm.size)
    )
    received = comm.alltoall(caused)
    del caused
    start = partial(cause_part.start_delays, local, owners, received, latest, init_all)
    _together(comm, "the root causes", start)
    del received, start
    _propagate(cause_part, comm)
    raw = merged_causes(comm, root, cause_part, local, started, "the root causes")
    return None if raw is None else RootCauses(part.trace, raw)


def _receive(channel: Any, block: bool, shared: bool) -> list[bytes]:
    """Return the waiting sides other ranks sent: at least one message when ``block``."""
    from mpi4py import MPI  # type: ignore[import-not-found]

    status = MPI.Status()
    if block:
        if shared:
            # A blocking probe polls the network all the while (Open MPI) and takes the CPU
            # from the rank this one waits for, on a node with more ranks than cores.
            pause = _POLL_FIRST
            while not channel.Iprobe(source=MPI.ANY_SOURCE, tag=_SIDES_TAG, status=status):
                time.sleep(pause)
                pause = min(2 * pause, _POLL_MAX)
        else:
            channel.Probe(source=MPI.ANY_SOURCE, tag=_SIDES_TAG, status=status)
    elif not channel.Iprobe(source=MPI.ANY_SOURCE, tag=_SIDES_TAG, status=status):
        return []
    out = []
    while True:
        data = bytearray(status.Get_count(MPI.BYTE))
        channel.Recv([data, MPI.BYTE], source=status.Get_source(), tag=_SIDES_TAG)
        out.append(bytes(data))
        if not channel.Iprobe(source=MPI.ANY_SOURCE, tag=_SIDES_TAG, status=status):
            return out


def _propagate(cause_part: Any, comm: Any) -> None:
    """Run the backward propagation with the other ranks until this rank's part is done.

    A rank goes through its wait states in the serial order; it sends the waiting sides it
    computed for other ranks whenever it stops — having gone through ``_BUDGET`` wait states,
    or needing a waiting side that another rank has not sent yet, or done — so no rank waits
    for what another keeps. A rank that is done has received every waiting side sent to it
    (each is one it needed), so it can leave while the others go on.
    """
    from mpi4py import MPI  # type: ignore[import-not-found]

    channel = comm.Dup()  # the waiting sides cannot meet the caller's own messages on `comm`
    shared = oversubscribed(comm)
    sends: list[tuple[Any, bytes]] = []
    incoming: list[bytes] = []
    last_propagation.update(blocked=0, sent=0, received=0)
    try:
        while True:
            try:
                status, outgoing = cause_part.propagate_delays(incoming, comm.size, _BUDGET)
            except Exception:
                # The others may wait for this rank's waiting sides: a failure ends the job.
                traceback.print_exc()
                sys.stderr.flush()
                comm.Abort(1)
                raise
            for rank, data in enumerate(outgoing):
                if data:
                    request = channel.Isend([data, MPI.BYTE], dest=rank, tag=_SIDES_TAG)
                    sends.append((request, data))
            if status == 0:
                break
            incoming = _receive(channel, block=status == 1, shared=shared)
            last_propagation["blocked"] += int(status == 1)
            last_propagation["received"] += len(incoming)
        last_propagation["sent"] = len(sends)
        MPI.Request.Waitall([request for request, _ in sends])
        # Every rank (`shared` may differ between nodes): on a shared node the next collective
        # on `comm` would spin while the others still propagate, so wait there with sleeps.
        barrier = channel.Ibarrier()
        if shared:
            wait_for(barrier)
        else:
            barrier.Wait()
    finally:
        channel.Free()


__all__ = ["root_causes"]
