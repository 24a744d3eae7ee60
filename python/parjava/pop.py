"""POP efficiency metrics: ``parjava.pop(trace)`` and ``parjava.pop([run_np4, run_np8, ...])``.

The POP Centre of Excellence's definitions (POP standard metrics, "Performance Optimisation
and Productivity: metrics for parallel performance", pop-coe.eu), with ``c_p`` the useful
computation of process ``p`` (time outside MPI calls) and ``T`` the run time:

* load balance ``LB = mean(c_p) / max(c_p)``;
* communication efficiency ``CommE = max(c_p) / T``, split into transfer efficiency
  ``TE = T_ideal / T`` (``T_ideal`` the run time replayed on an ideal network: zero latency,
  unlimited bandwidth, :func:`parjava.replay` with ``network="ideal"``) and serialisation
  efficiency ``SerE = max(c_p) / T_ideal``, so that ``CommE = SerE × TE``;
* parallel efficiency ``PE = LB × CommE = mean(c_p) / T``;
* across runs at different process counts, against the run with the fewest processes
  (``ref``): computation scalability ``CompScal = Σ c_p(ref) / Σ c_p`` (strong scaling; weak
  scaling multiplies by ``P / P_ref``), and global efficiency ``GE = PE × CompScal``.

By default the metrics cover the program's own work: from the end of the last
``MPI_Init`` to the start of the first ``MPI_Finalize`` (``window="main"``; ``"all"`` takes
the whole trace). Per interval and per region they come from the interval analysis
(:func:`parjava.intervals.intervals`): ``c_p`` is an interval's user-code time on ``p`` and
``T`` its execution time.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from functools import cached_property
from typing import Any

import numpy as np

from ._core_loader import load_core
from ._trace_data import EventKind
from .errors import UsageError
from .profile import as_trace, pandas
from .replay import MachineLike, as_machine, replay
from .trace import Trace

#: The metrics in POP's report order; each is followed by the ones it is the product of.
METRICS = (
    ("global_efficiency", "Global efficiency", 0),
    ("parallel_efficiency", "Parallel efficiency", 1),
    ("load_balance", "Load balance", 2),
    ("communication_efficiency", "Communication efficiency", 2),
    ("serialisation_efficiency", "Serialisation efficiency", 3),
    ("transfer_efficiency", "Transfer efficiency", 3),
    ("computation_scalability", "Computation scalability", 1),
)

_DEFAULT_MACHINE = "shared-memory"


def main_window(trace: Trace) -> tuple[int, int]:
    """Return the ns window from the last MPI_Init's end to the first MPI_Finalize's start.

    The whole trace when it has no MPI_Init or no MPI_Finalize on every process.
    """
    return window_of(window_stats(trace), trace.process_count)


#: The extremes :func:`main_window` reads, as integers (ns or counts) that sum (``*_count``),
#: take the minimum (``first``, ``finalize``) or the maximum (``last``, ``init``) over the
#: locations: so the window of a trace held in parts is a reduction of the parts' stats.
WINDOW_STATS = ("events", "first", "last", "init_count", "init", "finalize_count", "finalize")
_INT64_MAX = int(np.iinfo(np.int64).max)
_INT64_MIN = int(np.iinfo(np.int64).min)


def window_stats(trace: Trace, owned: np.ndarray | None = None) -> dict[str, int]:
    """Per-trace extremes behind :func:`main_window`, over the locations ``owned`` marks.

    ``owned`` (a bool per location; all when None) restricts them to the locations a part of
    the trace owns (:mod:`parjava.parallel`): each count and extreme is then combined over
    the parts by a sum, a minimum or a maximum (:data:`WINDOW_STATS`).
    """
    ev = trace.events
    time = ev.time
    location = ev.location
    keep = None if owned is None else np.asarray(owned, dtype=bool)
    events = len(time)
    if keep is not None:
        offsets = np.asarray(trace.core.column("location_offsets")).astype(np.int64)
        events = int(np.diff(offsets)[keep].sum())
    # First and last over every event the trace holds: a part's events of other locations are
    # copies of the whole trace's, so they do not change the extremes reduced over the parts
    # (and no per-event mask or copy is made for them).
    out = {
        "events": events,
        "first": int(time.min()) if len(time) else _INT64_MAX,
        "last": int(time.max()) if len(time) else _INT64_MIN,
        "init_count": 0,
        "init": _INT64_MIN,
        "finalize_count": 0,
        "finalize": _INT64_MAX,
    }
    if not len(time):
        return out
    init = [r.index for r in trace.regions if r.function in ("MPI_Init", "MPI_Init_thread")]
    final = [r.index for r in trace.regions if r.function == "MPI_Finalize"]
    enter = ev.kind == EventKind.ENTER

    def entered(regions: list[int]) -> np.ndarray:
        sel = np.nonzero(enter & np.isin(ev.region, regions))[0]
        return sel if keep is None else sel[keep[location[sel]]]

    if init:
        sel = entered(init)
        leave = ev.match[sel]
        ok = leave >= 0
        out["init_count"] = len(np.unique(location[sel[ok]]))
        if ok.any():
            out["init"] = int(time[leave[ok]].max())
    if final:
        sel = entered(final)
        out["finalize_count"] = len(np.unique(location[sel]))
        if len(sel):
            out["finalize"] = int(time[sel].min())
    return out


def window_of(stats: dict[str, int], processes: int) -> tuple[int, int]:
    """Return the main window (:func:`main_window`) of the (reduced) :func:`window_stats`."""
    if stats["events"] == 0:
        return 0, 0
    begin, end = stats["first"], stats["last"]
    if stats["init_count"] >= processes > 0:
        begin = stats["init"]
    if stats["finalize_count"] >= processes > 0:
        end = stats["finalize"]
    if end <= begin:
        return stats["first"], stats["last"]
    return begin, end


def _window(trace: Trace, window: Any, stats: dict[str, int] | None = None) -> tuple[int, int]:
    """Return the window in ns (``stats``: the whole trace's :func:`window_stats`, if known)."""
    if window == "main":
        return window_of(stats if stats is not None else window_stats(trace), trace.process_count)
    if window == "all":
        if stats is not None:
            if stats["events"] == 0:
                raise UsageError('pop: window="all" of a trace without events')
            return stats["first"], stats["last"]
        return int(trace.events.time.min()), int(trace.events.time.max())
    try:
        a, b = window
        return round(float(a) * 1e9), round(float(b) * 1e9)
    except (TypeError, ValueError):
        raise UsageError(
            f'pop: window must be "main", "all" or (begin, end) in seconds, got {window!r}'
        ) from None


def _efficiencies(useful: np.ndarray, runtime: float, ideal: float | None) -> dict[str, float]:
    """POP's per-run metrics from the useful computation per process and the run time."""
    out: dict[str, float] = {}
    top = float(useful.max()) if len(useful) else 0.0
    mean = float(useful.mean()) if len(useful) else 0.0
    out["load_balance"] = mean / top if top > 0 else 1.0
    out["communication_efficiency"] = top / runtime if runtime > 0 else 1.0
    out["parallel_efficiency"] = mean / runtime if runtime > 0 else 1.0
    if ideal is not None and ideal > 0 and runtime > 0:
        out["transfer_efficiency"] = ideal / runtime
        out["serialisation_efficiency"] = top / ideal
    else:
        out["transfer_efficiency"] = float("nan")
        out["serialisation_efficiency"] = float("nan")
    return out


class PopMetrics:
    """POP metrics of one run: whole run (attributes), per interval and per region (tables)."""

    def __init__(
        self,
        trace: Trace,
        *,
        machine: MachineLike | None = None,
        window: Any = "main",
        transfer: bool = True,
    ) -> None:
        begin, end = _window(trace, window)
        times = load_core().window_times(trace.core, begin, end)
        self._setup(trace, machine, (begin, end), window, transfer, times)

    def _setup(
        self,
        trace: Trace,
        machine: MachineLike | None,
        window_ns: tuple[int, int],
        window_spec: Any,
        transfer: bool,
        times: dict[str, np.ndarray],
    ) -> None:
        """Set the run's figures from the window and the per-location ns (``window_times``)."""
        self.trace = trace
        self._machine = machine
        self.window = window_ns
        self._window_spec = window_spec
        self._transfer = transfer
        #: Why transfer and serialisation efficiency are missing when they were asked for
        #: (None: computed, or not asked for).
        self.transfer_note: str | None = None
        #: Per-interval and per-region tables computed beforehand (parjava.parallel.pop).
        self._tables: dict[str, Any] | None = None
        begin, end = window_ns
        rows = _process_rows(trace)
        #: Seconds of useful computation (outside MPI) per process, in rank order.
        self.useful = times["computation"][rows].astype(np.float64) * 1e-9
        #: Seconds inside MPI calls per process.
        self.mpi = times["communication"][rows].astype(np.float64) * 1e-9
        #: Seconds: the run time of the window.
        self.runtime = (end - begin) * 1e-9
        self.processes = len(rows)

    @classmethod
    def _of_parts(
        cls,
        trace: Trace,
        window_ns: tuple[int, int],
        window_spec: Any,
        times: dict[str, np.ndarray],
        transfer_note: str | None,
        tables: dict[str, Any] | None,
    ) -> PopMetrics:
        """Make the metrics of a trace analysed in parts (parjava.parallel.pop, on its root).

        ``trace`` holds the whole trace's definitions, ``times`` the whole trace's ns per
        location; there is no ideal-network replay (``transfer_note`` says why), and the
        per-interval and per-region tables are ``tables`` (None: not computed).
        """
        self = cls.__new__(cls)
        self._setup(trace, None, window_ns, window_spec, False, times)
        self.transfer_note = transfer_note
        self._tables = tables
        return self

    @cached_property
    def ideal(self) -> Any:
        """The replay of this run on an ideal network (None when transfer=False)."""
        if not self._transfer:
            return None
        machine = as_machine(self._machine or _DEFAULT_MACHINE, "pop")
        # POP's ideal network (Dimemas): zero latency, unlimited bandwidth and MPI calls that cost
        # nothing of their own, so what is left of MPI time is waiting (serialisation).
        return replay(self.trace, machine, network="ideal", call_overhead="none")

    @cached_property
    def ideal_runtime(self) -> float | None:
        """Seconds: the same window's run time on the ideal network (the replay's)."""
        if self.ideal is None:
            return None
        replayed = self.ideal.trace
        if self._window_spec == "main":
            begin, end = main_window(replayed)
            return (end - begin) * 1e-9
        # Another window: the replay shifts times, so take the share of the whole run.
        return self.runtime * self.ideal.time / self.ideal.original_time

    @cached_property
    def metrics(self) -> dict[str, float]:
        """Load balance, communication, serialisation, transfer and parallel efficiency."""
        return _efficiencies(self.useful, self.runtime, self.ideal_runtime)

    def __getattr__(self, name: str) -> float:
        if name in {key for key, _, _ in METRICS} - {
            "global_efficiency",
            "computation_scalability",
        }:
            return self.metrics[name]
        raise AttributeError(name)

    def table(self) -> Any:
        """POP's metric table for this run (one column)."""
        pd = pandas()
        rows = [(label, self.metrics.get(key, float("nan"))) for key, label, _ in METRICS[1:6]]
        return pd.DataFrame({"value": [v for _, v in rows]}, index=[label for label, _ in rows])

    def _tree_rows(self, sources: tuple[str, ...]) -> Any:
        tree = self.trace.intervals(sources=sources, record_executions=False)
        ideal_times: dict[str, float] = {}
        if self._transfer and self.ideal is not None and self.ideal.trace is not None:
            ideal_tree = self.ideal.trace.intervals(sources=sources, record_executions=False)
            ideal_times = {iv.path: iv.execution_time for iv in ideal_tree if iv.level > 0}
        return tree_rows(tree, ideal_times)

    def intervals(self) -> Any:
        """POP metrics per interval (markers, MPI_Pcontrol phases), one row each."""
        return self._table_of("intervals", INTERVAL_SOURCES)

    def regions(self) -> Any:
        """POP metrics per user region (e.g. Score-P's instrumented functions)."""
        return self._table_of("regions", REGION_SOURCES)

    def _table_of(self, name: str, sources: tuple[str, ...]) -> Any:
        if self._tables is None:
            return self._tree_rows(sources)
        if name not in self._tables:
            raise UsageError(
                f"pop: the per-{name[:-1]} metrics of a parallel analysis are computed with "
                "the run's: call parjava.parallel.pop(..., tables=True)"
            )
        return self._tables[name]

    def to_pandas(self) -> Any:
        """Return the metric table (:meth:`table`)."""
        return self.table()

    def to_dict(self) -> dict[str, Any]:
        """Window, run time, useful computation per process and the metrics as plain data."""
        return {
            "window": [self.window[0] * 1e-9, self.window[1] * 1e-9],
            "processes": self.processes,
            "runtime": self.runtime,
            "ideal_runtime": self.ideal_runtime,
            "useful": self.useful.tolist(),
            "metrics": {k: (None if np.isnan(v) else v) for k, v in self.metrics.items()},
            **({"transfer_note": self.transfer_note} if self.transfer_note else {}),
        }

    def to_csv(self, path: str | os.PathLike[str] | None = None) -> str:
        """Return the metric table (:meth:`table`) as CSV: metric, value (empty: not available)."""
        text = self.table().to_csv(index_label="metric")
        if path is not None:
            with open(path, "w", encoding="utf-8", newline="") as out:
                out.write(text)
        return text

    def to_json(self, path: str | os.PathLike[str] | None = None) -> str:
        """:meth:`to_dict` as JSON (written to ``path`` when given)."""
        text = json.dumps(self.to_dict(), indent=1)
        if path is not None:
            with open(path, "w", encoding="utf-8") as out:
                out.write(text)
        return text

    def report(self) -> str:
        """Text: the window and POP's metric hierarchy with values."""
        lines = [
            f"POP metrics of {self.processes} processes over {self.runtime:.6g} s "
            f"(window {self.window[0] * 1e-9:.6g}..{self.window[1] * 1e-9:.6g} s)"
        ]
        for key, label, depth in METRICS[1:6]:
            value = self.metrics.get(key, float("nan"))
            text = "n/a" if np.isnan(value) else f"{value:.3f}"
            lines.append(f"  {'  ' * (depth - 1)}{label:<32} {text:>7}")
        if self.transfer_note:
            lines.append(f"  ({self.transfer_note})")
        return "\n".join(lines)

    def plot(self, ax: Any = None) -> Any:
        """Bars of the metrics (1.0 is perfect); returns the figure."""
        import matplotlib.pyplot as plt

        if ax is None:
            fig, ax = plt.subplots(figsize=(6, 3))
        else:
            fig = ax.figure
        items = [(label, self.metrics.get(key, np.nan)) for key, label, _ in METRICS[1:6]]
        ax.barh([label for label, _ in items][::-1], [v for _, v in items][::-1])
        ax.set_xlim(0, 1.05)
        ax.axvline(0.8, color="grey", lw=0.8, ls="--")
        ax.set_title("POP efficiencies")
        fig.tight_layout()
        return fig

    def __repr__(self) -> str:
        pe = self.metrics["parallel_efficiency"]
        return f"<PopMetrics {self.processes} processes, parallel efficiency {pe:.3f}>"


#: Where the per-interval and per-region metrics take their intervals from.
INTERVAL_SOURCES = ("markers", "pcontrol")
REGION_SOURCES = ("regions",)


def tree_rows(tree: Any, ideal_times: dict[str, float]) -> Any:
    """POP metrics per interval of an interval tree (``ideal_times``: per path, replayed)."""
    pd = pandas()
    records = []
    for iv in tree:
        if iv.level == 0:
            continue
        per = iv.per_process
        useful = per["cpu"].to_numpy(dtype=np.float64)
        runtime = iv.execution_time
        m = _efficiencies(useful, runtime, ideal_times.get(iv.path))
        records.append(
            {
                "interval": iv.path,
                "location": iv.location,
                "executions": iv.exe_count,
                "processes": iv.processors,
                "runtime": runtime,
                **m,
            }
        )
    return pd.DataFrame(records)


def _process_rows(trace: Trace) -> np.ndarray:
    rows = sorted(
        (loc.rank, loc.index)
        for loc in trace.locations
        if loc.rank is not None and loc.thread == 0 and loc.type == "cpu thread"
    )
    if not rows:
        raise UsageError("pop: the trace has no MPI process (no location has a rank)")
    return np.array([index for _, index in rows], dtype=np.int64)


class PopScaling:
    """POP metrics of several runs at different process counts, as POP reports tabulate them."""

    def __init__(self, runs: list[PopMetrics], scaling: str) -> None:
        if scaling not in ("strong", "weak"):
            raise UsageError(f'pop: scaling must be "strong" or "weak", got {scaling!r}')
        self.runs = sorted(runs, key=lambda r: r.processes)
        self.scaling = scaling

    @cached_property
    def metrics(self) -> list[dict[str, float]]:
        """Per run (by process count): every metric, computation scalability and global too."""
        ref = self.runs[0]
        ref_total = float(ref.useful.sum())
        out = []
        for run in self.runs:
            m = dict(run.metrics)
            total = float(run.useful.sum())
            scal = ref_total / total if total > 0 else float("nan")
            if self.scaling == "weak":
                scal *= run.processes / ref.processes
            m["computation_scalability"] = scal
            m["global_efficiency"] = m["parallel_efficiency"] * scal
            m["processes"] = run.processes
            m["runtime"] = run.runtime
            m["speedup"] = ref.runtime / run.runtime if run.runtime > 0 else float("nan")
            out.append(m)
        return out

    def table(self) -> Any:
        """POP's table: one row per metric (indented by level), one column per process count."""
        pd = pandas()
        data = {
            f"{m['processes']} processes": [m.get(key, np.nan) for key, _, _ in METRICS]
            for m in self.metrics
        }
        index = ["  " * depth + label for _, label, depth in METRICS]
        return pd.DataFrame(data, index=pd.Index(index, name="metric"))

    def to_pandas(self) -> Any:
        """One row per run: processes, runtime, speedup and every metric."""
        return pandas().DataFrame(self.metrics)

    def to_csv(self, path: str | os.PathLike[str] | None = None) -> str:
        """Return one row per run (:meth:`to_pandas`) as CSV."""
        text = self.to_pandas().to_csv(index=False)
        if path is not None:
            with open(path, "w", encoding="utf-8", newline="") as out:
                out.write(text)
        return text

    def to_dict(self) -> dict[str, Any]:
        """Scaling mode and the per-run metrics as plain data."""
        return {
            "scaling": self.scaling,
            "runs": [
                {k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in m.items()}
                for m in self.metrics
            ],
        }

    def to_json(self, path: str | os.PathLike[str] | None = None) -> str:
        """:meth:`to_dict` as JSON (written to ``path`` when given)."""
        text = json.dumps(self.to_dict(), indent=1)
        if path is not None:
            with open(path, "w", encoding="utf-8") as out:
                out.write(text)
        return text

    def report(self) -> str:
        """Return the metric table as text."""
        header = f"{'':<34}" + "".join(f"{m['processes']:>10}" for m in self.metrics)
        lines = [
            f"POP metrics ({self.scaling} scaling, reference {self.runs[0].processes} processes)",
            header,
        ]
        for key, label, depth in METRICS:
            cells = "".join(
                f"{'n/a':>10}" if np.isnan(m.get(key, np.nan)) else f"{m[key]:>10.3f}"
                for m in self.metrics
            )
            lines.append(f"{'  ' * depth + label:<34}{cells}")
        lines.append(
            f"{'Run time [s]':<34}" + "".join(f"{m['runtime']:>10.4g}" for m in self.metrics)
        )
        lines.append(f"{'Speedup':<34}" + "".join(f"{m['speedup']:>10.3f}" for m in self.metrics))
        return "\n".join(lines)

    def plot(self, ax: Any = None) -> Any:
        """Lines of each metric over the process count; returns the figure."""
        import matplotlib.pyplot as plt

        if ax is None:
            fig, ax = plt.subplots(figsize=(6, 3.5))
        else:
            fig = ax.figure
        procs = [m["processes"] for m in self.metrics]
        for key, label, _ in METRICS:
            values = [m.get(key, np.nan) for m in self.metrics]
            if not all(np.isnan(values)):
                ax.plot(procs, values, marker="o", label=label)
        ax.set_xlabel("processes")
        ax.set_ylim(0, 1.1)
        ax.legend(fontsize=7, loc="lower left")
        ax.set_title("POP metrics")
        fig.tight_layout()
        return fig

    def __repr__(self) -> str:
        procs = ", ".join(str(m["processes"]) for m in self.metrics)
        return f"<PopScaling {len(self.runs)} runs ({procs} processes), {self.scaling} scaling>"


def pop(
    traces: Any,
    *,
    machine: MachineLike | None = None,
    window: Any = "main",
    transfer: bool = True,
    scaling: str = "strong",
) -> PopMetrics | PopScaling:
    """POP metrics of a run (a trace or its path) or of several runs (a list of them).

    Args:
        traces: one trace (:class:`PopMetrics`) or a list of traces of the same program at
            different process counts (:class:`PopScaling`, the first run of the fewest
            processes is the reference).
        machine: the machine whose eager limit the ideal-network replay keeps (default the
            ``"shared-memory"`` preset); its network does not matter.
        window: ``"main"`` (MPI_Init's end to MPI_Finalize's start), ``"all"`` or
            ``(begin, end)`` in seconds.
        transfer: replay on an ideal network for transfer and serialisation efficiency.
        scaling: ``"strong"`` (same problem) or ``"weak"`` (problem grows with the processes)
            for computation scalability.

    """
    if isinstance(traces, Sequence) and not isinstance(traces, (str, bytes)):
        if not traces:
            raise UsageError("pop: give at least one trace")
        runs = [
            PopMetrics(as_trace(t, "pop"), machine=machine, window=window, transfer=transfer)
            for t in traces
        ]
        return PopScaling(runs, scaling)
    return PopMetrics(as_trace(traces, "pop"), machine=machine, window=window, transfer=transfer)


__all__ = [
    "METRICS",
    "WINDOW_STATS",
    "PopMetrics",
    "PopScaling",
    "main_window",
    "pop",
    "tree_rows",
    "window_of",
    "window_stats",
]
