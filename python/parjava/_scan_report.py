"""Reports of :class:`parjava.scan.Findings`: the metric tree, text and HTML.

The metric tree follows Cube's layout (seed 001 notes §4.4 proposal; Scalasca's metric
hierarchy, anchors §1): family > group > pattern > call site > location. Values are inclusive
lost seconds; a pattern whose time is already part of its parent pattern (Scalasca's Wrong
Order inside Late Sender) does not add to it. Families overlap by design, so the root shows no
total.
"""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._scan_summary import FindingsSummary, PatternTotals, seconds

if TYPE_CHECKING:
    from .scan import Findings

_SNIPPET_CONTEXT = 3  # source lines shown before and after a call site


def seconds_text(value: float) -> str:
    """Format seconds with a unit that keeps three significant digits, e.g. ``2.5 ms``."""
    a = abs(value)
    if a >= 1.0 or a == 0.0:
        return f"{value:.3g} s"
    if a >= 1e-3:
        return f"{value * 1e3:.3g} ms"
    if a >= 1e-6:
        return f"{value * 1e6:.3g} us"
    return f"{value * 1e9:.3g} ns"


class MetricTree:
    """A node of the metric tree: ``name``, inclusive ``value`` (s), ``count``, ``children``."""

    def __init__(self, name: str, kind: str, value: float = 0.0, count: int = 0) -> None:
        self.name = name
        self.kind = kind  # "root", "family", "group", "pattern", "callsite", "location"
        self.value = value
        self.count = count
        self.children: list[MetricTree] = []

    def child(self, name: str, kind: str) -> MetricTree:
        """Return the child called `name`, created when missing."""
        for c in self.children:
            if c.name == name:
                return c
        node = MetricTree(name, kind)
        self.children.append(node)
        return node

    def find(self, name: str) -> MetricTree | None:
        """Return the first node called `name` in this subtree (depth first)."""
        if self.name == name:
            return self
        for c in self.children:
            found = c.find(name)
            if found is not None:
                return found
        return None

    def to_dict(self) -> dict[str, Any]:
        """Return the subtree as nested dicts (name, kind, value, count, children)."""
        return {
            "name": self.name,
            "kind": self.kind,
            "value": self.value,
            "count": self.count,
            "children": [c.to_dict() for c in self.children],
        }

    def render(self, depth: int = 6, min_value: float = 0.0) -> str:
        """Indented text, one node per line, children by decreasing value."""
        lines: list[str] = []

        def walk(node: MetricTree, level: int) -> None:
            if level > depth or (level > 0 and abs(node.value) < min_value):
                return
            label = "  " * level + node.name
            count = f"{node.count} occ." if node.count else ""
            lines.append(f"{label:<68} {seconds_text(node.value):>11} {count:>10}")
            for c in sorted(node.children, key=lambda n: -abs(n.value)):
                walk(c, level + 1)

        walk(self, 0)
        return "\n".join(lines)

    def __repr__(self) -> str:
        value = seconds_text(self.value)
        return f"<MetricTree {self.name}: {value}, {len(self.children)} children>"

    def __str__(self) -> str:
        return self.render()


def _location_label(rank: int, thread: int) -> str:
    if rank < 0:
        return "location ?"
    return f"rank {rank}" + (f" thread {thread}" if thread else "")


