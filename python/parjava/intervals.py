"""Interval efficiency analysis of a trace: where the time goes, per interval and per process.

``trace.intervals()`` splits a run into a tree of intervals (the DVM method of seed 004,
notes 004 §2-§6, and the DVM Predictor's characteristics, notes 002 §2, §S.1-§S.2). Level 0
is the whole run; nested intervals come from the tracer's markers
(``parjava_interval_begin/end``), from ``MPI_Pcontrol`` phases and from user regions (OTF2
Enter/Leave of user functions, as Score-P writes them). Repeated executions of an interval
are merged (``exe_count``) and their values accumulate.

For every interval and process the analysis gives execution time, user-code (CPU) time, MPI
time, communication split into SendRecv / collective / all-to-all, idle time, load
imbalance, potential and real synchronisation, time variation, time of start of non-blocking
operations, overlap of communication with computation and insufficient parallelism, and for
the interval the main characteristics: productive and total time, efficiency, lost time and
its components, with min/max/mean over the processes.

The seeds leave some definitions open; each is a parameter of :func:`intervals` with a
documented default (see ``docs/intervals.md``). All times are in seconds.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from ._core_loader import load_core
from ._interval_html import LABELS, characteristics_table, explorer, page
from ._interval_options import ATTRIBUTION, EXECUTION, LOAD, PRODUCTIVE, SENDRECV, SOURCES
from ._trace_data import TraceData
from .errors import UsageError

_MAIN = (
    "efficiency",
    "execution_time",
    "processes",
    "total_time",
    "productive_time",
    "productive_cpu",
    "productive_mpi",
    "lost_time",
    "lost_insufficient",
    "lost_mpi",
    "lost_idle",
)
_NS = 1e-9


def _choice(name: str, value: str, table: dict[str, str]) -> str:
    if value not in table:
        choices = ", ".join(repr(k) for k in table)
        raise UsageError(f"intervals: {name}={value!r} is not one of {choices}")
    return table[value]


def _core_trace(trace: Any) -> Any:
    if isinstance(trace, TraceData):
        return trace.core
    if isinstance(trace, (str, os.PathLike)):
        return TraceData.open(trace).core
    core_trace = getattr(load_core(), "Trace", None)
    if core_trace is not None and isinstance(trace, core_trace):
        return trace
    raise UsageError(
        f"intervals: expected a parjava.Trace or the path of an OTF2 archive, "
        f"got {type(trace).__name__}"
    )


def intervals(
    trace: TraceData | str | os.PathLike[str],
    *,
    sources: Iterable[str] = SOURCES,
    max_depth: int | None = None,
    productive: str = "cpu",
    attribution: str = "late",
    sendrecv: str = "calls",
    execution: str = "accumulated",
    load: str = "cpu",
    sequential: Iterable[str] = ("seq:*",),
    record_executions: bool = True,
    progress: bool | None = None,
) -> IntervalTree:
    """Analyse ``trace`` interval by interval; returns the :class:`IntervalTree`.

    Parameters (defaults in brackets; ``docs/intervals.md`` explains each choice):

    - ``sources`` [all]: where nested intervals come from, any of ``"markers"``
      (``parjava_interval_begin/end``), ``"pcontrol"`` (``MPI_Pcontrol`` phases: measurement
      on .. off) and ``"regions"`` (user-code regions, e.g. Score-P user instrumentation).
    - ``max_depth`` [None]: deepest interval level created; deeper intervals are folded
      into their ancestor (the root is level 0).
    - ``productive`` ["cpu"]: ``"cpu"`` counts all MPI time as lost (mode A, the numbers of the
      seed-004 example); ``"cpu+one-mpi"`` also counts the MPI time of the process with the
      least MPI time as productive (mode B, the note printed beside the example).
    - ``attribution`` ["late"]: which process carries the start skew of collectives and of
      receives posted before their send (potential synchronisation) and the end skew of
      collectives (time variation): ``"late"`` the late process, ``"waiting"`` the processes
      that would wait (DVM's definition).
    - ``sendrecv`` ["calls"]: SendRecv time as the time inside point-to-point calls, or
      ``"messages"``: per received message, exit of the receive − entry of the send.
    - ``execution`` ["accumulated"]: execution time of a repeated interval as the longest
      accumulated time of a process, or ``"per-execution"``: Σ over executions of the
      longest execution (as if each ended with a barrier).
    - ``load`` ["cpu"]: the load balanced by the load imbalance, user-code time or
      ``"cpu+mpi"`` (the formula as printed; it equals the idle time).
    - ``sequential`` [``"seq:*"``]: glob patterns of interval names that mark sequential
      parts every process repeats; (P − 1)/P of their user-code time is insufficient
      parallelism.
    - ``record_executions`` [True]: keep each execution's begin and end (for the timeline
      and :attr:`Interval.executions`).
    - ``progress`` [None]: show a progress bar (None: when stderr is a terminal).
    """
    options, settings = _options(
        sources=sources,
        max_depth=max_depth,
        productive=productive,
        attribution=attribution,
        sendrecv=sendrecv,
        execution=execution,
        load=load,
        sequential=sequential,
        record_executions=record_executions,
    )
    core = load_core()
    core_trace = _core_trace(trace)
    from ._progress import Progress

    bar = Progress(1, "intervals", progress)
    with bar:

        def report(done: int, total: int) -> None:
            bar.total = max(total, 1)
            bar.advance(done - bar.done, note="processes")

        tree = core.analyze_intervals(core_trace, options, report if bar.enabled else None)
    return IntervalTree(tree, settings)


def _options(
    *,
    sources: Iterable[str] = SOURCES,
    max_depth: int | None = None,
    productive: str = "cpu",
    attribution: str = "late",
    sendrecv: str = "calls",
    execution: str = "accumulated",
    load: str = "cpu",
    sequential: Iterable[str] = ("seq:*",),
    record_executions: bool = True,
) -> tuple[Any, dict[str, Any]]:
    """Return the core's IntervalOptions and the tree's settings for :func:`intervals`."""
    core = load_core()
    options = core.IntervalOptions()
    wanted = list(sources)
    unknown = [s for s in wanted if s not in SOURCES]
    if unknown:
        raise UsageError(
            f"intervals: unknown source(s) {', '.join(map(repr, unknown))}; choose from "
            f"{', '.join(SOURCES)}"
        )
    options.markers = "markers" in wanted
    options.pcontrol = "pcontrol" in wanted
    options.regions = "regions" in wanted
    if max_depth is not None and (not isinstance(max_depth, int) or max_depth < 0):
        raise UsageError(f"intervals: max_depth must be None or an integer >= 0, got {max_depth!r}")
    options.max_depth = -1 if max_depth is None else int(max_depth)
    options.productive = getattr(core.ProductiveTime, _choice("productive", productive, PRODUCTIVE))
    options.attribution = getattr(
        core.SkewAttribution, _choice("attribution", attribution, ATTRIBUTION)
    )
    options.sendrecv = getattr(core.SendRecvTime, _choice("sendrecv", sendrecv, SENDRECV))
    options.execution = getattr(core.ExecutionTimeBasis, _choice("execution", execution, EXECUTION))
    options.load = getattr(core.LoadBasis, _choice("load", load, LOAD))
    if isinstance(sequential, str):
        sequential = [sequential]
    options.sequential = [str(p) for p in sequential]
    options.record_executions = bool(record_executions)
    settings = {
        "sources": tuple(wanted),
        "max_depth": max_depth,
        "productive": productive,
        "attribution": attribution,
        "sendrecv": sendrecv,
        "execution": execution,
        "load": load,
        "sequential": tuple(options.sequential),
    }
    return options, settings


class Interval:
    """One interval of an :class:`IntervalTree` (all its executions merged).

    Main characteristics are attributes in seconds (``efficiency`` is a ratio);
    :attr:`per_process` holds every characteristic on each process that ran the interval,
    :attr:`comparative` their min (with process), max (with process), mean and sum.
    """

    def __init__(self, tree: IntervalTree, node: int) -> None:
        self._tree = tree
        self.id = node
        meta = tree._core.node(node)
        self.name: str = meta["name"]
        self.level: int = meta["level"]
        self.source: str = meta["source"]
        self.file: str = meta["file"]
        self.line: int = meta["line"]
        self.user_id: int = meta["user_id"]
        self.sequential: bool = meta["sequential"]
        self.exe_count: int = meta["exe_count"]
        self._parent: int | None = meta["parent"]
        self._children: list[int] = list(meta["children"])
        self._summary: dict[str, Any] | None = None

    # --- structure -----------------------------------------------------------------------

    @property
    def tree(self) -> IntervalTree:
        """The tree this interval belongs to."""
        return self._tree

    @property
    def parent(self) -> Interval | None:
        """The enclosing interval (None for the root)."""
        return None if self._parent is None else self._tree[self._parent]

    @property
    def children(self) -> list[Interval]:
        """Nested intervals, in order of first execution."""
        return [self._tree[c] for c in self._children]

    @property
    def path(self) -> str:
        """``"step/exchange"``: the names from the root's child down ("" for the root)."""
        return self._tree._paths[self.id]

    @property
    def location(self) -> str:
        """``"file:line"`` of the interval's start, or "" when unknown."""
        return f"{self.file}:{self.line}" if self.file else ""

    @property
    def processes(self) -> list[str]:
        """Labels of the processes that executed the interval (``"3"``; ``"3.1"`` for a thread)."""
        labels = self._tree.process_labels
        return [labels[p] for p in self._tree._core.node_processes(self.id)]

    # --- characteristics ----------------------------------------------------------------

    def _main(self) -> dict[str, Any]:
        if self._summary is None:
            self._summary = self._tree._core.summary(self.id)
        return self._summary

    @property
    def efficiency(self) -> float:
        """Productive time / total time (1.0 for an interval of no duration)."""
        return float(self._main()["efficiency"])

    @property
    def execution_time(self) -> float:
        """Longest time of a process in the interval (seconds)."""
        return self._main()["execution_time"] * _NS

    @property
    def processors(self) -> int:
        """Number of processes that executed the interval."""
        return int(self._main()["processes"])

    @property
    def total_time(self) -> float:
        """Execution time × processors."""
        return self._main()["total_time"] * _NS

    @property
    def productive_time(self) -> float:
        """Predicted one-process time: user code minus insufficient parallelism (+ one MPI)."""
        return self._main()["productive_time"] * _NS

    @property
    def lost_time(self) -> float:
        """Total − productive time = insufficient parallelism + MPI (lost part) + idle."""
        return self._main()["lost_time"] * _NS

    def characteristic(self, name: str) -> float:
        """Sum over processes of characteristic ``name`` (see :data:`LABELS`), in seconds."""
        return float(self._sum(name)) * _NS

    def _sum(self, name: str) -> int:
        names = self._tree.characteristics
        if name not in names:
            raise UsageError(
                f"interval {self.path or '(root)'!r}: no characteristic {name!r}; "
                f"choose from {', '.join(names)}"
            )
        return int(self._main()["sum"][names.index(name)])

    @property
    def main(self) -> dict[str, float]:
        """The main characteristics and their components, in seconds (efficiency: ratio)."""
        s = self._main()
        out: dict[str, float] = {}
        for key in _MAIN:
            value = s[key]
            out[key] = (
                float(value)
                if key == "efficiency"
                else (int(value) if key == "processes" else value * _NS)
            )
        for name in (
            "communication",
            "sendrecv",
            "collective",
            "all_to_all",
            "potential_sync",
            "real_sync",
            "time_variation",
            "time_of_start",
            "load_imbalance",
            "overlap",
            "cpu",
            "mpi",
        ):
            out[name] = self._sum(name) * _NS
        return out

    @property
    def per_process(self) -> Any:
        """Every characteristic on each process (``pandas.DataFrame``, seconds)."""
        pd = _pandas()
        values = self._tree._core.values(self.id) * _NS
        frame = pd.DataFrame(values, columns=list(self._tree.characteristics))
        frame.index = pd.Index(self.processes, name="process")
        frame.insert(0, "executions", self._tree._core.node_executions(self.id))
        return frame

    @property
    def exclusive(self) -> Any:
        """The interval's own part of the additive characteristics (nested intervals excluded)."""
        pd = _pandas()
        names = list(self._tree.characteristics[: self._tree.additive_count])
        frame = pd.DataFrame(self._tree._core.exclusive(self.id) * _NS, columns=names)
        frame.index = pd.Index(self.processes, name="process")
        return frame

    @property
    def comparative(self) -> Any:
        """Min (with process), max (with process), mean and sum of each characteristic."""
        pd = _pandas()
        s = self._main()
        labels = self._tree.process_labels
        return pd.DataFrame(
            {
                "min": s["min"] * _NS,
                "min_process": [labels[p] for p in s["min_process"]],
                "max": s["max"] * _NS,
                "max_process": [labels[p] for p in s["max_process"]],
                "mean": s["mean"] * _NS,
                "sum": s["sum"] * _NS,
            },
            index=pd.Index(list(self._tree.characteristics), name="characteristic"),
        )

    @property
    def executions(self) -> Any:
        """Each execution on each process: process, begin and end (seconds since the origin)."""
        pd = _pandas()
        ex = self._tree._executions()
        mask = ex["node"] == self.id
        labels = np.asarray(self._tree.process_labels, dtype=object)
        return pd.DataFrame(
            {
                "process": labels[ex["process"][mask]],
                "begin": ex["begin"][mask] * _NS,
                "end": ex["end"][mask] * _NS,
            }
        )

    def report(self, per_process: bool = True) -> str:
        """Return this interval's block of the text report (seed-004 layout)."""
        return str(self._tree._core.report(-1, per_process, self.id))

    def walk(self) -> Iterator[Interval]:
        """Iterate over this interval and all nested ones, depth first."""
        yield self
        for child in self.children:
            yield from child.walk()

    def __repr__(self) -> str:
        return (
            f"<Interval {self.path or '(whole program)'!r} level {self.level} "
            f"exe_count {self.exe_count} processes {self.processors} "
            f"exec {self.execution_time:.6f} s efficiency {self.efficiency:.3f}>"
        )

    def _repr_html_(self) -> str:
        return _html_characteristics(self)


