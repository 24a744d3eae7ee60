"""`pj.report` / `parjava report`: one self-contained HTML page, rendered by headless Chromium.

The inputs are real: Score-P's ping-pong trace and a 64-rank trace of parjava's own tracer
(tests/data/otf2), a machine preset and a prediction sweep of a stencil model interpreted here.
The page is parsed and its content checked against the objects it shows. Where Debian's
`chromium` is installed, Chromium also opens the page from disk with no network, runs a
checker script added to a copy of it, and must log nothing on its console (those two tests
are skipped without it: a browser is not needed to build or test parjava).
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import ClassVar

import pytest

import parjava as pj
from parjava.reporting import scope_css

DATA = Path(__file__).resolve().parents[1] / "data" / "otf2"
PING_PONG = DATA / "pipit-ping-pong" / "traces.otf2"
STENCIL64 = DATA / "tracer-stencil4d-64" / "traces.otf2"


@pytest.fixture(scope="module")
def ping_pong() -> pj.Trace:
    return pj.Trace.open(PING_PONG)


STENCIL_C = """\
#include <mpi.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  for (int it = 0; it < niter; it++) {
    for (int i = 0; i < N / size; i++)
      relax(i);
    MPI_Sendrecv(halo, 1024, MPI_BYTE, right, 0, ghost, 1024, MPI_BYTE, left, 0, comm, &st);
    MPI_Allreduce(&r, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  }
}
"""


def stencil_model() -> pj.Model:
    m = pj.Model("stencil", params={"N": 4096, "niter": 4}, file="stencil.c")
    with m.loop("it", 0, "niter", line=4):
        with m.loop("i", 0, "N / size", line=5):
            m.compute(1e-7, line=6)
        m.sendrecv(
            dest="(rank + 1) % size", sendbytes=1024, source="(rank - 1 + size) % size", line=7
        )
        m.allreduce(bytes=8, line=8)
    return m


@pytest.fixture(scope="module")
def sweep() -> pj.Prediction:
    return pj.interpret(stencil_model(), pj.Machine.preset("infiniband-edr"), np=[1, 2, 4, 8, 16])


class _Outline(HTMLParser):
    """Collects what the page references and the ids and tags it holds."""

    VOID: ClassVar[set[str]] = {
        "meta",
        "img",
        "br",
        "hr",
        "input",
        "link",
        "col",
        "wbr",
        "area",
        "source",
    }

    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.references: list[str] = []
        self.stack: list[str] = []
        self.mismatched: list[str] = []
        self.tags: dict[str, int] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] = self.tags.get(tag, 0) + 1
        for name, value in attrs:
            if name == "id" and value:
                self.ids.append(value)
            if name in ("src", "href") and value is not None:
                self.references.append(value)
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID:
            return
        if self.stack and self.stack[-1] == tag:
            self.stack.pop()
        else:
            self.mismatched.append(tag)


def _outline(text: str) -> _Outline:
    parser = _Outline()
    parser.feed(text)
    parser.close()
    return parser


def _assert_self_contained(text: str) -> None:
    outline = _outline(text)
    for ref in outline.references:
        assert ref.startswith(("data:", "#")), f"the page refers to {ref[:80]}"
    assert "<link" not in text.lower() and "@import" not in text
    assert not re.search(r"url\((?!['\"]?data:)", text), "a style refers to an outside file"
    assert outline.mismatched == [] and outline.stack == [], (outline.mismatched, outline.stack)


def test_trace_alone_gives_every_trace_section(ping_pong: pj.Trace, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    rep = pj.report(out, trace=ping_pong)
    # The ranks wait for each other (Late Sender): the Why section is part of the default.
    assert rep.keys == ["trace", "findings", "explain", "intervals", "timeline"]
    text = out.read_text(encoding="utf-8")
    assert text == rep.html
    _assert_self_contained(text)
    outline = _outline(text)
    assert {"trace", "findings", "explain", "intervals", "timeline"} <= set(outline.ids)
    # The parts' own renderers are in the page: the scanner's metric tree and worst rows,
    # the interval explorer, the trace summary table, the timeline as an inline PNG.
    findings = pj.scan(ping_pong)
    assert f"{len(findings)} occurrences" in text
    assert "Metric tree" in text and "Late Sender" in text
    assert "parjava IntervalTree" in text and "Efficiency" in text
    assert "blocking receive/wait" in text
    assert text.count("data:image/png;base64,") == 1
    assert rep.to_dict()["sections"][1]["summary"].startswith(f"{len(findings)} occurrences")


def test_sections_follow_the_inputs(ping_pong: pj.Trace, tmp_path: Path) -> None:
    machine = pj.Machine.preset("infiniband-edr")
    only_machine = pj.report(machine=machine)
    assert only_machine.keys == ["machine"] and only_machine.path is None
    assert "infiniband-edr" in only_machine.html
    findings = pj.scan(ping_pong, eps=0)
    no_extras = pj.report(findings=findings, intervals=False, timeline=False)
    # The trace comes with the findings; the Why section with a trace whose ranks waited.
    assert no_extras.keys == ["trace", "findings", "explain"]
    everything = pj.report(
        tmp_path / "all.html", trace=ping_pong, machine=machine, title="ping & pong"
    )
    assert everything.keys == ["machine", "trace", "findings", "explain", "intervals", "timeline"]
    assert "<title>ping &amp; pong</title>" in everything.html
    tree = ping_pong.intervals()
    given = pj.report(
        trace=ping_pong, findings=False, intervals=tree, timeline=False, explain=False
    )
    assert given.keys == ["trace", "intervals"]


def _section(text: str, key: str) -> str:
    found = re.search(rf"<section class='pj-section' id='{key}'>(.*?)</section>", text, re.S)
    assert found, f"no {key} section"
    return found.group(1)


def test_prediction_section_shows_sweep_fit_and_hot_fragments(
    sweep: pj.Prediction, tmp_path: Path
) -> None:
    (tmp_path / "stencil.c").write_text(STENCIL_C, encoding="utf-8")
    rep = pj.report(tmp_path / "p.html", prediction=sweep, source_dirs=[tmp_path])
    assert rep.keys == ["prediction"]
    text = (tmp_path / "p.html").read_text(encoding="utf-8")
    _assert_self_contained(text)
    part = _section(text, "prediction")
    # the table: one row per process count, with the predicted times
    for row in sweep.table():
        assert f"<td>{row['np']}</td>" in part and f"{row['time']:.6g}" in part
    # the fitted law, its limit and its curves (one inline figure)
    law = sweep.fit("auto")
    assert html.escape(law.summary()) in part
    assert f"limit {law.limit:.4g}" in rep.sections[0].summary
    assert part.count("data:image/png;base64,") == 1
    # hot fragments with the source line of each (the inner loop body is line 6)
    hot = sweep.hot(10)
    assert [r["id"] for r in hot] == [
        int(n) for n in re.findall(r"<tr><td>[0-9.]+ %</td><td>(\d+)</td>", part)
    ]
    assert "relax(i);" in part and "MPI_Allreduce(&amp;r" in part
    assert re.search(r"<span class=\"hit\"><b>\s+6</b>\s+relax\(i\);", part)
    title = f"stencil on {sweep.machine.name}"
    assert f"<h3>{title}</h3>" in part and f"<title>parjava report: {title}</title>" in text


def test_predictions_on_two_machines_and_without_fit(tmp_path: Path) -> None:
    model = stencil_model()
    slow = pj.interpret(model, pj.Machine.preset("ethernet-10g"), np=[1, 4, 16, 64])
    fast = pj.interpret(model, pj.Machine.preset("infiniband-edr"), np=[1, 4, 16, 64])
    rep = pj.report(prediction={"10G Ethernet": slow, "InfiniBand": fast}, top=3)
    part = _section(rep.html, "prediction")
    assert part.index("<h3>10G Ethernet</h3>") < part.index("<h3>InfiniBand</h3>")
    assert part.count("data:image/png;base64,") == 2
    assert rep.sections[0].summary.startswith("10G Ethernet: np 1..64")
    # sources not found: each hot fragment says where it looked instead of failing
    assert "Source not found: stencil.c" in part
    two = pj.report(prediction=pj.interpret(model, pj.Machine.preset("infiniband-edr"), np=[1, 8]))
    assert "a scaling fit needs at least 3" in two.html
    assert "data:image/png" not in two.html


def test_bad_inputs_are_usage_errors(ping_pong: pj.Trace, tmp_path: Path) -> None:
    with pytest.raises(pj.UsageError, match="nothing to report"):
        pj.report()
    with pytest.raises(pj.UsageError, match="needs a trace"):
        pj.report(machine=pj.Machine.preset("shared-memory"), findings=True)
    with pytest.raises(pj.UsageError, match="does not exist"):
        pj.report(tmp_path / "no" / "such" / "dir.html", trace=ping_pong)
    with pytest.raises(pj.UsageError, match=r"parjava\.Machine"):
        pj.report(machine=42)
    with pytest.raises(pj.TraceError):
        pj.report(trace=tmp_path / "missing.otf2")
    with pytest.raises(pj.UsageError, match=r"must be a parjava\.Prediction"):
        pj.report(prediction={"x": 3.0})
    with pytest.raises(pj.UsageError, match="empty"):
        pj.report(prediction=[])


def test_scoped_styles_do_not_leak() -> None:
    css = """
    /* comment */ body { margin: 2em } h1, .x > td { color: red }
    body.dark p { color: white }
    @media print { table { width: 100% } }
    @font-face { font-family: X; src: local(X) }
    """
    scoped = scope_css(css, ".s")
    assert ".s {margin: 2em}" in scoped
    assert ".s h1, .s .x > td {color: red}" in scoped
    assert ".s.dark p {color: white}" in scoped
    assert "@media print {.s table {width: 100%}}" in scoped
    assert "@font-face {" in scoped and "comment" not in scoped
    # Every rule of an embedded page is limited to its section.
    rep = pj.report(trace=PING_PONG, intervals=False, timeline=False)
    for style in re.findall(r"<style>(.*?)</style>", rep.html, re.S)[1:]:
        for prelude in re.findall(r"([^{}]+)\{", style):
            for selector in prelude.split(","):
                assert selector.strip().startswith(".pj-"), selector


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("headless Chromium not installed (`apt-get install -y chromium`)")


# Added to a copy of the page: records in the DOM what only a browser knows (images decoded,
# sections laid out with a size, the explorer's <details> present) for --dump-dom to show.
_CHECKER = """<script>
window.addEventListener("load", () => {
  const images = Array.from(document.images);
  const bad = images.filter(i => !(i.complete && i.naturalWidth > 0)).length;
  const sections = Array.from(document.querySelectorAll("section.pj-section"));
  const sized = sections.filter(s => s.getBoundingClientRect().height > 40).map(s => s.id);
  const out = document.createElement("pre");
  out.id = "pj-check";
  out.textContent = JSON.stringify({images: images.length, bad_images: bad, sized: sized,
    details: document.querySelectorAll("details").length});
  document.body.appendChild(out);
});
</script>"""


def _render(page: Path, tmp_path: Path) -> tuple[dict, str, str]:
    probe = tmp_path / "probe.html"
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", _CHECKER + "</body>"))
    command = [
        _chromium(),
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--enable-logging=stderr",
        "--v=0",
        "--virtual-time-budget=10000",
        "--dump-dom",
        probe.as_uri(),
    ]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    found = re.search(r'<pre id="pj-check">(.*?)</pre>', proc.stdout, re.S)
    assert found, "the checker did not run:\n" + proc.stdout[-2000:]
    return json.loads(found.group(1)), proc.stdout, proc.stderr


@pytest.mark.slow
def test_chromium_renders_the_report_without_console_errors(tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    pj.report(page, trace=STENCIL64, machine=pj.Machine.preset("ethernet-10g"))
    check, dom, log = _render(page, tmp_path)
    console = [line for line in log.splitlines() if ":CONSOLE" in line]
    assert console == [], console
    assert check["images"] == 1 and check["bad_images"] == 0
    assert check["sized"] == ["machine", "trace", "findings", "explain", "intervals", "timeline"]
    assert check["details"] > 0
    for heading in ("Machine", "Trace", "Findings", "Why", "Intervals", "Timeline"):
        assert f"<h2>{heading}</h2>" in dom


@pytest.mark.slow
def test_chromium_reports_console_errors(tmp_path: Path) -> None:
    """The check above can fail: a page with a script error is caught."""
    page = tmp_path / "broken.html"
    text = pj.report(machine=pj.Machine.preset("shared-memory")).html
    page.write_text(text.replace("</body>", "<script>undefinedFunction()</script></body>"))
    _, _, log = _render(page, tmp_path)
    assert any(":CONSOLE" in line and "undefinedFunction" in line for line in log.splitlines())


def test_cli_report(tmp_path: Path) -> None:
    out = tmp_path / "cli.html"
    run = subprocess.run(
        [sys.executable, "-m", "parjava", "report", str(PING_PONG), "-o", str(out), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    info = json.loads(run.stdout)
    keys = [s["key"] for s in info["sections"]]
    assert keys == ["trace", "findings", "explain", "intervals", "timeline"]  # Why by default
    assert out.exists() and info["path"] == str(out)
    _assert_self_contained(out.read_text(encoding="utf-8"))
    bare = subprocess.run(
        [sys.executable, "-m", "parjava", "report"], capture_output=True, text=True, check=False
    )
    assert bare.returncode == 2 and "give a trace" in bare.stderr


def test_cli_report_of_a_model(tmp_path: Path) -> None:
    model_file = tmp_path / "stencil.json"
    stencil_model().save(model_file)
    (tmp_path / "stencil.c").write_text(STENCIL_C, encoding="utf-8")
    out = tmp_path / "model.html"
    command = [sys.executable, "-m", "parjava", "report", "--model", str(model_file)]
    command += ["--machine", "infiniband-edr", "--np", "1,2,4,8", "--params", "niter=2"]
    command += ["--fit", "amdahl", "-o", str(out), "--json"]
    run = subprocess.run(command, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    info = json.loads(run.stdout)
    assert [s["key"] for s in info["sections"]] == ["machine", "prediction"]
    expected = pj.interpret(
        stencil_model(), pj.Machine.preset("infiniband-edr"), np=[1, 2, 4, 8], params={"niter": 2}
    )
    part = _section(out.read_text(encoding="utf-8"), "prediction")
    assert f"{expected.times[-1]:.6g}" in part and "amdahl: T(p) = a + b/p" in part
    # the model's directory is searched for its sources
    assert "relax(i);" in part
    no_machine = subprocess.run(
        [sys.executable, "-m", "parjava", "report", "--model", str(model_file)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert no_machine.returncode == 2 and "--model needs --machine" in no_machine.stderr
