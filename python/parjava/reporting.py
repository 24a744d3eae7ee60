"""One self-contained HTML report: machine, predictions, trace, findings, intervals, timeline.

``pj.report("report.html", trace=trace, machine=machine, prediction=pred)`` writes a single
HTML file that needs nothing else to be viewed (no network, no files beside it): styles are
inline and figures are inline PNG images. Each section comes from the part that owns the
object, through that object's own renderer (``Machine._repr_html_``, ``Prediction.fit`` and
its plot, ``Findings.to_html``, the interval tree's explorer, ``Trace.timeline``), so the
report shows what a notebook shows. Sections appear for whatever inputs are given; a trace
alone gives the trace, its findings, its interval tree and its timeline; a prediction gives
its table, the speedup and efficiency curves with the fitted scaling law and its limit, and
the hot fragments with their source lines.

Full pages rendered by the parts (the scanner's report) are embedded with their style sheet
scoped to their section, so no part's styles leak into another.
"""

from __future__ import annotations

import base64
import datetime
import html
import io
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import UsageError

__all__ = ["Report", "Section", "report", "scope_css"]

#: Section keys in the order they appear in a report.
SECTION_ORDER = ("machine", "prediction", "trace", "findings", "explain", "intervals", "timeline")


@dataclass
class Section:
    """One part of a report: an anchor ``key``, a heading, its HTML and a one-line summary."""

    key: str
    title: str
    body: str
    summary: str = ""