def build_tree(summary: FindingsSummary) -> MetricTree:
    """Build the metric tree of the summarized findings (only patterns that occur).

    From the summary's groups by pattern, call site, call and location; each value is the
    group's exact sum of nanoseconds in seconds.
    """
    root = MetricTree("findings (families overlap: totals are per family)", "root")
    totals = summary.totals()
    present = set(totals.present())
    groups: dict[int, list[tuple[str, int, int, int, int]]] = {}
    for (pid, site, call, rank, thread), (ns, count, *_) in summary.groups.items():
        groups.setdefault(pid, []).append((f"{site} {call}", rank, thread, ns, count))
    for p in summary.table:
        if p.id not in present:
            continue
        node = root.child(p.family_title, "family")
        for segment in [s for s in p.tree_group.split("/") if s]:
            node = node.child(segment, "group")
        leaf = node.child(p.name, "pattern")
        leaf.kind = "pattern"
        leaf.value = seconds(totals.ns[p.id])
        leaf.count = int(totals.counts[p.id])
        entries = groups.get(p.id, [])
        for site in sorted({label for label, *_ in entries}):
            site_node = leaf.child(site, "callsite")
            at_site = sorted((r, t, v, c) for label, r, t, v, c in entries if label == site)
            site_node.value = seconds(sum(v for _, _, v, _ in at_site))
            site_node.count = sum(c for *_, c in at_site)
            for rank, thread in sorted({(r, t) for r, t, _, _ in at_site}):
                loc = site_node.child(_location_label(rank, thread), "location")
                ns = sum(v for r, t, v, _ in at_site if (r, t) == (rank, thread))
                loc.value = seconds(ns)
                loc.count = sum(c for r, t, _, c in at_site if (r, t) == (rank, thread))
    _name_partial_parents(root, {p.name for p in summary.table})

    def total(node: MetricTree) -> float:
        if node.kind in ("pattern", "callsite", "location"):
            for c in node.children:
                if c.kind == "group":
                    total(c)  # nested groups (Wrong Order under Late Sender) are part of it
            return node.value
        node.value = sum(total(c) for c in node.children)
        node.count = sum(c.count for c in node.children)
        return node.value

    for family in root.children:
        total(family)
    return root


def _name_partial_parents(node: MetricTree, pattern_names: set[str]) -> None:
    """Rename group nodes named after a pattern whose own severity is not in the tree.

    Scalasca's Wrong Order sits inside Late Sender. Scanning for the wrong-order patterns
    alone leaves a "Late Sender" node that holds only their part; the full name would read as
    all of Late Sender, so the node says what it holds instead.
    """
    for child in node.children:
        _name_partial_parents(child, pattern_names)
    if node.kind == "group" and node.name in pattern_names:
        parts = ", ".join(c.name for c in node.children)
        node.name = f"{node.name}: only its {parts} part"


def _tree_text(tree: MetricTree, depth: int) -> str:
    lines = []

    def walk(node: MetricTree, level: int) -> None:
        if level > depth:
            return
        if node.kind != "root":
            label = "  " * (level - 1) + node.name
            count = f"{node.count} occ." if node.count else ""
            lines.append(f"  {label:<66} {seconds_text(node.value):>10} {count:>10}")
        for c in sorted(node.children, key=lambda n: -abs(n.value)):
            walk(c, level + 1)

    walk(tree, 0)
    return "\n".join(lines)


def _parameters_text(findings: Findings) -> list[str]:
    p = findings.parameters
    intra, inter, source = findings.eager_limit
    limit = "unlimited" if inter >= 2**63 else f"{inter} B"
    return [
        f"eps = {seconds_text(p['eps'])}, send_recv_delta = {seconds_text(p['send_recv_delta'])}, "
        f"wrong-order window = {p['wrong_order_window']}",
        f"eager limit: {source} (intra-node {intra} B, inter-node {limit})",
        f"PGAS: entry {p['pgas_entry_sync']}sync, exit {p['pgas_exit_sync']}sync, completion "
        f"{p['pgas_completion']}, gather root {p['pgas_gather_root']}, prefix "
        f"{'clamped' if p['pgas_prefix_clamp'] else 'literal'}, alone {p['pgas_alone']}, "
        f"allocation root {p['pgas_allocation_root']}"
        + (", also on MPI collectives" if p["pgas_mpi_collectives"] else ""),
    ]


