"""Timeline figure of a trace: one row per process, MPI calls by seed-004 category.

``trace.timeline()`` draws what the seed-004 tool's TimeLine shows (notes 004 §6.3, App. 2):
each process is a row, user code in light pink, each MPI call in the colour of its category
(collective black, blocking send dark green, non-blocking send light green, blocking
receive/wait dark blue, non-blocking receive/test light blue, other light grey), lines from
each send to its receive, and interval boundaries as ticks coloured by nesting level.

Rows are drawn as a few collections (one per category), never one artist per event, and a
row with more calls than fit is summarised in equal bins coloured by what filled most of
each; so 64 processes and millions of events stay quick and readable.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ._core_loader import load_core
from ._trace_data import Category, TraceData
from .errors import MissingDependencyError, UsageError
from .intervals import intervals as _intervals

#: Colours of the seven categories (notes 004 §5, App. 2).
CATEGORY_COLORS: dict[Category, str] = {
    Category.COLLECTIVE: "#000000",  # black
    Category.BLOCKING_SEND: "#006400",  # dark green
    Category.NONBLOCKING_SEND: "#90ee90",  # light green
    Category.BLOCKING_RECEIVE_WAIT: "#00008b",  # dark blue
    Category.NONBLOCKING_RECEIVE_TEST: "#87cefa",  # light blue
    Category.OTHER: "#c8c8c8",  # light grey
    Category.USER_CODE: "#ffc0cb",  # light pink
}

_INTERVAL_COLORS = ("#d62728", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf")


def _window(
    trace: TraceData, start: float | None, end: float | None, interval: Any, tree: Any
) -> tuple[int, int]:
    """Return the window in trace nanoseconds."""
    if interval is not None:
        if tree is None:
            tree = _intervals(trace)
        iv = interval if hasattr(interval, "executions") else tree[interval]
        ex = iv.executions
        if len(ex) == 0:
            raise UsageError(
                f"timeline: interval {iv.path!r} has no recorded executions "
                "(analyse with record_executions=True)"
            )
        lo, hi = float(ex["begin"].min()), float(ex["end"].max())
        margin = 0.02 * (hi - lo)
        start = lo - margin if start is None else start
        end = hi + margin if end is None else end
    begin_ns = np.iinfo(np.int64).min if start is None else round(start * 1e9)
    end_ns = np.iinfo(np.int64).max if end is None else round(end * 1e9)
    if end_ns <= begin_ns:
        raise UsageError(f"timeline: the window is empty (start {start} s >= end {end} s)")
    return int(begin_ns), int(end_ns)


def _rectangles(x0: np.ndarray, x1: np.ndarray, y: np.ndarray, height: float) -> Any:
    """Vertices (n, 4, 2) of rectangles [x0, x1] × [y − h/2, y + h/2]."""
    h = height / 2
    verts = np.empty((len(x0), 4, 2))
    verts[:, 0, 0] = x0
    verts[:, 1, 0] = x0
    verts[:, 2, 0] = x1
    verts[:, 3, 0] = x1
    verts[:, 0, 1] = y - h
    verts[:, 1, 1] = y + h
    verts[:, 2, 1] = y + h
    verts[:, 3, 1] = y - h
    return verts


def timeline(
    trace: TraceData | str | os.PathLike[str],
    *,
    start: float | None = None,
    end: float | None = None,
    interval: Any = None,
    intervals: Any = True,
    messages: bool = True,
    max_bars_per_row: int = 2000,
    max_messages: int = 5000,
    ax: Any = None,
    figsize: tuple[float, float] | None = None,
    title: str | None = None,
    critical_path: Any = None,
) -> Any:
    """Draw the timeline of ``trace``; returns the matplotlib ``Figure``.

    - ``start``, ``end``: the time window in seconds since the trace's time origin (as in
      :meth:`Trace.filter`); ``interval``: zoom to an interval (a path such as
      ``"step/exchange"`` or an :class:`~parjava.intervals.Interval`), all its executions.
    - ``intervals``: True to draw interval executions (from ``trace.intervals()``), an
      :class:`~parjava.intervals.IntervalTree` to use that one, False for none.
    - ``messages``: lines from each send to its receive (at most ``max_messages``, thinned
      evenly beyond); ``max_bars_per_row``: calls per row before the row is binned.
    - ``ax``: draw into these axes instead of a new figure.
    - ``critical_path``: draw this path over the rows (a :class:`parjava.causes.CriticalPath`,
      or ``(rank, begin, end)`` tuples in seconds), jumps between processes as vertical lines.
    """
    if isinstance(trace, (str, os.PathLike)):
        trace = TraceData.open(trace)
    try:
        import matplotlib.pyplot as plt
        from matplotlib.collections import LineCollection, PolyCollection
        from matplotlib.patches import Patch
    except ImportError as exc:  # pragma: no cover - matplotlib is a dependency
        raise MissingDependencyError("timeline needs matplotlib: pip install matplotlib") from exc
    if max_bars_per_row < 1 or max_messages < 0:
        raise UsageError("timeline: max_bars_per_row must be >= 1 and max_messages >= 0")

    tree = intervals if hasattr(intervals, "root") else None
    if tree is None and (intervals is True or interval is not None):
        tree = _intervals(trace)
    drawn_tree = tree if intervals is not False else None
    begin_ns, end_ns = _window(trace, start, end, interval, tree)
    data = load_core().extract_timeline(
        trace.core, begin_ns, end_ns, int(max_bars_per_row), int(max_messages)
    )
    rows = data["rows"]
    n = len(rows)
    t0, t1 = data["begin"] * 1e-9, data["end"] * 1e-9

    if ax is None:
        height = min(24.0, max(2.5, 0.24 * n + 1.4))
        fig, ax = plt.subplots(figsize=figsize or (11.0, height))
    else:
        fig = ax.figure
    y = np.arange(n, dtype=float)

    # User code: each process's lifetime in the window, under its calls.
    rb, re = data["row_begin"] * 1e-9, data["row_end"] * 1e-9
    ax.add_collection(
        PolyCollection(
            _rectangles(rb, re, y, 0.8),
            facecolors=CATEGORY_COLORS[Category.USER_CODE],
            edgecolors="none",
            zorder=1,
        )
    )
    bar_row = data["bar_row"].astype(float)
    bx0, bx1 = data["bar_begin"] * 1e-9, data["bar_end"] * 1e-9
    # A call shorter than a pixel still shows: widen it to a minimum width.
    min_width = (t1 - t0) / 4000.0
    bx1 = np.maximum(bx1, bx0 + min_width)
    cats = data["bar_category"]
    for category in Category:
        if category is Category.USER_CODE:
            continue
        mask = cats == int(category)
        if mask.any():
            ax.add_collection(
                PolyCollection(
                    _rectangles(bx0[mask], bx1[mask], bar_row[mask], 0.8),
                    facecolors=CATEGORY_COLORS[category],
                    edgecolors="none",
                    zorder=2,
                )
            )

    if messages and len(data["message_send"]):
        segments: Any = np.stack(
            [
                np.column_stack([data["message_send"] * 1e-9, data["message_from_row"]]),
                np.column_stack([data["message_receive"] * 1e-9, data["message_to_row"]]),
            ],
            axis=1,
        )
        ax.add_collection(
            LineCollection(segments, colors="#444444", linewidths=0.5, alpha=0.6, zorder=3)
        )

    legend = [
        Patch(facecolor=CATEGORY_COLORS[c], edgecolor="#888888", label=c.label) for c in Category
    ]
    if drawn_tree is not None:
        _draw_intervals(ax, drawn_tree, rows, begin_ns, end_ns, legend)
    if critical_path is not None:
        segments = (
            critical_path.intervals() if hasattr(critical_path, "intervals") else critical_path
        )
        _draw_path(ax, list(segments), rows, legend)

    ax.set_xlim(t0, t1)
    ax.set_ylim(n - 0.4, -0.7)
    step = max(1, int(np.ceil(n / 32)))
    ticks = list(range(0, n, step))
    ax.set_yticks(ticks)
    labels = [_row_label(rows[i]) for i in ticks]
    ax.set_yticklabels(labels, fontsize=8 if n > 16 else 9)
    ax.set_xlabel("time (s since the trace's origin)")
    ax.set_ylabel("process")
    binned = int(np.count_nonzero(data["row_binned"]))
    shown = len(data["message_send"])
    notes = []
    if binned:
        notes.append(f"{binned} row(s) binned")
    if shown < data["messages_in_window"]:
        notes.append(f"{shown} of {data['messages_in_window']} messages drawn")
    ax.set_title((title or "timeline") + (f" ({'; '.join(notes)})" if notes else ""), fontsize=10)
    ax.legend(
        handles=legend,
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        fontsize=8,
        frameon=False,
    )
    fig.tight_layout()
    return fig


def _draw_path(
    ax: Any, segments: list[tuple[int, float, float]], rows: list[dict[str, Any]], legend: list[Any]
) -> None:
    """Draw the critical path: a line along each segment's row, joined where it changes rows."""
    from matplotlib.lines import Line2D

    row_of_rank = {r["rank"]: i for i, r in enumerate(rows) if r["rank"] >= 0 and not r["thread"]}
    xs: list[float] = []
    ys: list[float] = []
    for rank, begin, end in segments:
        row = row_of_rank.get(int(rank))
        if row is None:
            continue
        xs += [begin, end]
        ys += [row, row]
    if xs:
        ax.plot(xs, ys, color="#d62728", linewidth=2.0, zorder=5)
        legend.append(Line2D([], [], color="#d62728", linewidth=2.0, label="critical path"))