@dataclass
class Report:
    """A rendered report: its sections, the full HTML page, and where it was written."""

    title: str
    sections: list[Section]
    path: Path | None = None
    created: str = field(
        default_factory=lambda: datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    )

    @property
    def keys(self) -> list[str]:
        """Section keys in page order (``machine``, ``trace``, ``findings``, ...)."""
        return [s.key for s in self.sections]

    @property
    def html(self) -> str:
        """The complete, self-contained HTML page."""
        return _page(self)

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the page to ``path`` (UTF-8) and return the path."""
        target = Path(path)
        if target.parent and not target.parent.exists():
            raise UsageError(f"report: the directory {target.parent} does not exist")
        target.write_text(self.html, encoding="utf-8")
        self.path = target
        return target

    def to_dict(self) -> dict[str, Any]:
        """Return what the report holds, for scripts (``parjava report --json``)."""
        return {
            "title": self.title,
            "path": str(self.path) if self.path else None,
            "created": self.created,
            "sections": [
                {"key": s.key, "title": s.title, "summary": s.summary} for s in self.sections
            ],
        }

    def _repr_html_(self) -> str:
        # A frame keeps the page's styles away from the notebook's.
        page = html.escape(self.html, quote=True)
        return (
            f'<div><iframe srcdoc="{page}" style=\'width:100%;height:640px;'
            "border:1px solid #ccc'></iframe></div>"
        )

    def __repr__(self) -> str:
        where = f" -> {self.path}" if self.path else ""
        return f"<parjava.Report {self.title!r}: {', '.join(self.keys) or 'empty'}{where}>"


def report(
    path: str | os.PathLike[str] | None = None,
    *,
    trace: Any = None,
    findings: Any = None,
    intervals: Any = None,
    timeline: Any = None,
    machine: Any = None,
    prediction: Any = None,
    fit: str = "auto",
    title: str | None = None,
    source_dirs: Sequence[str | os.PathLike[str]] = (),
    top: int = 10,
    depth: int | None = None,
    scan_options: dict[str, Any] | None = None,
    interval_options: dict[str, Any] | None = None,
    explain: bool | None = None,
) -> Report:
    """Build the report of the given inputs and, with ``path``, write it there.

    - ``trace``: a :class:`parjava.Trace` or the path of an OTF2 archive.
    - ``findings``: a :class:`parjava.Findings`; ``None`` scans ``trace`` (with
      ``scan_options``), ``False`` leaves the section out.
    - ``intervals``: an interval tree; ``None`` analyses ``trace`` (with
      ``interval_options``), ``False`` leaves it out. ``depth`` limits the levels shown.
    - ``timeline``: a matplotlib figure; ``None`` or ``True`` draws the trace's timeline,
      ``False`` leaves it out.
    - ``machine``: a :class:`parjava.Machine` or the path of its JSON.
    - ``prediction``: a :class:`parjava.Prediction` (a sweep over process counts), or a
      mapping ``{label: Prediction}`` / a sequence of them (e.g. one per machine). Each gets
      its table, the speedup and efficiency curves with the scaling law ``fit`` (``"auto"``,
      ``"amdahl"``, ... as :meth:`parjava.Prediction.fit`) and its limit, and the hot fragments
      (``top`` of them) with source lines found in ``source_dirs`` or beside the model.
    - ``source_dirs``: where to find the sources shown at each call site of the findings.
    - ``explain``: the "Why" section of ``trace``: POP metrics (transfer efficiency from
      an ideal-network replay on ``machine``), the critical path and the root causes of
      waiting (docs/explain.md). ``None`` (default) adds it when the trace has wait states,
      ``True`` always (a trace is then required), ``False`` never.

    Returns the :class:`Report` (in Jupyter it shows itself). Raises :class:`UsageError`
    when nothing is given to report on.
    """
    if top < 1:
        raise UsageError(f"report: top must be >= 1, not {top}")
    trace_obj = _as_trace(trace)
    if trace_obj is None and findings not in (None, False, True):
        trace_obj = findings.trace
    machine_obj = _as_machine(machine)

    sections: list[Section] = []
    if machine_obj is not None:
        sections.append(_machine_section(machine_obj))
    predictions = _as_predictions(prediction)
    if predictions:
        sections.append(_prediction_section(predictions, fit, top, source_dirs))
    if trace_obj is not None:
        sections.append(_trace_section(trace_obj))
    findings_obj = _resolve(findings, trace_obj, "findings", lambda t: _scan(t, scan_options))
    if findings_obj is not None:
        sections.append(_findings_section(findings_obj, top, source_dirs))
    if explain and trace_obj is None:
        raise UsageError("report: explain=True needs a trace")
    if trace_obj is not None and explain is not False:
        why = _explain_section(trace_obj, machine_obj, top, only_with_waiting=explain is None)
        if why is not None:
            sections.append(why)
    tree = _resolve(
        intervals, trace_obj, "intervals", lambda t: t.intervals(**(interval_options or {}))
    )
    if tree is not None:
        sections.append(_intervals_section(tree, depth))
    if timeline is not False and (trace_obj is not None or _is_figure(timeline)):
        figure = timeline if _is_figure(timeline) else None
        sections.append(_timeline_section(trace_obj, tree, figure))
    if not sections:
        raise UsageError(
            "report: nothing to report; give a trace, findings, an interval tree, a timeline "
            "figure, a prediction or a machine"
        )
    sections.sort(key=lambda s: SECTION_ORDER.index(s.key))
    default = _default_title(trace_obj, machine_obj, predictions)
    result = Report(title=title or default, sections=sections)
    if path is not None:
        result.save(path)
    return result


# ---------------------------------------------------------------------- inputs


def _as_trace(trace: Any) -> Any:
    if trace is None:
        return None
    if isinstance(trace, (str, os.PathLike)):
        from .trace import Trace

        return Trace.open(trace)
    if not hasattr(trace, "core") or not hasattr(trace, "events"):
        raise UsageError(f"report: trace must be a parjava.Trace or an OTF2 path, not {trace!r}")
    return trace


def _as_machine(machine: Any) -> Any:
    if machine is None:
        return None
    from .machine import Machine

    if isinstance(machine, (str, os.PathLike)):
        return Machine.load(machine)
    if not isinstance(machine, Machine):
        raise UsageError(
            f"report: machine must be a parjava.Machine or a JSON path, not {machine!r}"
        )
    return machine


def _resolve(value: Any, trace: Any, name: str, compute: Any) -> Any:
    """Return the object given, one computed from the trace (None/True) or None (False)."""
    if value is False:
        return None
    if value is None or value is True:
        if trace is None:
            if value is True:
                raise UsageError(f"report: {name}=True needs a trace to compute them from")
            return None
        return compute(trace)
    return value


def _scan(trace: Any, options: dict[str, Any] | None) -> Any:
    from .scan import scan

    return scan(trace, **(options or {}))


def _as_predictions(prediction: Any) -> list[tuple[str, Any]]:
    """Return ``(label, Prediction)`` pairs from one prediction, a mapping or a sequence."""
    if prediction is None or prediction is False:
        return []
    if isinstance(prediction, dict):
        pairs = [(str(k), v) for k, v in prediction.items()]
    elif isinstance(prediction, (list, tuple)):
        pairs = [("", v) for v in prediction]
    else:
        pairs = [("", prediction)]
    for label, pred in pairs:
        if not (hasattr(pred, "runs") and hasattr(pred, "speedup") and hasattr(pred, "hot")):
            raise UsageError(
                f"report: prediction{' ' + repr(label) if label else ''} must be a "
                f"parjava.Prediction (from pj.interpret), not {type(pred).__name__}"
            )
    if not pairs:
        raise UsageError("report: prediction is an empty collection")
    return [(label or _prediction_label(pred), pred) for label, pred in pairs]


def _prediction_label(pred: Any) -> str:
    model = pred.model.name if pred.model is not None else "model"
    machine = getattr(pred.machine, "name", None)
    return f"{model} on {machine}" if machine else model


def _is_figure(value: Any) -> bool:
    return hasattr(value, "savefig") and hasattr(value, "axes")


def _default_title(trace: Any, machine: Any, predictions: list[tuple[str, Any]]) -> str:
    if trace is None and predictions:
        return f"parjava report: {predictions[0][0]}"
    if trace is not None:
        path = trace.metadata.get("path") or ""
        if path:
            return f"parjava report: {Path(path).parent.name or path}"
    if machine is not None:
        return f"parjava report: machine {machine.name}"
    return "parjava report"


# ---------------------------------------------------------------------- sections


def _machine_section(machine: Any) -> Section:
    summary = f"{machine.name}: {machine.nodes} node(s) x {machine.cores_per_node} cores"
    return Section("machine", "Machine", _embed(machine._repr_html_(), "pj-machine"), summary)


def _prediction_section(
    predictions: list[tuple[str, Any]], fit: str, top: int, source_dirs: Sequence[Any]
) -> Section:
    parts = []
    summaries = []
    for label, pred in predictions:
        body, summary = _one_prediction(pred, fit, top, source_dirs)
        parts.append(f"<h3>{html.escape(label)}</h3>{body}")
        summaries.append(f"{label}: {summary}")
    return Section("prediction", "Prediction", "".join(parts), "; ".join(summaries))


def _one_prediction(pred: Any, fit: str, top: int, source_dirs: Sequence[Any]) -> tuple[str, str]:
    """Table, scaling fit and its curves, hot fragments: the HTML and a one-line summary."""
    table = pred.table(failed=False)
    last = table[-1]
    summary = (
        f"np {table[0]['np']}..{last['np']}, {last['time']:.4g} s at np {last['np']}, "
        f"speedup {last['speedup']:.4g}"
    )
    body = [f"<div class='pj-prediction-table'>{pred._repr_html_()}</div>"]
    if pred.network:
        body.append(f"<p class='pj-note'>Network: {html.escape(pred.network)}</p>")
    if len(table) >= 3:
        try:
            law = pred.fit(fit)
        except UsageError as exc:
            body.append(f"<p class='pj-note'>No scaling fit: {html.escape(str(exc))}</p>")
        else:
            summary += f", {law.model} limit {law.limit:.4g}"
            body.append(
                "<p><b>Scaling law fitted to the predicted times</b> (dots: the predictions)</p>"
                f"<pre class='pj-fit'>{html.escape(law.summary())}</pre>"
            )
            figure = law.plot("both")
            try:
                body.append(figure_png(figure))
            finally:
                _close(figure)
    else:
        body.append(
            f"<p class='pj-note'>{len(table)} process count(s): a scaling fit needs at least 3.</p>"
        )
    body.append(_hot_html(pred, top, source_dirs))
    for warning in pred.warnings:
        body.append(f"<p class='pj-note'>warning: {html.escape(warning)}</p>")
    return "".join(body), summary


def _hot_html(pred: Any, top: int, source_dirs: Sequence[Any]) -> str:
    from ._scan_report import _snippet

    rows = pred.hot(top)
    if not rows:
        return "<p class='pj-note'>No node takes time in this prediction.</p>"
    model = pred.model
    files = model.files if model is not None else []
    search = [Path(d) for d in source_dirs]
    if model is not None and getattr(model, "_base_dir", None) is not None:
        search.append(model._base_dir)
    out = [
        f"<p><b>Hot fragments</b> at np {pred.runs[-1].np} (Time x Freq, share of the "
        "run)</p><table class='pj-table pj-hot'><tr><th>share</th><th>node</th><th>kind</th>"
        "<th>label</th><th>time [s]</th><th>freq</th><th>line</th></tr>"
    ]
    snippets = []
    for r in rows:
        line = r["line"]
        out.append(
            f"<tr><td>{r['share'] * 100:.1f} %</td><td>{r['id']}</td>"
            f"<td>{html.escape(str(r['kind']))}</td><td>{html.escape(str(r['label']))}</td>"
            f"<td>{r['time']:.4g}</td><td>{r['freq']}</td><td>{line or ''}</td></tr>"
        )
        source = model.node(r["id"]).get("source", {}) if model is not None else {}
        index = source.get("file")
        if line and isinstance(index, int) and 0 <= index < len(files):
            snippets.append(
                f"<p class='pj-where'>node {r['id']} ({html.escape(str(r['kind']))}), "
                f"{html.escape(files[index])}:{line}</p>"
                # one block per source line: no newline between them, or <pre> doubles it
                + _snippet(files[index], line, search).replace("</span>\n<span", "</span><span")
            )
    out.append("</table>")
    if snippets:
        out.append("<details open><summary>Source of the hot fragments</summary>")
        out.extend(snippets)
        out.append("</details>")
    return "".join(out)


def _trace_section(trace: Any) -> Section:
    body = _embed(trace._repr_html_(), "pj-trace")
    table = trace.summary()
    if hasattr(table, "to_html"):
        body += (
            "<h3>Time per process in the seven categories of MPI functions (seconds)</h3>"
            + table.to_html(float_format=lambda v: f"{v:.6f}", classes="pj-table")
        )
    summary = f"{len(trace):,} events, {trace.process_count} processes, {trace.duration:.6f} s"
    return Section("trace", "Trace", body, summary)


def _findings_section(findings: Any, top: int, source_dirs: Sequence[Any]) -> Section:
    page = findings.to_html(top=top, source_dirs=list(source_dirs))
    codes = len(findings.by_pattern())
    summary = f"{len(findings)} occurrences of {codes} patterns"
    return Section("findings", "Findings", _embed(page, "pj-findings"), summary)


def _explain_section(
    trace: Any, machine: Any, top: int, *, only_with_waiting: bool = False
) -> Section | None:
    """Build the Why section; None when ``only_with_waiting`` and the trace has no wait state."""
    from .causes import critical_path, root_causes
    from .pop import pop

    try:
        causes = root_causes(trace)  # the one analysis behind the critical path too
    except UsageError:
        if only_with_waiting:
            return None  # no MPI process (a GPU or threads-only trace): no MPI wait state
        raise
    if only_with_waiting and causes.wait_states == 0:
        return None
    path = critical_path(trace)
    metrics = pop(trace, machine=machine)
    note = ""
    try:
        table = metrics.table()
    except UsageError as err:
        # A trace the replay cannot run (no MPI call on a main thread, ...): the metrics that
        # need no replay, and why transfer and serialisation efficiency are missing.
        metrics = pop(trace, machine=machine, transfer=False)
        table = metrics.table()
        note = (
            "<p class='pj-note'>Transfer and serialisation efficiency are not given: the "
            f"ideal-network replay failed ({html.escape(str(err))}).</p>"
        )
    body = (
        "<h3>POP efficiencies</h3>"
        + table.to_html(float_format=lambda v: f"{v:.3f}", classes="pj-table")
        + note
        + "<h3>Critical path</h3><pre>"
        + html.escape(path.report(top=top))
        + "</pre><h3>Root causes of waiting</h3><pre>"
        + html.escape(causes.report(top=top))
        + "</pre>"
    )
    summary = (
        f"parallel efficiency {metrics.parallel_efficiency:.3f}, critical path "
        f"{path.length:.6f} s ({path.imbalance_ratio:.1%} imbalance), "
        f"{causes.total_wait:.6f} s of waiting explained"
    )
    return Section("explain", "Why", body, summary)


def _intervals_section(tree: Any, depth: int | None) -> Section:
    body = _embed(tree._repr_html_(), "pj-intervals")
    if depth is not None or len(tree) <= 400:
        body += (
            "<details><summary>Every interval, one section each (the DVM Predictor's "
            "layout)</summary>"
            + _embed(tree.to_html(depth=depth), "pj-intervals-page")
            + "</details>"
        )
    root = tree.root
    summary = (
        f"{len(tree)} intervals, whole run {root.execution_time:.6f} s, "
        f"efficiency {root.efficiency:.3f}"
    )
    return Section("intervals", "Intervals", body, summary)


def _timeline_section(trace: Any, tree: Any, figure: Any) -> Section:
    if figure is None:
        options: dict[str, Any] = {"intervals": tree if tree is not None else False}
        figure = trace.timeline(**options)
        close = True
    else:
        close = False
    try:
        image = figure_png(figure)
    finally:
        if close:
            _close(figure)
    summary = "" if trace is None else f"{trace.process_count} processes, {trace.duration:.6f} s"
    return Section("timeline", "Timeline", image, summary)


def figure_png(figure: Any, dpi: int = 100) -> str:
    """Return ``figure`` as an inline ``<img>`` (PNG, base64): no file beside the page."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f"<img class='pj-figure' alt='figure' src='data:image/png;base64,{data}'>"


