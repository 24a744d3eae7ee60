"""The trace container behind ``parjava.Trace``: columns, definition tables, selections.

:class:`TraceData` holds everything a trace *is* (columns, tables, matching, summaries);
:class:`parjava.Trace` (``trace.py``) adds the analyses that read it (``intervals()``,
``timeline()``). The split keeps the imports one-way: the analysis modules import this one,
``trace.py`` imports them.

Columns are NumPy arrays that *view* the C++ memory without copying; each array's ``base``
is the C++ trace, which therefore stays alive as long as any column does. The views are
read-only: the matching columns (``match``, ``link``) index the others.

Units: event times are integer nanoseconds since the trace's time origin (column ``time``);
everything else in the Python API is in SI seconds (``time_window``, :meth:`summary`).
"""

from __future__ import annotations

import enum
import html
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from ._core_loader import load_core
from .errors import UsageError

_NO_REF = 0xFFFFFFFF
_T = TypeVar("_T", bound="TraceData")


class EventKind(enum.IntEnum):
    """What an event is (C++ ``parjava::trace::EventKind``; column ``kind``).

    The meaning of the other columns for each kind is documented beside the C++ enum in
    ``cpp/include/parjava/trace/trace.hpp``.
    """

    ENTER = 0
    LEAVE = 1
    SEND = 2
    ISEND_POST = 3
    ISEND_COMPLETE = 4
    IRECV_POST = 5
    RECV = 6
    IRECV_COMPLETE = 7
    REQUEST_TEST = 8
    REQUEST_CANCELLED = 9
    COLLECTIVE_BEGIN = 10
    COLLECTIVE_END = 11
    LOCK_REQUEST = 12
    LOCK_ACQUIRE = 13
    LOCK_RELEASE = 14
    RMA_PUT = 15
    RMA_GET = 16
    INTERVAL_BEGIN = 17
    INTERVAL_END = 18
    PROGRAM_BEGIN = 19
    PROGRAM_END = 20
    MEASUREMENT_ON_OFF = 21
    METRIC = 22
    GENERIC = 23


class Category(enum.IntEnum):
    """The seven categories of MPI time of seed 004 (notes 004 §5), also timeline colours."""

    COLLECTIVE = 1
    BLOCKING_SEND = 2
    NONBLOCKING_SEND = 3
    BLOCKING_RECEIVE_WAIT = 4
    NONBLOCKING_RECEIVE_TEST = 5
    OTHER = 6
    USER_CODE = 7

    @property
    def label(self) -> str:
        """Human-readable name, as used for the columns of :meth:`Trace.summary`."""
        return _CATEGORY_LABELS[self]


_CATEGORY_LABELS = {
    Category.COLLECTIVE: "collective",
    Category.BLOCKING_SEND: "blocking send",
    Category.NONBLOCKING_SEND: "non-blocking send",
    Category.BLOCKING_RECEIVE_WAIT: "blocking receive/wait",
    Category.NONBLOCKING_RECEIVE_TEST: "non-blocking receive/test",
    Category.OTHER: "other MPI",
    Category.USER_CODE: "user code",
}

_LOCATION_TYPES = ("cpu thread", "gpu", "metric", "other")
_PARADIGMS = ("user", "mpi", "shmem", "pthread", "openmp", "measurement", "unknown")
_ROLES = (
    "function",
    "wrapper",
    "loop",
    "code",
    "barrier",
    "collective",
    "point-to-point",
    "file i/o",
    "lock",
    "interval",
    "artificial",
    "unknown",
)
_METRIC_TYPES = ("int64", "uint64", "double")

COLUMNS = (
    "time",
    "kind",
    "location",
    "region",
    "peer",
    "tag",
    "comm",
    "bytes",
    "aux",
    "callsite",
    "match",
    "link",
)


@dataclass(frozen=True)
class Location:
    """A thread of a process (or a GPU stream, or a metric recorder)."""

    index: int
    id: int
    name: str
    type: str
    rank: int | None
    thread: int
    group: int | None

    @property
    def label(self) -> str:
        """``"rank 3"`` or ``"rank 3 thread 1"``; the OTF2 name for locations without a rank."""
        if self.rank is None:
            return self.name or f"location {self.id}"
        return f"rank {self.rank}" + (f" thread {self.thread}" if self.thread else "")