def text_report(findings: Findings, top: int = 10, summary: FindingsSummary | None = None) -> str:
    """Render the text report of `findings`.

    ``summary`` (of at least ``top`` worst rows) stands for the rows: `findings` then gives
    the header only (a parallel scan's rank 0 summarizes the rows as they are merged).
    """
    if summary is None:
        summary = FindingsSummary.of(findings, top)
    trace = findings.trace
    path = trace.metadata.get("path") or "trace"
    kinds = len(summary.totals().present())
    out = [
        f"parjava scan of {path}: {summary.rows} occurrences of {kinds} patterns in "
        f"{findings.events_scanned:,} events ({trace.process_count} processes), "
        f"scanned in {seconds_text(findings.seconds)}",
        *_parameters_text(findings),
    ]
    notes = [n for n in findings.notes if not n.startswith("eager limit")]
    out += [f"note: {n}" for n in notes]
    if summary.rows == 0:
        out.append(
            f"No pattern occurrence loses {seconds_text(findings.parameters['eps'])} (eps) or more."
        )
        return "\n".join(out) + "\n"
    out += ["", "Metric tree (lost time, inclusive):", _tree_text(build_tree(summary), 4)]
    all_sites = summary.call_sites()
    sites = all_sites[:top]
    info = {p.key: p for p in summary.table}
    out += ["", f"Worst call sites (of {len(all_sites)}):"]
    for k, g in enumerate(sites, 1):
        ranks = sorted(g["ranks"])
        rank_text = ", ".join(str(r) for r in ranks[:8]) + (" ..." if len(ranks) > 8 else "")
        out.append(
            f"{k:>3}. {g['code']} {g['name']} at {g['callsite']} ({g['call']}): "
            f"{seconds_text(g['total'])} in {g['occurrences']} occurrences on rank(s) {rank_text}"
        )
        out.append(f"     try: {info[g['pattern']].fix}")
    out += ["", "Worst occurrences:"]
    for k, (time, _, _, text) in enumerate(summary.worst()[:top], 1):
        out.append(f"{k:>3}. t={time:.6f} s  {text}")
    return "\n".join(out) + "\n"


def _find_source(file: str, search: Sequence[Path]) -> Path | None:
    if not file:
        return None
    candidate = Path(file)
    if candidate.is_absolute() and candidate.is_file():
        return candidate
    for base in search:
        for name in (candidate, Path(candidate.name)):
            full = base / name
            if full.is_file():
                return full
    return None


def _snippet(file: str, line: int, search: Sequence[Path]) -> str:
    found = _find_source(file, search)
    if found is None:
        where = ", ".join(str(s) for s in search) or "nowhere"
        if not file:
            return '<p class="missing">The trace records no call site for this call.</p>'
        return (
            f'<p class="missing">Source not found: {html.escape(file)} '
            f"(looked as recorded and in {html.escape(where)}; pass source_dirs=...)</p>"
        )
    try:
        lines = found.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as exc:
        return (
            f'<p class="missing">Cannot read {html.escape(str(found))}: {html.escape(str(exc))}</p>'
        )
    first = max(1, line - _SNIPPET_CONTEXT)
    last = min(len(lines), line + _SNIPPET_CONTEXT)
    rows = []
    for n in range(first, last + 1):
        cls = ' class="hit"' if n == line else ""
        rows.append(f"<span{cls}><b>{n:>5}</b>  {html.escape(lines[n - 1])}</span>")
    return (
        f'<div class="src"><div class="file">{html.escape(str(found))}</div>'
        f"<pre>{chr(10).join(rows)}</pre></div>"
    )


def _tree_html(node: MetricTree) -> str:
    children = sorted(node.children, key=lambda n: -abs(n.value))
    label = (
        f"{html.escape(node.name)} <span class='v'>{seconds_text(node.value)}"
        + (f", {node.count} occ." if node.count else "")
        + "</span>"
    )
    if node.kind == "root":
        return "".join(_tree_html(c) for c in children)
    if not children:
        return f"<div class='leaf'>{label}</div>"
    opened = " open" if node.kind in ("family", "group") else ""
    inner = "".join(_tree_html(c) for c in children)
    return f"<details{opened}><summary>{label}</summary>{inner}</details>"