def _close(figure: Any) -> None:
    try:
        import matplotlib.pyplot as plt

        plt.close(figure)
    except ImportError:  # pragma: no cover - matplotlib drew the figure
        pass


# ---------------------------------------------------------------------- embedding


_STYLE_RE = re.compile(r"<style[^>]*>(.*?)</style>", re.S | re.I)
_BODY_RE = re.compile(r"<body([^>]*)>(.*)</body>", re.S | re.I)
_PAGE_PARTS_RE = re.compile(r"<!DOCTYPE[^>]*>|</?html[^>]*>|<head>.*?</head>", re.S | re.I)
_CLASS_RE = re.compile(r"""class\s*=\s*(['"])(.*?)\1""", re.S | re.I)


def _embed(fragment: str, scope: str) -> str:
    """Put a part's HTML (a fragment or a whole page) in a ``div.scope``.

    Style sheets are scoped to the div (a page's ``body { ... }`` styles the div), the
    page's ``<head>`` is dropped and the body's classes are kept on the div.
    """
    styles = "\n".join(scope_css(css, f".{scope}") for css in _STYLE_RE.findall(fragment))
    body = _STYLE_RE.sub("", fragment)
    classes = [scope]
    match = _BODY_RE.search(body)
    if match:
        attributes, body = match.group(1), match.group(2)
        found = _CLASS_RE.search(attributes)
        if found:
            classes += found.group(2).split()
    else:
        body = _PAGE_PARTS_RE.sub("", body)
    style = f"<style>{styles}</style>" if styles else ""
    return f"{style}<div class='{' '.join(classes)}'>{body}</div>"