@dataclass(frozen=True)
class Region:
    """A code region: an MPI/SHMEM call (``function`` set) or user code."""

    index: int
    name: str
    function: str | None
    category: Category
    paradigm: str
    role: str
    group: str
    file: str
    line_begin: int
    line_end: int


@dataclass(frozen=True)
class Communicator:
    """An MPI communicator; ``members`` are world ranks in communicator-rank order."""

    index: int
    name: str
    members: tuple[int, ...]
    parent: int | None
    self: bool


@dataclass(frozen=True)
class CallSite:
    """Where a runtime call was made: ``file:line`` in ``function``."""

    index: int
    file: str
    line: int
    function: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class Metric:
    """A sampled metric (PAPI counter, power, memory); values are in Metric events' ``aux``."""

    index: int
    name: str
    unit: str
    type: str


def _ref(value: int) -> int | None:
    return None if value == _NO_REF else value


def _rank(value: int) -> int | None:
    return None if value < 0 else value


class EventColumns:
    """The event columns of a :class:`Trace` as read-only NumPy views (no copy).

    Attributes: ``time`` (int64 ns), ``kind`` (uint8, :class:`EventKind`), ``location``,
    ``region``, ``comm``, ``callsite`` (uint32 indices, ``0xFFFFFFFF`` = none), ``peer`` (int32
    world rank, -1 = none), ``tag`` (int32), ``bytes``, ``aux`` (uint64), ``match``, ``link``
    (int32 event indices, -1 = none).
    """

    def __init__(self, core: Any) -> None:
        self._core = core
        self._cache: dict[str, np.ndarray] = {}

    def __getattr__(self, name: str) -> np.ndarray:
        if name.startswith("_") or name not in COLUMNS:
            raise AttributeError(name)
        if name not in self._cache:
            self._cache[name] = self._core.column(name)
        return self._cache[name]

    def __getitem__(self, name: str) -> np.ndarray:
        if name not in COLUMNS:
            raise KeyError(name)
        return getattr(self, name)

    def __iter__(self) -> Iterator[str]:
        return iter(COLUMNS)

    def __dir__(self) -> list[str]:
        return [*COLUMNS, "keys"]

    def keys(self) -> tuple[str, ...]:
        """Return the column names."""
        return COLUMNS