def _row_label(row: dict[str, Any]) -> str:
    if row["rank"] < 0:
        return str(row["name"])
    return f"rank {row['rank']}" + (f".{row['thread']}" if row["thread"] else "")


def _draw_intervals(
    ax: Any, tree: Any, rows: list[dict[str, Any]], begin_ns: int, end_ns: int, legend: list[Any]
) -> None:
    """Interval boundaries: a tick through the row where an execution begins or ends."""
    from matplotlib.collections import LineCollection
    from matplotlib.lines import Line2D

    ex = tree._executions()
    if len(ex["node"]) == 0:
        return
    labels = tree.process_labels
    row_of_label = {
        (f"{r['rank']}" + (f".{r['thread']}" if r["thread"] else ""))
        if r["rank"] >= 0
        else f"L{r['location']}": i
        for i, r in enumerate(rows)
    }
    row_of_process = np.array([row_of_label.get(lbl, -1) for lbl in labels])
    levels = np.array([tree[int(i)].level for i in range(len(tree))])
    node, process = ex["node"], ex["process"]
    b, e = ex["begin"], ex["end"]
    keep = (levels[node] > 0) & (e >= begin_ns) & (b <= end_ns) & (row_of_process[process] >= 0)
    if not keep.any():
        return
    level = levels[node[keep]]
    yrow = row_of_process[process[keep]].astype(float)
    inside_begin = b[keep] >= begin_ns
    inside_end = e[keep] <= end_ns
    x0 = b[keep] * 1e-9
    x1 = e[keep] * 1e-9
    # A boundary is a tick through the row at the execution's begin or end (inside the window).
    xs = np.concatenate([x0[inside_begin], x1[inside_end]])
    ys = np.concatenate([yrow[inside_begin], yrow[inside_end]])
    lv = np.concatenate([level[inside_begin], level[inside_end]])
    ticks: Any = np.stack(
        [np.column_stack([xs, ys - 0.5]), np.column_stack([xs, ys + 0.5])], axis=1
    )
    colors = [_INTERVAL_COLORS[(v - 1) % len(_INTERVAL_COLORS)] for v in lv]
    ax.add_collection(LineCollection(ticks, colors=colors, linewidths=1.3, zorder=4))
    for lv in sorted(set(level.tolist()))[:4]:
        legend.append(
            Line2D(
                [],
                [],
                color=_INTERVAL_COLORS[(lv - 1) % len(_INTERVAL_COLORS)],
                label=f"intervals, level {lv}",
            )
        )


__all__ = ["CATEGORY_COLORS", "timeline"]