def scope_css(css: str, scope: str) -> str:
    """Return ``css`` with every rule limited to elements inside ``scope`` (a selector).

    ``html``, ``body`` and ``:root`` become the scope itself; ``@media`` and ``@supports``
    blocks are scoped inside; other at-rules (``@font-face``, ``@keyframes``) are kept as
    they are.
    """
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    out: list[str] = []
    i = 0
    while True:
        opening = css.find("{", i)
        if opening < 0:
            break
        prelude = css[i:opening].strip()
        depth, k = 0, opening
        while k < len(css):
            if css[k] == "{":
                depth += 1
            elif css[k] == "}":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        body = css[opening + 1 : k]
        if prelude.startswith(("@media", "@supports")):
            out.append(f"{prelude} {{{scope_css(body, scope)}}}")
        elif prelude.startswith("@"):
            out.append(f"{prelude} {{{body}}}")
        else:
            selectors = [_scope_selector(s.strip(), scope) for s in prelude.split(",")]
            out.append(f"{', '.join(s for s in selectors if s)} {{{body.strip()}}}")
        i = k + 1
    return "\n".join(out)


def _scope_selector(selector: str, scope: str) -> str:
    if not selector:
        return ""
    for root in ("html", "body", ":root"):
        if selector == root:
            return scope
        if selector.startswith(root) and selector[len(root)] in " .#:[>":
            rest = selector[len(root) :]
            return scope + rest if rest[0] in ".#:[" else f"{scope}{rest}"
    return f"{scope} {selector}"


