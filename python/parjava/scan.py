"""The pattern scanner: ``parjava.scan(trace, ...)`` finds where a parallel program loses time.

It runs in C++ (``cpp/src/analysis``) in one pass over the matched trace and reports every
occurrence of

* the ParJava point-to-point patterns of seed 000 (notes §5.5-§5.8): early/late standard,
  buffered, synchronous and ready sends (B1-B8), wrong message order (B9, B10), waits on the
  sender and receiver side of non-blocking transfers with their optimal distance O_D (N1-N8),
  close send/receive pairs that could be one ``MPI_Sendrecv``;
* the classic MPI wait states of EXPERT/Scalasca with Scalasca 2.6's severity definitions:
  Late Sender (and its Wrong Order part), Late Receiver, Wait at Barrier, Barrier Completion,
  Wait at N x N, N x N Completion, Late Broadcast, Early Reduce, Early Scan;
* the twelve PGAS patterns of seed 001 (lock contention, collective entry/exit
  synchronisation, barriers, late broadcast, early gather, early prefix reduction, many-to-many
  collectives, wait inside a collective, wait in collective allocation) on OpenSHMEM traces and
  on any trace with lock events.

The result, :class:`Findings`, has one row per occurrence (NumPy structured array,
:meth:`Findings.to_pandas`), aggregates per pattern, call site and rank arranged as a Cube-like
metric tree, a text report and an HTML report that shows the source lines of each call site.
Re-scanning with other thresholds (:meth:`Findings.rescan`) reuses the trace in memory.
Thresholds and their defaults are explained in docs/guide/scanner.md.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, TextIO, Union

import numpy as np

from ._core_loader import load_core
from ._scan_defaults import DEFAULT_EPS, DEFAULT_SEND_RECV_DELTA
from ._scan_report import (
    MetricTree,
    build_tree,
    html_report,
    html_summary,
    seconds_text,
    text_report,
)
from ._scan_summary import (
    FindingsSummary,
    JsonWriter,
    PatternTotals,
    chosen_patterns,
)
from ._scan_summary import plain as _plain
from .errors import MissingDependencyError, UsageError
from .machine import Machine
from .trace import Trace

_NO_REF = 0xFFFFFFFF
# Occurrences formatted at a time by Findings.write_csv (a block costs about 1 KB a row in
# Python objects while it is written).
_CSV_BLOCK = 1 << 13

#: Eager limit used when neither ``eager_limit`` nor ``machine`` is given: parjava's tracer
#: runs on Open MPI, whose defaults this preset reproduces.
DEFAULT_EAGER_PRESET = "openmpi"

EagerLimitLike = Union[int, str, Machine, None]

_PGAS_SYNC = ("all", "my", "no")
_PGAS_COMPLETION = ("literal", "from_first_exit")
_PGAS_GATHER_ROOT = ("late", "early")
_PGAS_ALONE = ("root", "every")


@dataclass(frozen=True)
class PatternInfo:
    """One pattern the scanner knows: identity, place in the metric tree, source, fix."""

    id: int
    key: str
    code: str
    name: str
    family: str
    family_title: str
    tree_group: str
    part_of_parent: bool
    source: str
    meaning: str
    fix: str


def patterns(family: str | None = None) -> list[PatternInfo]:
    """List the patterns (optionally of one family: ``"parjava"``, ``"scalasca"``, ``"pgas"``)."""
    table = [PatternInfo(**row) for row in load_core().pattern_table()]
    if family is None:
        return table
    if family not in {p.family for p in table}:
        raise UsageError(f"patterns: unknown family {family!r}; use parjava, scalasca or pgas")
    return [p for p in table if p.family == family]


def _core_trace(trace: Any) -> tuple[Any, Trace | None]:
    if isinstance(trace, Trace):
        return trace.core, trace
    if isinstance(trace, (str, os.PathLike)):
        opened = Trace.open(trace)
        return opened.core, opened
    if type(trace).__name__ == "Trace" and hasattr(trace, "column"):  # a parjava._core.Trace
        return trace, Trace(trace)
    raise UsageError(
        f"scan: expected a parjava.Trace or the path of an OTF2 archive, got {type(trace).__name__}"
    )


def _choice(value: str, allowed: Sequence[str], parameter: str) -> str:
    normalized = str(value).lower().replace("-", "_")
    if normalized.endswith("sync") and normalized != "nosync":
        normalized = normalized[: -len("sync")]
    if normalized == "nosync":
        normalized = "no"
    if normalized not in allowed:
        raise UsageError(f"{parameter} must be one of {', '.join(allowed)}; got {value!r}")
    return normalized


def _eager(eager_limit: EagerLimitLike, machine: Machine | None) -> tuple[int, int, str]:
    core = load_core()
    if eager_limit is None:
        if machine is not None:
            return tuple(core.eager_limit_from_machine(machine._core))  # type: ignore[return-value]
        return tuple(core.eager_limit_preset(DEFAULT_EAGER_PRESET))  # type: ignore[return-value]
    if isinstance(eager_limit, Machine):
        return tuple(core.eager_limit_from_machine(eager_limit._core))  # type: ignore[return-value]
    if isinstance(eager_limit, bool):
        raise UsageError("eager_limit must be a number of bytes, a preset name or a Machine")
    if isinstance(eager_limit, (int, np.integer)):
        if eager_limit < 0:
            raise UsageError(f"eager_limit must be >= 0 bytes, got {eager_limit}")
        return int(eager_limit), int(eager_limit), f"{int(eager_limit)} B"
    if isinstance(eager_limit, str):
        if eager_limit == "machine":
            if machine is None:
                raise UsageError('eager_limit="machine" needs machine=... as well')
            return tuple(core.eager_limit_from_machine(machine._core))  # type: ignore[return-value]
        if eager_limit.isdigit():
            return _eager(int(eager_limit), machine)
        return tuple(core.eager_limit_preset(eager_limit))  # type: ignore[return-value]
    raise UsageError(
        f"eager_limit must be a number of bytes, a preset name "
        f"({', '.join(core.eager_limit_preset_names())}) or a Machine; got {eager_limit!r}"
    )


def scan(
    trace: Trace | str | os.PathLike[str],
    *,
    eps: float = DEFAULT_EPS,
    send_recv_delta: float = DEFAULT_SEND_RECV_DELTA,
    eager_limit: EagerLimitLike = None,
    patterns: Sequence[str] | str | None = None,
    machine: Machine | None = None,
    wrong_order_window: int = 100,
    pgas_entry_sync: str = "my",
    pgas_exit_sync: str = "my",
    pgas_completion: str = "literal",
    pgas_gather_root: str = "late",
    pgas_prefix_clamp: bool = False,
    pgas_alone: str = "root",
    pgas_allocation_root: int = 0,
    pgas_mpi_collectives: bool = False,
) -> Findings:
    """Scan a trace for every pattern that loses time and return the :class:`Findings`.

    Args:
        trace: a :class:`parjava.Trace` (real or model) or the path of an OTF2 archive.
        eps: ε of seed 000 §5.4, in seconds: an occurrence losing less is not reported
            (``0`` reproduces Scalasca, which reports every positive value).
        send_recv_delta: Δ_SR of seed 000 §5.8, in seconds: a receive starting less than this
            after a send to the same partner ended is a close send/receive.
        eager_limit: messages of at most this many bytes are sent eagerly. Bytes, a preset
            (``"openmpi"``, ``"mpich"``, ``"mvapich2"``), ``"machine"`` or a
            :class:`parjava.Machine`; default: the machine's when one is given, else
            ``"openmpi"``.
        patterns: which patterns to look for: keys (``"late_sender"``), codes (``"B1"``,
            ``"N2"``, ``"P6"``, ``"mpi_latesender"``) or families (``"parjava"``,
            ``"scalasca"``, ``"pgas"``); default all. :func:`parjava.patterns` lists them.
        machine: the target :class:`parjava.Machine`; gives T_send for the optimal distance
            O_D of the non-blocking patterns (without one T_send is 0 and O_D a lower bound),
            and the eager limit unless ``eager_limit`` is given.
        wrong_order_window: Late Sender instances per location that Wrong Order looks back
            over (Scalasca: 100).
        pgas_entry_sync: the UPC synchronisation assumed at entry to every collective
            (``"all"``, ``"my"``, ``"no"``; traces do not record it). ``"all"`` enables P2,
            ``"my"`` the IN_MYSYNC patterns P6-P9 and P11.
        pgas_exit_sync: the same at exit: ``"all"`` enables P3, ``"my"`` P10.
        pgas_completion: P3/P5/P10 as the paper's ``max(exit) - exit`` (``"literal"``) or as
            Scalasca's ``exit - min(exit)`` (``"from_first_exit"``).
        pgas_gather_root: P7 as written (``"late"``: the others wait for a late receiving
            root) or EXPERT's Early Reduce (``"early"``: the root waits for the last sender).
        pgas_prefix_clamp: P8 keeps negative terms of the paper's formula unless True.
        pgas_alone: P11 charges the root only (``"root"``, the paper) or every participant.
        pgas_allocation_root: the PE that performs a collective allocation (P12; paper: 0).
        pgas_mpi_collectives: also apply P2-P12 to MPI collectives (they always apply to
            OpenSHMEM collectives; lock contention applies to any lock events).

    """
    core = load_core()
    core_trace, wrapper = _core_trace(trace)
    if machine is not None and not isinstance(machine, Machine):
        raise UsageError(f"machine must be a parjava.Machine, got {type(machine).__name__}")
    if isinstance(patterns, str):
        patterns = [p.strip() for p in patterns.split(",") if p.strip()]
    if wrong_order_window < 1:
        raise UsageError("wrong_order_window must be >= 1 (Scalasca uses 100)")
    options = core.ScanOptions()
    options.eps = core.seconds_to_ns(float(eps), "eps")
    options.send_recv_delta = core.seconds_to_ns(float(send_recv_delta), "send_recv_delta")
    options.wrong_order_window = int(wrong_order_window)
    intra, inter, source = _eager(eager_limit, machine)
    options.set_eager_limit(int(intra), int(inter), str(source))
    if patterns is not None:
        if not list(patterns):
            raise UsageError("patterns is empty; leave it out to scan for every pattern")
        options.set_patterns(list(patterns))
    if machine is not None:
        options.set_machine(machine._core)
    options.pgas_entry = getattr(
        core.PgasSync, _choice(pgas_entry_sync, _PGAS_SYNC, "pgas_entry_sync")
    )
    options.pgas_exit = getattr(
        core.PgasSync, _choice(pgas_exit_sync, _PGAS_SYNC, "pgas_exit_sync")
    )
    options.pgas_completion = getattr(
        core.PgasCompletion, _choice(pgas_completion, _PGAS_COMPLETION, "pgas_completion")
    )
    options.pgas_gather_root = getattr(
        core.PgasGatherRoot, _choice(pgas_gather_root, _PGAS_GATHER_ROOT, "pgas_gather_root")
    )
    options.pgas_prefix_clamp = bool(pgas_prefix_clamp)
    options.pgas_alone = getattr(core.PgasAlone, _choice(pgas_alone, _PGAS_ALONE, "pgas_alone"))
    if int(pgas_allocation_root) < 0:
        raise UsageError("pgas_allocation_root must be a PE number >= 0")
    options.pgas_allocation_root = int(pgas_allocation_root)
    options.pgas_include_mpi = bool(pgas_mpi_collectives)
    parameters = {
        "eps": float(eps),
        "send_recv_delta": float(send_recv_delta),
        "eager_limit": eager_limit if isinstance(eager_limit, (int, str, type(None))) else machine,
        "patterns": None if patterns is None else list(patterns),
        "machine": machine,
        "wrong_order_window": int(wrong_order_window),
        "pgas_entry_sync": pgas_entry_sync,
        "pgas_exit_sync": pgas_exit_sync,
        "pgas_completion": pgas_completion,
        "pgas_gather_root": pgas_gather_root,
        "pgas_prefix_clamp": bool(pgas_prefix_clamp),
        "pgas_alone": pgas_alone,
        "pgas_allocation_root": int(pgas_allocation_root),
        "pgas_mpi_collectives": bool(pgas_mpi_collectives),
    }
    if isinstance(eager_limit, Machine):
        parameters["eager_limit"] = eager_limit
    result = core.scan(core_trace, options)
    return Findings(result, wrapper if wrapper is not None else Trace(core_trace), parameters)


def _finding_dtype() -> np.dtype:
    core = load_core()
    layout = core.finding_layout()
    return np.dtype(
        {
            "names": [name for name, _, _ in layout],
            "formats": [fmt for _, fmt, _ in layout],
            "offsets": [offset for _, _, offset in layout],
            "itemsize": core.finding_size(),
        }
    )


class Diagnoses(Sequence[str]):
    """The one-line diagnosis of each occurrence, formatted when it is read.

    The findings hold codes and indices only; ``diagnoses[i]`` (or a slice, or iteration,
    which formats a block at a time) makes the text from the trace's tables, so a scan of
    millions of occurrences does not hold millions of sentences.
    """

    _BLOCK = 4096

    def __init__(self, result: Any) -> None:
        self._result = result

    def __len__(self) -> int:
        return len(self._result)

    def rows(self, which: Sequence[int] | np.ndarray) -> list[str]:
        """Return the diagnoses of the rows `which` (indices), in that order."""
        indices = [int(i) for i in which]
        return list(self._result.diagnoses(indices)) if indices else []

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return self.rows(range(len(self))[index])
        i = int(index)
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"diagnosis {index} of {n} occurrences")
        return self.rows([i])[0]

    def __iter__(self) -> Any:
        for start in range(0, len(self), self._BLOCK):
            yield from self.rows(range(start, min(start + self._BLOCK, len(self))))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<Diagnoses of {len(self)} occurrences, formatted when read>"


class Findings:
    """The occurrences found by :func:`scan`, with aggregates and reports.

    ``len(findings)`` occurrences, held as the C++ rows (:attr:`raw`: nanoseconds and indices
    into the trace's tables, 72 bytes each); text is made when asked for. :attr:`array` and
    :meth:`to_pandas` have one row per occurrence with the fields ``pattern`` (key), ``code``,
    ``name``, ``family``, ``rank``, ``thread``, ``location``, ``peer_rank``, ``time`` (s since
    the trace's origin), ``idle`` (I_T, s), ``optimal_distance`` (O_D, s, NaN where undefined),
    ``bytes``, ``callsite`` (``file:line``), ``file``, ``line``, ``call`` (the MPI/SHMEM
    function) and ``suspected``; :attr:`diagnoses` gives the one line with the fix to try
    (``to_pandas(diagnosis=True)`` adds it as a column). Times are seconds throughout.
    """

    def __init__(self, result: Any, trace: Trace, parameters: dict[str, Any]) -> None:
        self._result = result
        self._trace = trace
        self.parameters = parameters

    # --- basics ----------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._result)

    @property
    def trace(self) -> Trace:
        """The scanned trace."""
        return self._trace

    @property
    def notes(self) -> list[str]:
        """Facts the reader needs: the eager limit and T_send used, unmatched events, ..."""
        return list(self._result.notes)

    @property
    def seconds(self) -> float:
        """Wall time of the C++ scan."""
        return float(self._result.seconds)

    @property
    def events_scanned(self) -> int:
        """Events in the scanned trace."""
        return int(self._result.events_scanned)

    @property
    def eager_limit(self) -> tuple[int, int, str]:
        """(intra-node bytes, inter-node bytes, where the values come from)."""
        intra, inter, source = self._result.eager_limit
        return int(intra), int(inter), str(source)

    @property
    def memory_bytes(self) -> int:
        """Bytes the findings hold: the C++ rows, 72 bytes per occurrence.

        :attr:`array`, :meth:`to_pandas`, :attr:`diagnoses` and the reports are made on
        demand and not kept, so this does not grow as they are used.
        """
        return int(self.raw.nbytes)

    @cached_property
    def raw(self) -> np.ndarray:
        """The C++ rows without conversion (ns, indices into the trace's tables)."""
        return self._result.rows.view(_finding_dtype())

    @cached_property
    def _patterns(self) -> list[PatternInfo]:
        return patterns()

    @property
    def diagnoses(self) -> Diagnoses:
        """One line per occurrence: who lost how much where, because of whom, and the fix.

        A :class:`Diagnoses` sequence: each line is formatted when it is read.
        """
        return Diagnoses(self._result)

    def _callsite_codes(
        self, start: int = 0, stop: int | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Return (texts, row codes) of the call-site column, one text per distinct site.

        A row's text depends on its call site, or on its caller where the trace has no call
        sites, so the texts are made once per distinct (site, caller) and not per row. Of the
        rows ``start:stop`` (default all).
        """
        raw = self.raw[start:stop]
        if len(raw) == 0:
            return np.array([], dtype=object), np.zeros(0, dtype=np.int64)
        n_sites = len(self._trace.callsites)
        n_regions = len(self._trace.regions)
        site = raw["callsite"].astype(np.int64)
        caller = raw["caller"].astype(np.int64)
        by_caller = np.where(caller != _NO_REF, n_sites + caller, n_sites + n_regions)
        key = np.where(site != _NO_REF, site, by_caller)
        keys, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        del keys
        which = [start + int(i) for i in first]
        texts = np.array(list(self._result.callsite_texts(which)), dtype=object)
        return texts, inverse.reshape(-1)

    def _columns(
        self, wanted: Sequence[str] | None = None, start: int = 0, stop: int | None = None
    ) -> list[tuple[str, Any]]:
        """Return the columns of :attr:`array` in order, of the rows ``start:stop``.

        Each is an array, or for a text column (its table of strings, row codes into it), so
        :attr:`array` and :meth:`to_pandas` each build it in their own form without a string
        per row. ``wanted`` keeps only those columns (call-site texts are made only if wanted).
        """
        raw = self.raw[start:stop]
        table = self._patterns
        trace = self._trace
        locations = trace.locations
        sites = trace.callsites
        regions = trace.regions

        # Each column is made only if wanted, and row codes are 32-bit: the reports ask for a
        # few columns, and temporaries count in the peak memory of a scan's outputs.
        def text(values: list[str]) -> np.ndarray:
            return np.array(values, dtype=object)

        def codes(field: str, none: int) -> np.ndarray:
            values = raw[field]
            return np.where(values == _NO_REF, none, values).astype(np.int32)

        def rank_of(field: str) -> np.ndarray:
            ranks = [-1 if loc.rank is None else loc.rank for loc in locations]
            return np.array([*ranks, -1], dtype=np.int32)[codes(field, len(locations))]

        def thread() -> np.ndarray:
            threads = np.array([loc.thread for loc in locations] + [0], dtype=np.int32)
            return threads[codes("location", len(locations))]

        def seconds(field: str) -> np.ndarray:
            return raw[field].astype(np.float64) * 1e-9

        def distance() -> np.ndarray:
            values = seconds("optimal_distance")
            values[raw["optimal_distance"] < 0] = np.nan
            return values

        def line() -> np.ndarray:
            lines = np.array([s.line for s in sites] + [0], dtype=np.uint32)
            return lines[codes("callsite", len(sites))]

        def site() -> np.ndarray:
            return codes("callsite", len(sites))

        def region() -> np.ndarray:
            return codes("region", len(regions))

        def pattern(attribute: str) -> tuple[np.ndarray, np.ndarray]:
            return text([getattr(p, attribute) for p in table]), raw["pattern"].astype(np.int32)

        makers: list[tuple[str, Any]] = [
            ("pattern", lambda: pattern("key")),
            ("code", lambda: pattern("code")),
            ("name", lambda: pattern("name")),
            ("family", lambda: pattern("family")),
            ("rank", lambda: rank_of("location")),
            ("thread", thread),
            ("location", lambda: raw["location"].astype(np.int64)),
            ("peer_rank", lambda: rank_of("peer_location")),
            ("time", lambda: seconds("time")),
            ("idle", lambda: seconds("idle")),
            ("optimal_distance", distance),
            ("bytes", lambda: raw["bytes"].astype(np.uint64)),
            ("callsite", lambda: self._callsite_codes(start, stop)),
            ("file", lambda: (text([*(s.file for s in sites), ""]), site())),
            ("line", line),
            ("call", lambda: (text([*(r.name for r in regions), ""]), region())),
            ("suspected", lambda: (raw["flags"] & 1) != 0),
        ]
        keep = set(wanted) if wanted is not None else None
        return [(name, make()) for name, make in makers if keep is None or name in keep]

    @property
    def array(self) -> np.ndarray:
        """One row per occurrence as a NumPy structured array (fields in the class docstring).

        Made on each access and not kept (hold on to it to use it several times): numbers
        are columns, a text column refers to one shared string per distinct value (8 bytes a
        row), about 110 bytes per occurrence in all. The diagnoses are :attr:`diagnoses`.
        """
        return self._array()

    def _array(self, start: int = 0, stop: int | None = None) -> np.ndarray:
        columns: list[tuple[str, np.ndarray]] = []
        for name, values in self._columns(None, start, stop):
            if isinstance(values, tuple):
                texts, rows = values
                values = texts[rows] if len(texts) else np.empty(len(rows), dtype=object)
            columns.append((name, values))
        dtype = np.dtype([(name, values.dtype) for name, values in columns])
        out = np.empty(len(self.raw[start:stop]), dtype=dtype)
        for name, values in columns:
            out[name] = values
        return out

    def to_pandas(self, diagnosis: bool = False) -> Any:
        """Return the occurrences as a pandas DataFrame, the text columns categorical.

        Built from the C++ rows, the text columns as codes into their tables.
        ``diagnosis=True`` adds the ``diagnosis`` column, one formatted string per occurrence
        (the only column that holds a string per row).
        """
        frame = self._frame(None)
        if diagnosis:
            frame["diagnosis"] = list(self.diagnoses)
        return frame

    def _frame(self, wanted: Sequence[str] | None) -> Any:
        pd = _pandas()
        data: dict[str, Any] = {}
        for name, values in self._columns(wanted):
            if isinstance(values, tuple):
                texts, rows = values
                categories, inverse = np.unique(texts.astype(str), return_inverse=True)
                values = pd.Categorical.from_codes(
                    inverse.reshape(-1)[rows] if len(texts) else rows, categories=categories
                )
            data[name] = values
        return pd.DataFrame(data)

    def table(self, top: int | None = None) -> Any:
        """Return the main columns as a DataFrame, the worst occurrences first.

        ``top`` keeps that many rows; the diagnoses are formatted for the rows returned only.
        """
        columns = ["code", "name", "rank", "peer_rank", "callsite", "call", "time", "idle"]
        columns.append("optimal_distance")
        frame = self._frame(columns)
        order = np.argsort(-self.raw["idle"], kind="stable")
        if top is not None:
            order = order[: max(int(top), 0)]
        frame = frame[columns].iloc[order]
        frame["diagnosis"] = self.diagnoses.rows(order)
        return frame

    # --- aggregates ------------------------------------------------------------------------

    def total(self, pattern: str | None = None) -> float:
        """Seconds lost in the occurrences of `pattern` (key, code or family; None: all).

        A pattern whose time is part of another selected one (Scalasca's Wrong Order inside
        Late Sender) is not counted twice. Families overlap (ParJava's late send and Scalasca's
        Late Sender measure the same waiting), so a total over several families counts some
        waiting more than once. The nanoseconds are summed exactly, then made seconds.
        """
        return self._totals.total(pattern)

    def count(self, pattern: str | None = None) -> int:
        """Occurrences of `pattern` (key, code or family; None: all)."""
        return self._totals.count(pattern)

    @cached_property
    def _totals(self) -> PatternTotals:
        return PatternTotals.of_rows(self._patterns, self.raw)

    def _mask(self, pattern: str | None) -> np.ndarray:
        # From the C++ rows' pattern ids, so selections do not build :attr:`array`.
        return np.isin(self.raw["pattern"], chosen_patterns(self._patterns, pattern))

    def select(self, pattern: str | None = None, rank: int | None = None) -> np.ndarray:
        """Return the rows of :attr:`array` for one pattern (key, code, family) and/or one rank."""
        mask = self._mask(pattern)
        array = self.array
        if rank is not None:
            mask &= array["rank"] == rank
        return array[mask]

    def _group(self, keys: Sequence[str]) -> Any:
        """Return occurrences, total, mean and max idle per distinct `keys`.

        Largest total first, ties in order of first occurrence; from the rows, without
        building :attr:`array`.
        """
        frame = self._frame([*keys, "idle"])
        out = (
            frame.groupby(list(keys), sort=False, observed=True)["idle"]
            .agg(occurrences="size", total="sum", max="max")
            .reset_index()
        )
        out["mean"] = out["total"] / out["occurrences"]
        return out.sort_values("total", ascending=False, kind="stable").reset_index(drop=True)

    def by_pattern(self) -> Any:
        """Per pattern: occurrences, total, mean and max lost seconds (a pandas DataFrame)."""
        return _pandas().DataFrame(
            self._group(["family", "code", "pattern", "name"]),
            columns=["family", "code", "pattern", "name", "occurrences", "total", "mean", "max"],
        )

    def by_callsite(self) -> Any:
        """Per pattern and call site (file:line and call): occurrences and lost seconds."""
        return _pandas().DataFrame(
            self._group(["code", "pattern", "callsite", "call"]),
            columns=["code", "pattern", "callsite", "call", "occurrences", "total", "mean", "max"],
        )

    def by_location(self) -> Any:
        """Per pattern and rank/thread: occurrences and lost seconds."""
        return _pandas().DataFrame(
            self._group(["code", "pattern", "rank", "thread"]),
            columns=["code", "pattern", "rank", "thread", "occurrences", "total", "mean", "max"],
        )

    def tree(self, root_causes: bool = False) -> MetricTree:
        """Build the Cube-like metric tree: family > group > pattern > call site > location.

        ``root_causes=True`` adds the "Root causes (delay costs)" branch
        (:meth:`parjava.causes.RootCauses.tree`): the same waiting charged to the computation
        that caused it, so the root's value does not count it again.
        """
        tree = build_tree(FindingsSummary.of(self, top=0))
        if root_causes:
            from .causes import root_causes as delay_costs

            tree.children.append(delay_costs(self.trace).tree())
        return tree

    # --- reports ---------------------------------------------------------------------------

    def report(self, top: int = 10) -> str:
        """Render a text report: thresholds, metric tree, worst call sites and occurrences."""
        return text_report(self, top=top)

    def to_html(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        top: int = 50,
        source_dirs: Sequence[str | os.PathLike[str]] = (),
    ) -> str:
        """Render an HTML report with the source lines of each call site; write it to `path`.

        Source files are looked up as recorded, then relative to each of `source_dirs`, the
        trace's directory and the current directory; the report says when one is not found.
        """
        text = html_report(self, top=top, source_dirs=source_dirs)
        if path is not None:
            with open(path, "w", encoding="utf-8") as out:
                out.write(text)
        return text

    def _repr_html_(self) -> str:
        return html_summary(self)

    def to_csv(self, path: str | os.PathLike[str] | None = None) -> str:
        """Return the occurrences as CSV: the fields of :attr:`array`, then ``diagnosis``.

        The whole text is made (several hundred bytes per occurrence); :meth:`write_csv`
        writes the same to a file without holding it.
        """
        import io

        buffer = io.StringIO()
        self.write_csv(buffer)
        text = buffer.getvalue()
        if path is not None:
            with open(path, "w", encoding="utf-8", newline="") as out:
                out.write(text)
        return text

    def write_csv(self, out: str | os.PathLike[str] | TextIO) -> None:
        """Write :meth:`to_csv`'s text to a path or an open text file, a block at a time.

        Holds one block of rows (:attr:`array` and diagnoses of 8 192 occurrences) at a time,
        not the text, so the memory it needs does not grow with the findings. A file opened
        here is written with ``newline=""`` (the rows end in CR LF, as in the text).
        """
        import csv

        if isinstance(out, (str, bytes, os.PathLike)):
            with open(out, "w", encoding="utf-8", newline="") as stream:
                self.write_csv(stream)
            return
        writer = csv.writer(out)
        writer.writerow([*self._csv_names(), "diagnosis"])
        self._write_csv_rows(writer)

    def _csv_names(self) -> list[str]:
        return list(self._array(0, 0).dtype.names or ())

    def _write_csv_rows(self, writer: Any) -> None:
        """Write the CSV rows without the header (parallel.scan_write writes merged blocks)."""
        names = self._csv_names()
        for start in range(0, len(self), _CSV_BLOCK):
            stop = min(start + _CSV_BLOCK, len(self))
            a = self._array(start, stop)
            diagnoses = self.diagnoses.rows(range(start, stop))
            for row, diagnosis in zip(a, diagnoses):
                writer.writerow([*(_plain(row[n]) for n in names), diagnosis])

    def to_json(self, path: str | os.PathLike[str] | None = None) -> str:
        """Parameters, notes, per-pattern totals and every occurrence as JSON.

        The whole text is made; :meth:`write_json` writes the same to a file without holding
        it.
        """
        import io

        buffer = io.StringIO()
        self.write_json(buffer)
        text = buffer.getvalue()
        if path is not None:
            with open(path, "w", encoding="utf-8") as out:
                out.write(text)
        return text

    def write_json(self, out: str | os.PathLike[str] | TextIO) -> None:
        """Write :meth:`to_json`'s text to a path or an open text file, a block at a time.

        Holds the occurrences of one block (8 192) as Python objects at a time, not the
        document.
        """
        if isinstance(out, (str, bytes, os.PathLike)):
            with open(out, "w", encoding="utf-8") as stream:
                self.write_json(stream)
            return
        writer = JsonWriter(out, self._json_head(self._totals))
        for start in range(0, len(self), _CSV_BLOCK):
            writer.add(self, start, min(start + _CSV_BLOCK, len(self)))
        writer.close()

    def _json_head(self, totals: PatternTotals) -> dict[str, Any]:
        """Return the JSON document before its findings (`totals`: of every finding)."""
        return {
            "parameters": {k: _describe(v) for k, v in self.parameters.items()},
            "eager_limit": list(self.eager_limit),
            "notes": self.notes,
            "events_scanned": self.events_scanned,
            "patterns": {
                key: {"occurrences": totals.count(key), "total": totals.total(key)}
                for key in sorted({self._patterns[i].key for i in totals.present()})
            },
        }

    def rescan(self, **changes: Any) -> Findings:
        """Scan the same trace (already in memory) with some parameters changed."""
        unknown = set(changes) - set(self.parameters)
        if unknown:
            raise UsageError(f"rescan: unknown parameter(s) {', '.join(sorted(unknown))}")
        parameters = dict(self.parameters)
        parameters.update(changes)
        return scan(self._trace, **parameters)

    def __repr__(self) -> str:
        families = {}
        for family in ("parjava", "scalasca", "pgas"):
            n = self.count(family) if len(self) else 0
            if n:
                families[family] = (n, self.total(family))
        parts = [f"{family}: {n} ({seconds_text(t)})" for family, (n, t) in families.items()]
        return (
            f"<Findings {len(self)} occurrences" + (f"; {'; '.join(parts)}" if parts else "") + ">"
        )


def _pandas() -> Any:
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - pandas is a test dependency
        raise MissingDependencyError(
            "this needs pandas: pip install pandas (or parjava[pandas])"
        ) from exc
    return pd


def _describe(value: Any) -> Any:
    if isinstance(value, Machine):
        return f"machine {value.name}"
    return value


__all__ = [
    "DEFAULT_EAGER_PRESET",
    "DEFAULT_EPS",
    "DEFAULT_SEND_RECV_DELTA",
    "Diagnoses",
    "Findings",
    "MetricTree",
    "PatternInfo",
    "patterns",
    "scan",
]
