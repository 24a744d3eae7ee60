"""HTML views of an interval tree: the Jupyter explorer and the DVM-Predictor-style page.

The page follows the DVM Predictor's output (notes 002 §1.4, §S.1): one section ("paragraph")
per interval with the data that describe it, its characteristics, a table of its nested
intervals with links, and UP / PREVIOUS / NEXT / HOME navigation (previous = the previous
sibling, or the parent for a first child; next = the next sibling, or the parent for a last
child). The explorer is a tree of ``<details>`` elements, like a file browser (notes 004
§6.2): opening an interval shows its characteristics and its nested intervals.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .intervals import Interval, IntervalTree


#: Labels of the characteristics (columns of the per-process tables).
LABELS = {
    "time": "execution time",
    "cpu": "CPU time",
    "mpi": "MPI time",
    "point_to_point": "point-to-point time",
    "collective": "collective time",
    "all_to_all": "all-to-all time",
    "other_mpi": "other MPI time",
    "sendrecv": "SendRecv time",
    "communication": "communication",
    "time_of_start": "time of start",
    "real_sync": "real synchronization",
    "potential_sync": "potential synchronization",
    "time_variation": "time variation",
    "overlap": "overlap",
    "sequential_cpu": "sequential CPU time",
    "unrecorded": "unrecorded time",
    "category_collective": "collective (cat. 1)",
    "category_blocking_send": "blocking send (cat. 2)",
    "category_nonblocking_send": "non-blocking send (cat. 3)",
    "category_blocking_receive_wait": "blocking receive/wait (cat. 4)",
    "category_nonblocking_receive_test": "non-blocking receive/test (cat. 5)",
    "category_other": "other MPI (cat. 6)",
    "insufficient_parallelism": "insufficient parallelism",
    "idle": "idle time",
    "load_imbalance": "load imbalance",
    "productive": "productive time",
    "lost": "lost time",
}

_TYPES = {"root": "Main", "marker": "User", "pcontrol": "Pcontrol", "region": "Region"}
_EXPLORER_LIMIT = 400  # intervals shown inline; the rest are counted

_STYLE = """
.pj-iv { font-family: sans-serif; font-size: 13px; }
.pj-iv table { border-collapse: collapse; margin: 4px 0 8px 0; }
.pj-iv td, .pj-iv th { border: 1px solid #ccc; padding: 2px 6px; text-align: right; }
.pj-iv th { background: #f3f3f3; text-align: left; }
.pj-iv td.l { text-align: left; }
.pj-iv details { margin-left: 1.4em; }
.pj-iv details.root { margin-left: 0; }
.pj-iv summary { cursor: pointer; white-space: nowrap; }
.pj-iv .bar { display: inline-block; height: 9px; background: #e4e4e4; width: 80px;
  vertical-align: middle; margin: 0 6px; }
.pj-iv .bar span { display: block; height: 9px; background: #4a8; }
.pj-iv nav a { margin-right: 12px; }
.pj-iv section { border-top: 2px solid #888; padding-top: 6px; margin-top: 18px; }
.pj-iv .sub { padding-left: 1.5em; }
"""


def _s(seconds: float) -> str:
    return f"{seconds:.6f}"


def _e(text: object) -> str:
    return html.escape(str(text))


def _efficiency_bar(efficiency: float) -> str:
    width = max(0.0, min(1.0, efficiency)) * 100
    return (
        f"<span class='bar' title='efficiency {efficiency:.3f}'>"
        f"<span style='width:{width:.0f}%'></span></span>"
    )


def _main_rows(iv: Interval) -> list[tuple[str, str, bool]]:
    """(label, value, is_component) rows of the main characteristics."""
    m = iv.main
    rows = [
        ("Efficiency", f"{m['efficiency']:.6f}", False),
        ("Execution time", _s(m["execution_time"]), False),
        ("Processors", str(int(m["processes"])), False),
        ("Total time", _s(m["total_time"]), False),
        ("Productive time", _s(m["productive_time"]), False),
        ("CPU", _s(m["productive_cpu"]), True),
        ("MPI", _s(m["productive_mpi"]), True),
        ("Lost time", _s(m["lost_time"]), False),
        ("Insufficient parallelism", _s(m["lost_insufficient"]), True),
        ("MPI", _s(m["lost_mpi"]), True),
        ("Idle", _s(m["lost_idle"]), True),
        ("Communication", _s(m["communication"]), False),
        ("SendRecv", _s(m["sendrecv"]), True),
        ("CollectiveAll", _s(m["collective"]), True),
        ("AllToAll", _s(m["all_to_all"]), True),
        ("Real synchronization", _s(m["real_sync"]), True),
        ("Load imbalance", _s(m["load_imbalance"]), False),
        ("Potential synchronization", _s(m["potential_sync"]), False),
        ("Time variation", _s(m["time_variation"]), False),
        ("Time of start", _s(m["time_of_start"]), False),
        ("Overlap", _s(m["overlap"]), False),
    ]
    return rows


def characteristics_table(iv: Interval) -> str:
    """Render the main characteristics of ``iv`` as an HTML table (components indented)."""
    body = "".join(
        f"<tr><th{' class=sub' if sub else ''}>{'— ' if sub else ''}{_e(label)}</th>"
        f"<td>{value}</td></tr>"
        for label, value, sub in _main_rows(iv)
    )
    return f"<div class='pj-iv'><style>{_STYLE}</style><table>{body}</table></div>"


def _comparative_table(iv: Interval) -> str:
    frame = iv.comparative
    shown = (
        "lost",
        "idle",
        "communication",
        "mpi",
        "potential_sync",
        "time_variation",
        "time_of_start",
        "real_sync",
        "load_imbalance",
        "overlap",
        "cpu",
        "time",
    )
    rows = "".join(
        f"<tr><th>{_e(LABELS[name])}</th><td>{_s(frame.at[name, 'min'])}</td>"
        f"<td>{_e(frame.at[name, 'min_process'])}</td><td>{_s(frame.at[name, 'max'])}</td>"
        f"<td>{_e(frame.at[name, 'max_process'])}</td><td>{_s(frame.at[name, 'mean'])}</td></tr>"
        for name in shown
    )
    return (
        "<table><tr><th></th><th>Tmin</th><th>Nproc</th><th>Tmax</th><th>Nproc</th>"
        f"<th>Tmid</th></tr>{rows}</table>"
    )


def _identity(iv: Interval) -> str:
    return (
        "<table><tr><th>Type</th><th>Level</th><th>Count</th><th>Line</th><th>Id</th>"
        "<th>File</th><th>Processors</th></tr>"
        f"<tr><td class=l>{_TYPES.get(iv.source, iv.source)}</td><td>{iv.level}</td>"
        f"<td>{iv.exe_count}</td><td>{iv.line or ''}</td>"
        f"<td>{iv.user_id if iv.source == 'marker' else ''}</td><td class=l>{_e(iv.file)}</td>"
        f"<td>{iv.processors}</td></tr></table>"
    )


def _title(iv: Interval) -> str:
    return iv.path or "whole program"


def explorer(tree: IntervalTree) -> str:
    """Render the intervals as a ``<details>`` tree for Jupyter (the first few hundred)."""
    shown = 0

    def block(iv: Interval) -> str:
        nonlocal shown
        shown += 1
        summary = (
            f"<b>{_e(iv.name)}</b> <small>[{_TYPES.get(iv.source, iv.source)}"
            f"{', ' + _e(iv.location) if iv.location else ''}, ×{iv.exe_count}, "
            f"P={iv.processors}]</small> exec {_s(iv.execution_time)} s"
            f"{_efficiency_bar(iv.efficiency)}efficiency {iv.efficiency:.3f}"
        )
        rows = "".join(
            f"<tr><th>{'— ' if sub else ''}{_e(label)}</th><td>{value}</td></tr>"
            for label, value, sub in _main_rows(iv)
        )
        inner = []
        for child in iv.children:
            if shown >= _EXPLORER_LIMIT:
                inner.append("<div>…</div>")
                break
            inner.append(block(child))
        cls = " class='root' open" if iv.level == 0 else ""
        return (
            f"<details{cls}><summary>{summary}</summary><table>{rows}</table>"
            + "".join(inner)
            + "</details>"
        )

    content = block(tree.root)
    more = len(tree) - shown
    note = (
        f"<div>{more} more intervals not shown here: use <code>tree.to_html(path)</code> or "
        "<code>tree.report()</code></div>"
        if more > 0
        else ""
    )
    warn = "".join(f"<div>⚠ {_e(w)}</div>" for w in tree.warnings)
    return (
        f"<div class='pj-iv'><style>{_STYLE}</style><b>parjava IntervalTree</b>: {len(tree)} "
        f"intervals, {len(tree.processes)} processes{content}{note}{warn}</div>"
    )


def page(tree: IntervalTree, depth: int | None) -> str:
    """Render the standalone DVM-Predictor-style report page."""
    shown = [iv for iv in tree if depth is None or iv.level <= depth]
    sections = []
    for iv in shown:
        parent = iv.parent
        siblings = parent.children if parent is not None else [iv]
        k = next(i for i, s in enumerate(siblings) if s.id == iv.id)
        up = parent.id if parent is not None else iv.id
        previous = siblings[k - 1].id if k > 0 else up
        following = siblings[k + 1].id if k + 1 < len(siblings) else up
        children = [c for c in iv.children if depth is None or c.level <= depth]
        nested = ""
        if children:
            rows = "".join(
                f"<tr><td><a href='#i{c.id}'>{n}</a></td><td class=l>{_e(c.name)}</td>"
                f"<td class=l>{_TYPES.get(c.source, c.source)}</td><td>{c.level}</td>"
                f"<td>{c.exe_count}</td><td>{c.line or ''}</td><td class=l>{_e(c.file)}</td>"
                f"<td>{c.efficiency:.6f}</td><td>{_s(c.execution_time)}</td></tr>"
                for n, c in enumerate(children, start=1)
            )
            nested = (
                "<h3>Nested intervals</h3><table><tr><th>Go</th><th>Name</th><th>Type</th>"
                "<th>Level</th><th>Count</th><th>Line</th><th>File</th><th>Efficiency</th>"
                f"<th>Execution time</th></tr>{rows}</table>"
            )
        main = "".join(
            f"<tr><th{' class=sub' if sub else ''}>{'— ' if sub else ''}{_e(label)}</th>"
            f"<td>{value}</td></tr>"
            for label, value, sub in _main_rows(iv)
        )
        sections.append(
            f"<section id='i{iv.id}'><h2>{_e(_title(iv))}</h2>{_identity(iv)}"
            f"<h3>Characteristics</h3><table>{main}</table>"
            f"<h3>Comparative characteristics</h3>{_comparative_table(iv)}{nested}"
            f"<nav><a href='#i{up}'>UP</a><a href='#i{previous}'>PREVIOUS</a>"
            f"<a href='#i{following}'>NEXT</a><a href='#i0'>HOME</a></nav></section>"
        )
    settings = ", ".join(f"{k}={v}" for k, v in tree.settings.items())
    warnings = "".join(f"<li>{_e(w)}</li>" for w in tree.warnings)
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>parjava :: interval "
        f"characteristics</title><style>{_STYLE}</style></head><body class='pj-iv'>"
        f"<h1>Interval characteristics</h1><p>{len(tree)} intervals on "
        f"{len(tree.processes)} processes; times in seconds. Settings: {_e(settings)}.</p>"
        + (f"<ul>{warnings}</ul>" if warnings else "")
        + "".join(sections)
        + "</body></html>"
    )