# ---------------------------------------------------------------------- the page


_CSS = """
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #222;
  background: #fafafa; }
header { background: #23395d; color: #fff; padding: 14px 28px; }
header h1 { margin: 0; font-size: 1.45em; } header p { margin: 4px 0 0 0; color: #cfd8e6; }
nav.toc { padding: 8px 28px; background: #eef1f5; border-bottom: 1px solid #d5dbe3; }
nav.toc a { margin-right: 18px; color: #23395d; text-decoration: none; font-weight: 600; }
main { padding: 0 28px 28px 28px; max-width: 90em; }
section.pj-section { background: #fff; border: 1px solid #dde2e8; border-radius: 6px;
  padding: 10px 18px 16px 18px; margin-top: 18px; overflow-x: auto; }
section.pj-section > h2 { font-size: 1.25em; margin: 4px 0 2px 0; color: #23395d; }
section.pj-section > p.summary { margin: 0 0 10px 0; color: #555; }
section.pj-section > div { margin: 0; max-width: none; }
table.pj-table { border-collapse: collapse; font-size: 0.9em; }
table.pj-table td, table.pj-table th { border-bottom: 1px solid #ddd; padding: 3px 8px;
  text-align: right; }
img.pj-figure { max-width: 100%; height: auto; }
p.pj-note { color: #7a5a00; }
pre.pj-fit { background: #f4f6f9; padding: 6px 10px; }
#prediction .src { border: 1px solid #ddd; margin: 2px 0 10px 0; }
#prediction .src .file { background: #f0f0f0; padding: 2px 6px; font-size: 0.85em; }
#prediction .src pre { margin: 0; padding: 4px 6px; }
#prediction .src span { display: block; } #prediction .src span.hit { background: #fff3b0; }
#prediction .missing, #prediction .pj-where { color: #666; font-size: 0.9em; }
footer { color: #777; font-size: 0.85em; padding: 0 28px 20px 28px; }
"""


def _page(report: Report) -> str:
    from . import __version__

    toc = "".join(f"<a href='#{s.key}'>{html.escape(s.title)}</a>" for s in report.sections)
    sections = "".join(
        f"<section class='pj-section' id='{s.key}'><h2>{html.escape(s.title)}</h2>"
        f"<p class='summary'>{html.escape(s.summary)}</p>{s.body}</section>"
        for s in report.sections
    )
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<meta name='generator' content='parjava {html.escape(__version__)}'>"
        f"<title>{html.escape(report.title)}</title><style>{_CSS}</style></head><body>"
        f"<header><h1>{html.escape(report.title)}</h1><p>{len(report.sections)} sections, "
        f"written {html.escape(report.created)} by parjava {html.escape(__version__)}</p></header>"
        f"<nav class='toc'>{toc}</nav><main>{sections}</main>"
        "<footer>Self-contained: styles and figures are inline; the page needs no network."
        "</footer></body></html>"
    )