class TraceData:
    """A columnar event trace (the data of :class:`parjava.Trace`, without its analyses).

    ``trace.events.time``, ``trace.events.kind``, ... are NumPy views of the columns;
    :attr:`locations`, :attr:`regions`, :attr:`communicators`, :attr:`callsites` and
    :attr:`metrics` are the definition tables the index columns refer to. The matching
    (send↔receive, request post↔completion, collective instances, Enter↔Leave) is computed
    when the trace is loaded; what could not be paired is counted in :attr:`unmatched`.
    """

    def __init__(self, core: Any) -> None:
        """Wrap a ``parjava._core.Trace`` (other parts return those, e.g. model traces).

        To read an OTF2 archive use :meth:`open`: ``Trace(path)`` raises :class:`TypeError`
        (it used to be accepted and to fail later, deep inside an analysis).
        """
        if isinstance(core, (str, bytes, os.PathLike)):
            raise TypeError(
                f"Trace({os.fsdecode(core)!r}): the constructor wraps an already loaded trace; "
                "read an OTF2 archive with Trace.open(path)"
            )
        if not isinstance(core, load_core().Trace):
            raise TypeError(
                f"Trace(...) wraps a parjava._core.Trace, not a {type(core).__name__}; "
                "read an OTF2 archive with Trace.open(path)"
            )
        self._core = core
        self._events = EventColumns(core)
        self._definitions: dict[str, Any] = {}

    # --- construction and output ---------------------------------------------------------

    @classmethod
    def open(
        cls: type[_T],
        path: str | os.PathLike[str],
        threads: int | None = None,
        *,
        correct_clocks: bool = False,
    ) -> _T:
        """Read an OTF2 archive: its anchor file (``traces.otf2``) or its directory.

        ``threads`` readers work at once (default: the machine's cores, at most 8); the
        result does not depend on it. ``correct_clocks=True`` removes the clock-condition
        violations (:attr:`clock_violations`) with the controlled logical clock, so that no
        receive precedes its send and no collective is left before it was entered; what it
        did is in :attr:`clock_correction`. Raises :class:`parjava.TraceError` naming the
        file and the defect when the archive is missing, empty, truncated or not OTF2.
        """
        if threads is not None and threads < 1:
            raise UsageError(f"Trace.open: threads must be at least 1, not {threads}")
        return cls(load_core().Trace.open(os.fspath(path), threads or 0, bool(correct_clocks)))

    def write(self, path: str | os.PathLike[str]) -> None:
        """Write the trace as an OTF2 archive (a new directory, or ``DIR/NAME.otf2``).

        ``Trace.open(path)`` gives back the same columns; ``otf2-print``, Vampir and Scalasca
        read it. An existing archive is never overwritten (:class:`parjava.TraceError`).
        """
        self._core.write(os.fspath(path))

    @property
    def core(self) -> Any:
        """The ``parjava._core.Trace`` (a ``std::shared_ptr``), for other parts' bindings."""
        return self._core

    # --- sizes ----------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._core)

    @property
    def location_count(self) -> int:
        """Number of locations (threads, GPU streams, metric recorders)."""
        return int(self._core.location_count)

    @property
    def process_count(self) -> int:
        """Number of MPI processes (distinct ranks); 0 for a trace without MPI."""
        return int(self._core.process_count)

    @property
    def memory_bytes(self) -> int:
        """Bytes held by the event columns and index arrays."""
        return int(self._core.memory_bytes)

    @property
    def start(self) -> float:
        """Time of the first event, in seconds since the time origin (0.0 when empty)."""
        time = self.events.time
        return float(time.min()) / 1e9 if len(time) else 0.0

    @property
    def end(self) -> float:
        """Time of the last event, in seconds since the time origin (0.0 when empty)."""
        time = self.events.time
        return float(time.max()) / 1e9 if len(time) else 0.0

    @property
    def duration(self) -> float:
        """Seconds from the first to the last event."""
        return self.end - self.start

    # --- columns and definitions ---------------------------------------------------------

    @property
    def events(self) -> EventColumns:
        """The event columns (read-only NumPy views)."""
        return self._events

    @property
    def location_offsets(self) -> np.ndarray:
        """Events of location ``l`` are ``[location_offsets[l], location_offsets[l + 1])``."""
        return self._core.column("location_offsets")

    @property
    def collective_members(self) -> np.ndarray:
        """CollectiveEnd event indices grouped by collective instance."""
        return self._core.column("collective_members")

    def _table(self, name: str, build: Any) -> Any:
        if name not in self._definitions:
            self._definitions[name] = build()
        return self._definitions[name]

    @property
    def locations(self) -> list[Location]:
        """Locations, indexed by the ``location`` column."""
        return self._table(
            "locations",
            lambda: [
                Location(
                    i,
                    d["id"],
                    d["name"],
                    _LOCATION_TYPES[d["type"]],
                    _rank(d["rank"]),
                    d["thread"],
                    _ref(d["group"]),
                )
                for i, d in enumerate(self._core.locations())
            ],
        )

    @property
    def regions(self) -> list[Region]:
        """Regions, indexed by the ``region`` column (except for Metric events)."""
        return self._table(
            "regions",
            lambda: [
                Region(
                    i,
                    d["name"],
                    d["function"],
                    Category(d["category"]),
                    _PARADIGMS[d["paradigm"]],
                    _ROLES[d["role"]],
                    d["group"],
                    d["file"],
                    d["line_begin"],
                    d["line_end"],
                )
                for i, d in enumerate(self._core.regions())
            ],
        )

    @property
    def communicators(self) -> list[Communicator]:
        """Communicators, indexed by the ``comm`` column."""
        return self._table(
            "communicators",
            lambda: [
                Communicator(i, d["name"], tuple(d["members"]), _ref(d["parent"]), d["self"])
                for i, d in enumerate(self._core.communicators())
            ],
        )

    @property
    def callsites(self) -> list[CallSite]:
        """Call sites (file:line), indexed by the ``callsite`` column."""
        return self._table(
            "callsites",
            lambda: [
                CallSite(i, d["file"], d["line"], d["function"])
                for i, d in enumerate(self._core.callsites())
            ],
        )

    @property
    def metrics(self) -> list[Metric]:
        """Metrics, indexed by the ``region`` column of Metric events."""
        return self._table(
            "metrics",
            lambda: [
                Metric(i, d["name"], d["unit"], _METRIC_TYPES[d["type"]])
                for i, d in enumerate(self._core.metrics())
            ],
        )

    @property
    def location_groups(self) -> list[dict[str, Any]]:
        """Processes (OTF2 location groups): name, rank, system node."""
        return self._table("location_groups", self._core.location_groups)

    @property
    def system_nodes(self) -> list[dict[str, Any]]:
        """The system tree (machine, nodes): name, class name, parent index."""
        return self._table("system_nodes", self._core.system_nodes)

    @property
    def collectives(self) -> dict[str, Any]:
        """Collective instances as columns (NumPy arrays; ``pandas.DataFrame(...)`` them).

        ``comm``, ``function``, ``op``, ``root`` (world rank, -1 = none), ``first_member`` and
        ``member_count`` (a range of :attr:`collective_members`), ``expected`` (the
        communicator's size).
        """
        return self._table("collectives", self._core.collectives)

    @property
    def unmatched(self) -> dict[str, int]:
        """What matching could not pair, by kind (all zero for a complete trace)."""
        return self._core.unmatched()

    @property
    def clock_violations(self) -> dict[str, int]:
        """Timestamps that contradict the matching, by kind (all zero for consistent clocks).

        ``receive_before_send``: a receive completed before its send started;
        ``collective_exit_before_entry``: a member left a blocking collective before a member
        it waits for entered it (the last one for a barrier or N-to-N, the root for 1-to-N,
        the last sender at the root of N-to-1, the lower ranks for a scan). Counted as
        Scalasca counts them; ``Trace.open(path, correct_clocks=True)`` removes them.
        """
        return self._core.clock_violations()

    @property
    def clock_violation_largest(self) -> float:
        """Seconds by which the worst violating event is early (0.0 without violations)."""
        return float(self._core.clock_violation_largest_ns) / 1e9

    @property
    def clock_correction(self) -> dict[str, Any] | None:
        """What ``correct_clocks=True`` did, or None when the clocks were not corrected.

        ``violations`` (by kind, as :attr:`clock_violations` was before), ``jumps`` (events
        moved forward to follow what they wait for), ``events_moved``, ``largest_shift_ns``,
        ``largest_violation_ns`` and ``cycles_broken`` (dependencies of a damaged trace that
        formed a cycle and were ignored; then some violations remain).
        """
        return self._core.clock_correction()

    @property
    def metadata(self) -> dict[str, Any]:
        """Archive facts: path, creator, OTF2 version, timer resolution, warnings, ..."""
        return self._core.metadata()

    def kind_counts(self) -> dict[str, int]:
        """Count the events of each kind present, e.g. ``{"ENTER": 42, ...}``."""
        counts = np.bincount(self.events.kind, minlength=len(EventKind))
        return {k.name: int(counts[k]) for k in EventKind if counts[k]}

    # --- selections and summaries ---------------------------------------------------------

    def _region_ids(self, regions: Iterable[int | str]) -> list[int]:
        by_name: dict[str, list[int]] = {}
        for r in self.regions:
            by_name.setdefault(r.name, []).append(r.index)
        ids: list[int] = []
        for wanted in regions:
            if isinstance(wanted, str):
                if wanted not in by_name:
                    raise UsageError(f"filter: no region named {wanted!r} in the trace")
                ids.extend(by_name[wanted])
            else:
                ids.append(int(wanted))
        return ids

    def _location_ids(self, locations: Iterable[int | str]) -> list[int]:
        by_label: dict[str, int] = {}
        for loc in self.locations:
            by_label.setdefault(loc.label, loc.index)
            by_label.setdefault(loc.name, loc.index)
        ids: list[int] = []
        for wanted in locations:
            if isinstance(wanted, str):
                if wanted not in by_label:
                    raise UsageError(f"filter: no location named {wanted!r} in the trace")
                ids.append(by_label[wanted])
            else:
                ids.append(int(wanted))
        return ids

    def filter(
        self: _T,
        time_window: tuple[float, float] | None = None,
        locations: Sequence[int | str] | None = None,
        regions: Sequence[int | str] | None = None,
        ranks: Sequence[int] | None = None,
    ) -> _T:
        """Return a new trace with the events that pass every given condition.

        ``time_window=(start, end)`` keeps events with ``start <= t < end`` (seconds since
        the time origin); ``locations`` are location indices or labels (``"rank 3"``);
        ``ranks`` keeps all threads of those processes; ``regions`` are region names or
        indices and keep each region's Enter/Leave and the events directly inside it.
        The result is matched on its own: a message whose partner was filtered out shows in
        its :attr:`unmatched` report.
        """
        window = None
        if time_window is not None:
            start, end = time_window
            if end < start:
                raise UsageError(f"filter: time_window end {end} is before its start {start}")
            window = (round(start * 1e9), round(end * 1e9))
        location_ids: list[int] = []
        if locations is not None:
            location_ids = self._location_ids(locations)
            if not location_ids:
                raise UsageError("filter: locations is empty; pass None to keep all")
        if ranks is not None:
            wanted = {int(r) for r in ranks}
            by_rank = [loc.index for loc in self.locations if loc.rank in wanted]
            if not by_rank:
                raise UsageError(f"filter: no location has a rank in {sorted(wanted)}")
            location_ids = sorted(set(location_ids) & set(by_rank)) if locations else by_rank
            if not location_ids:
                raise UsageError("filter: no location passes both locations and ranks")
        region_ids = self._region_ids(regions) if regions is not None else []
        if regions is not None and not region_ids:
            raise UsageError("filter: regions is empty; pass None to keep all")
        return type(self)(self._core.filter(window, location_ids, region_ids))

    def summary(self) -> Any:
        """Seconds each thread spends in each seed-004 category (notes 004 §5).

        Rows are CPU-thread locations, columns the seven categories (:class:`Category`
        labels: "collective", ..., "user code") and "total" (first to last event). Time in
        an MPI/SHMEM call counts for its category, the rest is user code. Returns a
        ``pandas.DataFrame`` when pandas is installed, else ``{location label: {column:
        seconds}}``.
        """
        times = np.asarray(self._core.time_by_category(), dtype=np.float64) / 1e9
        rows = [
            loc for loc in self.locations if loc.type in ("cpu thread", "other")
        ] or self.locations
        labels = [c.label for c in Category]
        data = {
            loc.label: {
                **{labels[c]: float(times[loc.index, c]) for c in range(7)},
                "total": float(times[loc.index].sum()),
            }
            for loc in rows
        }
        try:
            import pandas as pd
        except ImportError:
            return data
        frame = pd.DataFrame.from_dict(data, orient="index", columns=[*labels, "total"])
        frame.index.name = "location"
        return frame

    def to_pandas(self) -> Any:
        """All events as a ``pandas.DataFrame`` with readable names (a copy).

        Columns: ``time`` (ns), ``location``, ``rank``, ``thread``, ``kind``, ``region``,
        ``peer``, ``tag``, ``comm``, ``bytes``, ``aux``, ``callsite``, ``match``, ``link``;
        ``kind``, ``region``, ``comm`` and ``callsite`` are categoricals of names (missing =
        NaN), ``location`` holds location labels.
        """
        try:
            import pandas as pd
        except ImportError as exc:
            from .errors import MissingDependencyError

            raise MissingDependencyError(
                "Trace.to_pandas needs pandas: pip install pandas"
            ) from exc
        e = self.events
        locations = self.locations

        def categorical(codes: np.ndarray, names: list[str]) -> Any:
            # Several ids may share a name (e.g. regions of the same name in two files).
            unique, index = np.unique(np.asarray(names, dtype=object), return_inverse=True)
            lookup = np.append(index, -1).astype(np.int64)
            ids = codes.astype(np.int64)
            ids[(ids < 0) | (ids >= len(names))] = len(names)
            return pd.Categorical.from_codes(lookup[ids], categories=list(unique))

        kind = e.kind
        region_codes = e.region.astype(np.int64)
        region_codes[kind == EventKind.METRIC] = -1
        loc_codes = e.location
        frame = pd.DataFrame(
            {
                "time": e.time,
                "location": categorical(loc_codes, [loc.label for loc in locations]),
                "rank": np.array([-1 if loc.rank is None else loc.rank for loc in locations])[
                    loc_codes
                ]
                if locations
                else np.empty(0, dtype=np.int64),
                "thread": np.array([loc.thread for loc in locations])[loc_codes]
                if locations
                else np.empty(0, dtype=np.int64),
                "kind": pd.Categorical.from_codes(
                    kind.astype(np.int64), categories=[k.name for k in EventKind]
                ),
                "region": categorical(region_codes, [r.name for r in self.regions]),
                "peer": e.peer,
                "tag": e.tag,
                "comm": categorical(e.comm, [c.name for c in self.communicators]),
                "bytes": e.bytes,
                "aux": e.aux,
                "callsite": categorical(e.callsite, [str(s) for s in self.callsites]),
                "match": e.match,
                "link": e.link,
            }
        )
        return frame

    # --- display ----------------------------------------------------------------------------

    def _facts(self) -> list[tuple[str, str]]:
        md = self.metadata
        unmatched = sum(self.unmatched.values())
        return [
            ("events", f"{len(self):,}"),
            ("locations", f"{self.location_count} ({self.process_count} processes)"),
            ("time", f"{self.start:.6f} s to {self.end:.6f} s ({self.duration:.6f} s)"),
            ("unmatched", "none" if unmatched == 0 else f"{unmatched:,} (see .unmatched)"),
            ("clock condition", self._clock_text()),
            ("memory", f"{self.memory_bytes / 2**20:.1f} MiB"),
            ("creator", md["creator"] or "unknown"),
            ("source", md["path"] or "built in memory"),
        ]

    def _clock_text(self) -> str:
        violations = self.clock_violations
        correction = self.clock_correction
        total = sum(violations.values())
        corrected = ""
        if correction is not None:
            before = sum(correction["violations"].values())
            corrected = (
                f"{before:,} violations corrected (controlled logical clock, "
                f"{correction['events_moved']:,} events moved by up to "
                f"{correction['largest_shift_ns'] / 1e3:.3g} us)"
            )
            if total == 0:
                return corrected
        if total == 0:
            return "no violations"
        kinds = ", ".join(f"{n:,} {kind.replace('_', ' ')}" for kind, n in violations.items() if n)
        text = (
            f"{total:,} violations ({kinds}), up to {self.clock_violation_largest * 1e6:.3g} us "
            "early; Trace.open(..., correct_clocks=True) corrects them"
        )
        return f"{corrected}; {text}" if corrected else text

    def __repr__(self) -> str:
        md = self.metadata
        source = os.path.basename(md["path"]) if md["path"] else "in memory"
        unmatched = sum(self.unmatched.values())
        return (
            f"<parjava.Trace {len(self):,} events, {self.location_count} locations "
            f"({self.process_count} processes), {self.duration:.6f} s, "
            f"{unmatched} unmatched, {sum(self.clock_violations.values())} clock violations, "
            f"{source}>"
        )

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
            f"<td style='text-align:left'>{html.escape(v)}</td></tr>"
            for k, v in self._facts()
        )
        kinds = ", ".join(f"{k.lower()} {n:,}" for k, n in self.kind_counts().items())
        return (
            "<div><b>parjava.Trace</b><table>"
            + rows
            + f"<tr><th style='text-align:left'>kinds</th><td style='text-align:left'>"
            f"{html.escape(kinds)}</td></tr></table></div>"
        )


def otf2_record_name(record: int) -> str:
    """Name the OTF2 record (``"COMM_CREATE"``) of a Generic event's ``aux`` value."""
    return str(load_core().otf2_record_name(int(record)))


__all__ = [
    "COLUMNS",
    "CallSite",
    "Category",
    "Communicator",
    "EventColumns",
    "EventKind",
    "Location",
    "Metric",
    "Region",
    "TraceData",
    "otf2_record_name",
]