class IntervalTree:
    """The intervals of a run (see :func:`intervals`).

    Iterating gives the intervals depth first; ``tree["step/exchange"]`` (a path of names),
    ``tree[("step", "exchange")]`` or ``tree[3]`` (an id) gives one. Siblings that share a
    name are told apart in paths as ``name@file:line`` (and ``#id`` when needed).
    """

    def __init__(self, core_tree: Any, settings: dict[str, Any]) -> None:
        self._core = core_tree
        self.settings = settings
        core = load_core()
        self.characteristics: tuple[str, ...] = tuple(core.INTERVAL_CHARACTERISTICS)
        self.additive_count = int(core.INTERVAL_ADDITIVE_COUNT)
        self.process_labels: list[str] = list(core_tree.process_labels())
        self._nodes: dict[int, Interval] = {}
        self._exec: dict[str, np.ndarray] | None = None
        self._paths: list[str] = [""] * core_tree.node_count
        self._by_path: dict[str, int] = {"": 0}
        self._assign_paths(0, "")

    def _assign_paths(self, node: int, prefix: str) -> None:
        stack = [(node, prefix)]
        while stack:
            n, path = stack.pop()
            children = [self._core.node(c) for c in self._core.node(n)["children"]]
            names = [c["name"] for c in children]
            for c in children:
                segment = c["name"].replace("/", "\\/")
                if names.count(c["name"]) > 1:
                    segment += f"@{c['file']}:{c['line']}"
                    same = [
                        d
                        for d in children
                        if d["name"] == c["name"]
                        and d["file"] == c["file"]
                        and d["line"] == c["line"]
                    ]
                    if len(same) > 1:
                        segment += f"#{c['user_id'] if c['source'] == 'marker' else c['id']}"
                child_path = f"{path}/{segment}" if path else segment
                self._paths[c["id"]] = child_path
                self._by_path[child_path] = c["id"]
                stack.append((c["id"], child_path))

    # --- access ----------------------------------------------------------------------------

    @property
    def root(self) -> Interval:
        """Level 0: the whole run."""
        return self[0]

    @property
    def warnings(self) -> list[str]:
        """Non-fatal problems found in the trace (broken nesting, unmatched messages, ...)."""
        return list(self._core.warnings)

    @property
    def processes(self) -> list[str]:
        """Labels of all processes of the analysis."""
        return list(self.process_labels)

    def __len__(self) -> int:
        return int(self._core.node_count)

    def __iter__(self) -> Iterator[Interval]:
        return self.root.walk()

    def __getitem__(self, key: int | str | Sequence[str]) -> Interval:
        if isinstance(key, (int, np.integer)):
            node = int(key)
            if not 0 <= node < len(self):
                raise KeyError(
                    f"no interval {node}: the tree has {len(self)} (ids 0..{len(self) - 1})"
                )
        else:
            if isinstance(key, str):
                path = key.strip("/")
            else:  # a sequence of names: escape the separator inside each
                path = "/".join(str(part).replace("/", "\\/") for part in key)
            if path not in self._by_path:
                close = [p for p in self._by_path if p and path.split("/")[-1] in p]
                hint = f"; similar: {', '.join(close[:5])}" if close else ""
                raise KeyError(f"no interval at path {path!r}{hint}")
            node = self._by_path[path]
        if node not in self._nodes:
            self._nodes[node] = Interval(self, node)
        return self._nodes[node]

    def find(self, name: str) -> list[Interval]:
        """All intervals called ``name`` (anywhere in the tree)."""
        return [iv for iv in self if iv.name == name]

    def _executions(self) -> dict[str, np.ndarray]:
        if self._exec is None:
            self._exec = dict(self._core.executions())
        return self._exec

    # --- outputs ---------------------------------------------------------------------------

    def to_pandas(self, depth: int | None = None) -> Any:
        """One row per interval (depth first): identity and main characteristics in seconds."""
        pd = _pandas()
        rows = []
        for iv in self:
            if depth is not None and iv.level > depth:
                continue
            row: dict[str, Any] = {
                "path": iv.path,
                "name": iv.name,
                "level": iv.level,
                "source": iv.source,
                "file": iv.file,
                "line": iv.line,
                "id": iv.user_id,
                "exe_count": iv.exe_count,
            }
            row.update(iv.main)
            rows.append(row)
        return pd.DataFrame(rows).set_index("path")

    def report(self, depth: int | None = None, per_process: bool = True) -> str:
        """Return the text report in the seed-004 layout (seconds with six decimals)."""
        return str(self._core.report(-1 if depth is None else int(depth), per_process))

    def to_dict(self, depth: int | None = None) -> dict[str, Any]:
        """Describe the tree for JSON (seconds).

        Settings, processes, and per interval its identity, main characteristics, comparative
        table and per-process values.
        """
        out: dict[str, Any] = {
            "settings": {
                k: list(v) if isinstance(v, tuple) else v for k, v in self.settings.items()
            },
            "processes": self.processes,
            "characteristics": list(self.characteristics),
            "warnings": self.warnings,
            "intervals": [],
        }
        for iv in self:
            if depth is not None and iv.level > depth:
                continue
            s = iv._main()
            out["intervals"].append(
                {
                    "id": iv.id,
                    "path": iv.path,
                    "name": iv.name,
                    "parent": iv._parent,
                    "children": iv._children,
                    "level": iv.level,
                    "source": iv.source,
                    "file": iv.file,
                    "line": iv.line,
                    "user_id": iv.user_id,
                    "sequential": iv.sequential,
                    "exe_count": iv.exe_count,
                    "main": iv.main,
                    "comparative": {
                        "min": (s["min"] * _NS).tolist(),
                        "min_process": [self.process_labels[p] for p in s["min_process"]],
                        "max": (s["max"] * _NS).tolist(),
                        "max_process": [self.process_labels[p] for p in s["max_process"]],
                        "mean": (s["mean"] * _NS).tolist(),
                    },
                    "processes": iv.processes,
                    "per_process": (self._core.values(iv.id) * _NS).tolist(),
                }
            )
        return out

    def to_json(self, path: str | os.PathLike[str] | None = None, depth: int | None = None) -> str:
        """:meth:`to_dict` as JSON text; also written to ``path`` when given."""
        text = json.dumps(self.to_dict(depth), indent=1)
        if path is not None:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        return text

    def to_html(self, path: str | os.PathLike[str] | None = None, depth: int | None = None) -> str:
        """Render a standalone HTML page in the DVM Predictor layout (notes 002 §S.1).

        One section per interval with its characteristics, a table of nested intervals with
        links, and UP / PREVIOUS / NEXT / HOME navigation; intervals deeper than ``depth`` are
        left out. Written to ``path`` when given; the text is returned.
        """
        text = page(self, depth)
        if path is not None:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        return text

    def __repr__(self) -> str:
        root = self.root
        return (
            f"<IntervalTree {len(self)} intervals, {len(self.process_labels)} processes, "
            f"exec {root.execution_time:.6f} s, efficiency {root.efficiency:.3f}>"
        )

    def _repr_html_(self) -> str:
        return explorer(self)


def _pandas() -> Any:
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - pandas is a dependency
        from .errors import MissingDependencyError

        raise MissingDependencyError("this needs pandas: pip install pandas") from exc
    return pd


def _html_characteristics(iv: Interval) -> str:
    return characteristics_table(iv)


__all__ = [
    "ATTRIBUTION",
    "EXECUTION",
    "LABELS",
    "LOAD",
    "PRODUCTIVE",
    "SENDRECV",
    "SOURCES",
    "Interval",
    "IntervalTree",
    "intervals",
]