_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em; max-width: 75em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
details { margin-left: 1.2em; } .leaf { margin-left: 2.4em; }
.v { color: #555; font-variant-numeric: tabular-nums; }
table { border-collapse: collapse; width: 100%; font-size: 0.92em; }
td, th { border-bottom: 1px solid #ddd; padding: 4px 6px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
.src pre { background: #f8f8f8; padding: 6px; margin: 4px 0; overflow-x: auto; }
.src .file { color: #666; font-size: 0.85em; } .src span { display: block; }
.hit { background: #ffe7a8; } .missing { color: #a33; }
.fix { color: #245; }
"""


def html_report(
    findings: Findings,
    top: int = 50,
    source_dirs: Sequence[str | os.PathLike[str]] = (),
    summary: FindingsSummary | None = None,
) -> str:
    """Render the HTML report of `findings`, with source lines at each call site.

    ``summary`` stands for the rows as in :func:`text_report`.
    """
    if summary is None:
        summary = FindingsSummary.of(findings, top)
    trace = findings.trace
    trace_path = trace.metadata.get("path") or ""
    search = [Path(d) for d in source_dirs]
    if trace_path:
        search += [Path(trace_path).resolve().parent, Path(trace_path).resolve().parent.parent]
    search.append(Path.cwd())
    info = {p.key: p for p in summary.table}
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>",
        f"<title>parjava scan: {html.escape(trace_path or 'trace')}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>parjava scan of {html.escape(trace_path or 'a trace')}</h1>",
        f"<p>{summary.rows} occurrences in {findings.events_scanned:,} events "
        f"({trace.process_count} processes), scanned in {seconds_text(findings.seconds)}.</p><ul>",
    ]
    parts += [f"<li>{html.escape(t)}</li>" for t in _parameters_text(findings)]
    parts += [
        f"<li>{html.escape(n)}</li>" for n in findings.notes if not n.startswith("eager limit")
    ]
    parts.append("</ul>")
    if summary.rows == 0:
        parts.append(
            f"<p>No pattern occurrence loses {seconds_text(findings.parameters['eps'])} (eps) or "
            "more.</p></body></html>"
        )
        return "".join(parts)
    parts += ["<h2>Metric tree (lost time, inclusive)</h2>", _tree_html(build_tree(summary))]
    parts.append("<h2>Call sites</h2><table><tr><th>pattern</th><th>where</th>")
    parts.append("<th>lost</th><th>occ.</th><th>ranks</th><th>source and fix</th></tr>")
    for g in summary.call_sites()[:top]:
        ranks = sorted(g["ranks"])
        rank_text = ", ".join(str(r) for r in ranks[:16]) + (" ..." if len(ranks) > 16 else "")
        parts.append(
            f"<tr><td>{html.escape(g['code'])} {html.escape(g['name'])}</td>"
            f"<td>{html.escape(g['callsite'])}<br>{html.escape(g['call'])}</td>"
            f"<td class='n'>{seconds_text(g['total'])}</td><td class='n'>{g['occurrences']}</td>"
            f"<td>{html.escape(rank_text)}</td><td>{_snippet(g['file'], g['line'], search)}"
            f"<div class='fix'>try: {html.escape(info[g['pattern']].fix)}</div></td></tr>"
        )
    parts.append("</table><h2>Worst occurrences</h2><table>")
    parts.append("<tr><th>time (s)</th><th>lost</th><th>O_D</th><th>diagnosis</th></tr>")
    for time, idle, distance, text in summary.worst()[:top]:
        od = "" if distance < 0 else seconds_text(distance * 1e-9)
        parts.append(
            f"<tr><td class='n'>{time:.6f}</td>"
            f"<td class='n'>{seconds_text(idle)}</td>"
            f"<td class='n'>{od}</td><td>{html.escape(text)}</td></tr>"
        )
    parts.append("</table></body></html>")
    return "".join(parts)


def html_summary(findings: Findings) -> str:
    """Render a compact HTML table for notebooks: per pattern occurrences and lost time."""
    totals = PatternTotals.of_rows(findings._patterns, findings.raw)
    rows = []
    for pid in totals.present():
        p = findings._patterns[pid]
        rows.append((p.family, p.code, p.name, int(totals.counts[pid]), seconds(totals.ns[pid])))
    rows.sort(key=lambda r: -r[4])
    body = "".join(
        f"<tr><td>{f}</td><td>{html.escape(c)}</td><td>{html.escape(name)}</td>"
        f"<td style='text-align:right'>{n}</td>"
        f"<td style='text-align:right'>{seconds_text(t)}</td></tr>"
        for f, c, name, n, t in rows
    )
    eps = seconds_text(findings.parameters["eps"])
    return (
        f"<p><b>Findings</b>: {len(totals)} occurrences (eps {eps})"
        "</p><table><tr><th>family</th><th>code</th><th>pattern</th><th>occ.</th><th>lost</th>"
        f"</tr>{body}</table>"
    )
