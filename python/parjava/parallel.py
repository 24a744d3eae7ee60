"""Trace analysis on MPI: ``K`` analysis processes share a trace too large for one.

Run under ``mpirun -np K`` (``parjava scan TRACE --mpi``, ``parjava intervals TRACE --mpi``,
``parjava pop TRACE --mpi``, ``parjava critical-path TRACE --mpi``,
``parjava root-causes TRACE --mpi``, or from Python with mpi4py)::

    part = parjava.parallel.open_part("run/traces.otf2")      # every rank calls these
    findings = parjava.parallel.scan(part, eps=1e-6)
    tree = parjava.parallel.intervals(part)
    metrics = parjava.parallel.pop(part, tables=True)
    path = parjava.parallel.critical_path(part)
    causes = parjava.parallel.root_causes(part)
    if findings is not None:                                    # rank 0 only
        print(findings.report(), tree.report(depth=1), metrics.report(), path.report())

Each analysis rank reads the definitions and the events of its own block of processes only
(``K`` need not divide the processes; all locations of a process stay on one rank). What the
pattern rules read on other processes comes by a replay of the traced communication over MPI
(Geimer et al., Parallel Computing 35(7), 2009; CCPE 22(6), 2010): the forward replay sends
each send to the receiver's rank, and the Begin/End of each collective instance's decisive
members (the latest to begin, the first to end, the root, ...: named by a reduction over the
ranks, as Scalasca reduces entry and exit times) to the ranks of the other members; the
backward replay sends each receive to the sender's rank; each event travels with the Enter
and Leave of the call holding it and its request's other end
(``cpp/include/parjava/trace/partition.hpp``). Every rank then runs the unchanged serial
scanner on its own events plus the received ones and keeps the findings on its own locations;
rank 0 merges them into the serial order from chunks the ranks send (:func:`scan`), or writes
the report in any format as they come (:func:`scan_write`: CSV and JSON rows block by block,
the text and HTML reports from a summary of the blocks), never holding them. The interval analysis
walks each rank's own processes and rank 0 merges the parts' trees into the serial one
(``interval_parts.hpp``). The notes' counts (unmatched events, clock violations) are summed
over the ranks. The result equals the serial scan row for row and to the nanosecond (the
tests check it for K = 1..4 on every test archive). The POP metrics reduce each process's
nanoseconds outside and inside MPI, and the window's extremes, as integers (:func:`pop`; no
ideal-network replay, so no transfer and serialisation efficiency); the critical path is
walked back by the ranks owning its processes in turn, passing a token, and rank 0 merges
their profiles (:func:`critical_path`); the delay costs propagate back from the latest wait
state, each wait state's waiting side sent to the rank of the process that caused it
(:func:`root_causes`). All equal the serial results to the last bit.

Any rank failing (an unreadable archive, a bad option) makes every rank raise the same error;
a rank that dies makes ``mpirun`` end the job with an error, and nothing is printed as a
result. Clock correction (``correct_clocks``) is a global replay of its own and is not offered
here.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence
from typing import Any, Callable, TextIO

import numpy as np

from ._core_loader import load_core
from ._parallel_causes import root_causes
from ._parallel_explain import TRANSFER_NOTE, critical_path, pop
from ._parallel_intervals import intervals
from ._parallel_part import (
    _NO_REF,
    PartTrace,
    _collective,
    _comm,
    _mpi_op,
    _together,
    open_part,
)
from ._scan_summary import PatternTotals
from .errors import UsageError

ROW_BYTES = 72  # sizeof(parjava::analysis::Finding)
# Finding rows per message when the ranks send theirs to the root (1.2 MB): the root holds
# one such chunk per rank, and a merged block of at most that many per rank, besides the
# merged rows.
_GATHER_CHUNK = 1 << 14
_ROWS_TAG = 15


class _GatheredScan:
    """The parts' findings in the serial order, with the interface Findings reads.

    Rows only: their texts are formatted from the root's trace tables (every rank reads the
    archive's global definitions) when they are asked for, as for a serial scan.
    """

    def __init__(
        self,
        rows: np.ndarray,
        trace: Any,
        notes: list[str],
        seconds: float,
        events: int,
        eager_limit: Any,
    ) -> None:
        self.rows = rows
        self._trace = trace
        self.notes = notes
        self.seconds = seconds
        self.events_scanned = events
        self.eager_limit = eager_limit

    def __len__(self) -> int:
        return len(self.rows) // ROW_BYTES

    def _texts(self, rows: list[int] | None, callsites: bool) -> list[str]:
        which = list(range(len(self))) if rows is None else [int(i) for i in rows]
        return list(load_core().finding_texts(self._trace, self.rows, which, callsites))

    def diagnoses(self, rows: list[int] | None = None) -> list[str]:
        return self._texts(rows, False)

    def callsite_texts(self, rows: list[int] | None = None) -> list[str]:
        return self._texts(rows, True)


def _local_rows(
    trace: str | os.PathLike[str] | PartTrace, comm: Any, threads: int, options: dict[str, Any]
) -> tuple[PartTrace, np.ndarray, list[str], Any, dict[str, Any]]:
    """Scan this rank's part; return it, its rows, the notes, eager limit and parameters.

    The rows are those on own locations, mapped to the whole trace's indices (packed, 72 B
    each, in the order its scan emitted them).
    """
    from .scan import scan as serial_scan

    if "correct_clocks" in options:
        raise UsageError("correct_clocks is not available in a parallel scan; scan serially")
    calls = bool(options.get("pgas_mpi_collectives", False))
    if isinstance(trace, PartTrace) and calls and not trace.mpi_collective_calls:
        raise UsageError(
            "pgas_mpi_collectives reads the calls of MPI collectives' members: open the part "
            "with parallel.open_part(path, mpi_collective_calls=True)"
        )
    part = trace if isinstance(trace, PartTrace) else open_part(trace, comm, threads, calls)

    def local() -> tuple[np.ndarray, list[str], Any, dict[str, Any]]:
        findings = serial_scan(part.trace, **options)
        raw = findings.raw
        # A rank also finds what happens on the locations it received (every member of its
        # collectives), and drops those rows; the selection is already a copy.
        rows = raw[part.owned[raw["location"]]]
        kept = findings.notes, findings._result.eager_limit, findings.parameters
        del raw, findings  # the rank's whole result, before the mapping's temporaries
        # Indices of this part's trace -> the whole trace's, a block of rows at a time (the
        # mapping's int64 temporaries are several per row).
        for start in range(0, len(rows), _GATHER_CHUNK):
            block = rows[start : start + _GATHER_CHUNK]  # a view: written through
            block["event"] = part.global_events(block["event"])
            block["peer_event"] = part.global_events(block["peer_event"])
            has = block["instance"] != _NO_REF
            block["instance"][has] = part.instance_map[block["instance"][has].astype(np.int64)]
        # As bytes: NumPy packs a structured dtype with padding when it concatenates.
        packed = np.ascontiguousarray(rows).view(np.uint8).reshape(len(rows), ROW_BYTES)
        return (packed, *kept)

    packed, notes, eager_limit, parameters = _together(comm, "scanning", local)
    return part, packed, notes, eager_limit, parameters


def _send_or_merge(
    comm: Any, root: int, rows: np.ndarray, consume: Callable[[np.ndarray, np.ndarray], None]
) -> int:
    """Send this rank's rows to ``root`` in chunks, where ``consume`` gets the merged blocks.

    ``consume(block, order)``: ``block[order]`` are the next rows in the serial order. Returns
    the number of rows of all ranks.
    """
    counts = [int(n) for n in comm.allgather(len(rows))]
    channel = comm.Dup()  # the rows' messages cannot meet the caller's own on `comm`
    try:
        if comm.rank != root:
            for start in range(0, len(rows), _GATHER_CHUNK):
                channel.Send(rows[start : start + _GATHER_CHUNK], dest=root, tag=_ROWS_TAG)
        else:
            for block, order in _merged_blocks(channel, root, rows, counts):
                consume(block, order)
    finally:
        channel.Free()
    return sum(counts)


@_collective
def scan(
    trace: str | os.PathLike[str] | PartTrace,
    comm: Any = None,
    root: int = 0,
    threads: int = 0,
    **options: Any,
) -> Any:
    """Scan a trace on every rank of ``comm`` together; ``root`` gets the :class:`Findings`.

    ``trace`` is the archive's path (read in parts by :func:`open_part`) or a
    :class:`PartTrace`; ``options`` are those of :func:`parjava.scan` (``correct_clocks`` is
    not available in parallel). Returns the findings of the whole trace on ``root``, identical
    to the serial scan's rows, notes and diagnoses, and ``None`` on the other ranks. ``root``
    holds them as one array of 72 B a finding, merged from the ranks' chunks;
    :func:`scan_write` writes the report in any format without holding them.
    """
    from .scan import Findings

    comm = _comm(comm)
    started = time.perf_counter()
    part, rows, notes, eager_limit, parameters = _local_rows(trace, comm, threads, options)
    merged: list[np.ndarray] = []  # the result, made when the first block comes
    written = 0

    def consume(block: np.ndarray, order: np.ndarray) -> None:
        nonlocal written
        if not merged:
            merged.append(np.empty((total, ROW_BYTES), dtype=np.uint8))
        np.take(block, order, axis=0, out=merged[0][written : written + len(block)])
        written += len(block)

    total = int(comm.allreduce(len(rows), op=_mpi_op("SUM")))
    _send_or_merge(comm, root, rows, consume)
    del rows
    seconds = comm.reduce(time.perf_counter() - started, root=root, op=_mpi_op("MAX"))
    if comm.rank != root:
        return None
    result = _GatheredScan(
        (merged[0] if merged else np.empty((0, ROW_BYTES), dtype=np.uint8)).reshape(-1),
        part.trace.core,
        notes,
        float(seconds),
        int(part.location_events.sum()),
        eager_limit,
    )
    return Findings(result, part.trace, parameters)


@_collective
def scan_csv(
    trace: str | os.PathLike[str] | PartTrace,
    out: str | os.PathLike[str] | TextIO,
    comm: Any = None,
    root: int = 0,
    threads: int = 0,
    **options: Any,
) -> int | None:
    """Scan as :func:`scan` and write the findings as CSV on ``root`` as they are merged.

    :func:`scan_write` with ``format="csv"``; returns the number of findings on ``root``,
    ``None`` elsewhere.
    """
    totals = scan_write(trace, out, "csv", comm, root, threads, **options)
    return None if totals is None else len(totals)


REPORT_FORMATS = ("text", "html", "csv", "json")


@_collective
def scan_write(
    trace: str | os.PathLike[str] | PartTrace,
    out: str | os.PathLike[str] | TextIO,
    format: str = "csv",
    comm: Any = None,
    root: int = 0,
    threads: int = 0,
    top: int = 10,
    source_dirs: Sequence[str | os.PathLike[str]] = (),
    **options: Any,
) -> PatternTotals | None:
    """Scan as :func:`scan` and write the report on ``root`` as the ranks' rows are merged.

    ``format`` is ``"csv"``, ``"json"``, ``"text"`` or ``"html"``: the bytes of
    :meth:`parjava.Findings.to_csv`, :meth:`~parjava.Findings.to_json`,
    :meth:`~parjava.Findings.report` (``top``) and :meth:`~parjava.Findings.to_html`
    (``top``, ``source_dirs``) of the serial scan (but for the scan's wall time, in the text
    and HTML reports). ``root`` never holds the findings: it writes the CSV and JSON rows of
    each merged block (at most 16 384 rows per rank) as it comes, and for the text and HTML
    reports adds the block to a summary (per pattern, call site, call and location, and the
    ``top`` worst rows), so its memory is its share of the trace as on every other rank. The
    JSON report's per-pattern totals, which come before its rows, are reduced over the ranks
    first. ``out`` is a path (opened on ``root`` before the scan; every rank stops if it
    cannot be written) or an open text file. Returns on ``root`` the occurrences and lost
    time per pattern (``len``, ``count(pattern)``, ``total(pattern)`` as on
    :class:`parjava.Findings`), ``None`` elsewhere.
    """
    import csv

    from ._scan_report import html_report, text_report
    from ._scan_summary import FindingsSummary, JsonWriter
    from .scan import Findings

    comm = _comm(comm)
    if format not in REPORT_FORMATS:
        raise UsageError(f"format must be one of {', '.join(REPORT_FORMATS)}, got {format!r}")
    if int(top) < 1:
        raise UsageError("top must be >= 1")
    started = time.perf_counter()

    def open_out() -> TextIO | None:
        if comm.rank != root or not isinstance(out, (str, bytes, os.PathLike)):
            return None
        try:
            return open(out, "w", encoding="utf-8", newline="")  # closed below
        except OSError as exc:
            raise UsageError(f"cannot write {os.fsdecode(out)}: {exc.strerror}") from None

    # Before the scan, and every rank stops if root cannot write there.
    opened = _together(comm, "opening the output", open_out)
    stream: Any = opened if opened is not None else out
    try:
        part, rows, notes, eager_limit, parameters = _local_rows(trace, comm, threads, options)
        events = int(part.location_events.sum())

        def findings(block: np.ndarray, seconds: float = 0.0) -> Findings:
            gathered = _GatheredScan(
                block.reshape(-1), part.trace.core, notes, seconds, events, eager_limit
            )
            return Findings(gathered, part.trace, parameters)

        # Occurrences and nanoseconds per pattern, summed exactly over the ranks' rows.
        empty = findings(np.empty((0, ROW_BYTES), dtype=np.uint8))
        table = empty._patterns
        own = PatternTotals.of_rows(table, rows.reshape(-1).view(empty.raw.dtype))
        counts, ns = np.zeros_like(own.counts), np.zeros_like(own.ns)
        comm.Reduce(own.counts, counts, op=_mpi_op("SUM"), root=root)
        comm.Reduce(own.ns, ns, op=_mpi_op("SUM"), root=root)
        totals = PatternTotals(table, counts, ns)

        # What root does with each merged block, in the findings' order.
        summary = FindingsSummary(table, int(top))
        json_writer: JsonWriter | None = None
        csv_writer: Any = None
        if comm.rank == root and format == "json":
            json_writer = JsonWriter(stream, empty._json_head(totals))
        elif comm.rank == root and format == "csv":
            csv_writer = csv.writer(stream)
            csv_writer.writerow([*empty._csv_names(), "diagnosis"])

        def consume(block: np.ndarray, order: np.ndarray) -> None:
            merged = findings(block[order])
            if json_writer is not None:
                json_writer.add(merged, 0, len(merged))
            elif csv_writer is not None:
                merged._write_csv_rows(csv_writer)
            else:
                summary.add(merged)

        _send_or_merge(comm, root, rows, consume)
        del rows
        seconds = comm.reduce(time.perf_counter() - started, root=root, op=_mpi_op("MAX"))
        if comm.rank == root:
            if json_writer is not None:
                json_writer.close()
            elif format in ("text", "html"):
                head = findings(np.empty((0, ROW_BYTES), dtype=np.uint8), float(seconds))
                if format == "text":
                    stream.write(text_report(head, top=int(top), summary=summary))
                else:
                    dirs = list(source_dirs)
                    stream.write(html_report(head, int(top), dirs, summary=summary))
    finally:
        if opened is not None:
            opened.close()
    return totals if comm.rank == root else None


def _merged_blocks(
    channel: Any, root: int, own: np.ndarray, counts: list[int]
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Receive the ranks' finding rows in chunks and give them out in the serial order (root).

    Each rank's rows come sorted by (time, location), as its scan emits them, and a location's
    rows all come from one rank, so a k-way merge gives the serial order (by time, then
    location, then emission). Yields (block, order): ``block[order]`` are the next rows. The
    root holds one chunk per rank: a row goes out once every rank has sent past it.
    """
    from .scan import _finding_dtype

    dtype = _finding_dtype()
    total = sum(counts)
    pending: list[np.ndarray] = [own[:0] for _ in counts]  # received, not yet given out
    sent = [0] * len(counts)  # rows taken from each rank so far
    given = 0

    def take(rank: int) -> None:
        n = min(_GATHER_CHUNK, counts[rank] - sent[rank])
        if rank == root:
            chunk = own[sent[rank] : sent[rank] + n]
        else:
            chunk = np.empty((n, ROW_BYTES), dtype=np.uint8)
            channel.Recv(chunk, source=rank, tag=_ROWS_TAG)
        sent[rank] += n
        pending[rank] = chunk

    while given < total:
        for rank in range(len(counts)):
            if not len(pending[rank]) and sent[rank] < counts[rank]:
                take(rank)
        # Rows up to the smallest last key among ranks with more to send can all go out: no
        # row still to come sorts before it (an equal key is of the same location, so of that
        # rank, and comes after in its order).
        bound: tuple[int, int] | None = None
        for rank, rows in enumerate(pending):
            if sent[rank] < counts[rank]:
                last = rows[-1:].reshape(-1).view(dtype)[0]
                key = (int(last["time"]), int(last["location"]))
                bound = key if bound is None or key < bound else bound
        parts = []
        for rank, rows in enumerate(pending):
            if not len(rows):
                continue
            n = len(rows)
            if bound is not None:
                view = rows.reshape(-1).view(dtype)
                times = view["time"]
                lo = int(np.searchsorted(times, bound[0], side="left"))
                hi = int(np.searchsorted(times, bound[0], side="right"))
                n = lo + int(np.searchsorted(view["location"][lo:hi], bound[1], side="right"))
            parts.append(rows[:n])
            pending[rank] = rows[n:]
        block = np.concatenate(parts) if len(parts) > 1 else parts[0]
        view = block.reshape(-1).view(dtype)
        yield block, np.lexsort((view["location"], view["time"]))  # stable: a rank's order
        given += len(block)


__all__ = [
    "TRANSFER_NOTE",
    "PartTrace",
    "critical_path",
    "intervals",
    "open_part",
    "pop",
    "root_causes",
    "scan",
    "scan_csv",
    "scan_write",
]
