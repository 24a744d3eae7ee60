"""trace.intervals(): the interval tree in Python on the real Score-P archives."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import parjava as pj
from parjava.cli import main as cli_main
from parjava.intervals import IntervalTree

ARCHIVES = (
    "pipit-ping-pong",
    "pipit-ping-pong-papi",
    "sstmacro-mpi-coverage",
    "sst-ember-otf2",
    "tracer-stencil4d-64",
    "fastotf2-mi300-hip",
)


@pytest.fixture(scope="module")
def stencil(otf2_data: Path) -> pj.Trace:
    return pj.Trace.open(otf2_data / "tracer-stencil4d-64")


@pytest.fixture(scope="module")
def stencil_tree(stencil: pj.Trace) -> IntervalTree:
    return stencil.intervals()


def check_identities(tree: IntervalTree) -> None:
    """The identities of issue 5, from the Python side (seconds: to rounding)."""
    names = tree.characteristics
    col = {n: i for i, n in enumerate(names)}
    for iv in tree:
        m = iv.main
        assert m["total_time"] == pytest.approx(m["execution_time"] * m["processes"], abs=1e-9)
        assert m["efficiency"] * m["total_time"] == pytest.approx(m["productive_time"], abs=1e-9)
        assert m["lost_time"] == pytest.approx(m["total_time"] - m["productive_time"], abs=1e-9)
        assert m["communication"] == pytest.approx(
            m["sendrecv"] + m["collective"] + m["all_to_all"], abs=1e-9
        )
        values = tree._core.values(iv.id)  # integer nanoseconds: exact
        idle = values[:, col["idle"]].sum()
        exec_ns = tree._core.summary(iv.id)["execution_time"]
        assert idle == len(values) * exec_ns - values[:, col["time"]].sum()
        # children's values plus the interval's own part give the interval's values
        own = tree._core.exclusive(iv.id).copy()
        processes = list(tree._core.node_processes(iv.id))
        for child in iv.children:
            child_values = tree._core.values(child.id)[:, : tree.additive_count]
            for row, p in zip(child_values, tree._core.node_processes(child.id)):
                own[processes.index(p)] += row
        np.testing.assert_array_equal(own, values[:, : tree.additive_count])


@pytest.mark.parametrize("name", ARCHIVES)
def test_identities_on_every_archive(otf2_data: Path, name: str) -> None:
    tree = pj.Trace.open(otf2_data / name).intervals()
    check_identities(tree)
    assert 0.0 <= tree.root.efficiency <= 1.0


def test_stencil_tree_structure_and_indexing(stencil_tree: IntervalTree) -> None:
    tree = stencil_tree
    assert len(tree.processes) == 64
    assert tree.root.path == ""
    assert tree.root.level == 0
    loop = tree["MPI_Pcontrol phase/TRACER_Loop"]
    assert loop is tree[("MPI_Pcontrol phase", "TRACER_Loop")]
    assert loop is tree[loop.id]
    assert loop.parent is tree["MPI_Pcontrol phase"]
    assert loop.source == "region"
    assert loop.processors == 64
    assert tree.find("TRACER_Loop") == [loop]
    wall = loop.children[0]
    assert wall.name == "TRACER_WallTime_Loop"
    assert wall.processes == ["0"]  # entered by rank 0 only
    assert [iv.level for iv in tree] == sorted(iv.level for iv in tree)  # a chain here
    with pytest.raises(KeyError, match="no interval at path"):
        tree["MPI_Pcontrol phase/nothing"]
    with pytest.raises(KeyError):
        tree[len(tree)]


def test_per_process_comparative_and_pandas(stencil_tree: IntervalTree) -> None:
    loop = stencil_tree["MPI_Pcontrol phase/TRACER_Loop"]
    frame = loop.per_process
    assert frame.shape == (64, 1 + len(stencil_tree.characteristics))
    assert list(frame.index[:3]) == ["0", "1", "2"]
    np.testing.assert_allclose(frame["time"], frame["cpu"] + frame["mpi"], atol=1e-12)
    cmp = loop.comparative
    assert cmp.loc["mpi", "max"] == pytest.approx(frame["mpi"].max())
    assert cmp.loc["mpi", "max_process"] == frame["mpi"].idxmax()
    assert cmp.loc["mpi", "mean"] == pytest.approx(frame["mpi"].mean())
    assert loop.characteristic("communication") == pytest.approx(frame["communication"].sum())
    table = stencil_tree.to_pandas()
    assert list(table.index) == [iv.path for iv in stencil_tree]
    assert table.loc["MPI_Pcontrol phase/TRACER_Loop", "exe_count"] == 1
    assert table.loc["", "efficiency"] == pytest.approx(stencil_tree.root.efficiency)
    assert len(stencil_tree.to_pandas(depth=1)) == 2
    ex = loop.executions
    assert len(ex) == 64 and (ex["end"] >= ex["begin"]).all()


def test_report_uses_the_seed_layout(stencil_tree: IntervalTree) -> None:
    text = stencil_tree.report(depth=1, per_process=False)
    blocks = text.split("\n\n")
    assert len([b for b in blocks if b.startswith("Interval (")]) == 2
    first = blocks[0].splitlines()
    assert first[0].startswith("Interval (LineNumber = 0 SourceFile = ) Level=0 EXE_Count=1")
    assert first[1] == " ---Main Characteristics---"
    m = stencil_tree.root.main
    assert f"Parallelization Efficiency   {m['efficiency']:.6f}" in first
    assert f"Execution Time               {m['execution_time']:.6f}" in first
    assert "Processors                   64" in first
    assert f"*****SendRecv Time           {m['sendrecv']:.6f}" in first
    # every time is printed with six decimals
    for line in first[2:]:
        for number in re.findall(r"\d+\.\d+", line):
            assert len(number.split(".")[1]) == 6, line
    assert "Nproc  Exec" in stencil_tree.report(depth=0)
    assert stencil_tree["MPI_Pcontrol phase"].report().startswith("Interval (")


def test_html_page_has_sections_links_and_navigation(
    stencil_tree: IntervalTree, tmp_path: Path
) -> None:
    path = tmp_path / "intervals.html"
    text = stencil_tree.to_html(path, depth=2)
    assert path.read_text() == text
    sections = re.findall(r"<section id='i(\d+)'>", text)
    assert [int(s) for s in sections] == [iv.id for iv in stencil_tree if iv.level <= 2]
    loop = stencil_tree["MPI_Pcontrol phase/TRACER_Loop"]
    phase = loop.parent
    assert f"<a href='#i{loop.id}'>1</a>" in text  # nested-interval link from the phase
    # the loop's section: UP and PREVIOUS (first child) go to the phase, HOME to the root
    body = text.split(f"<section id='i{loop.id}'>")[1].split("</section>")[0]
    assert f"<a href='#i{phase.id}'>UP</a>" in body
    assert f"<a href='#i{phase.id}'>PREVIOUS</a>" in body
    assert "<a href='#i0'>HOME</a>" in body
    assert "Nested intervals" not in body  # its child is below the cut-off
    assert "TRACER_WallTime_Loop" not in text


def test_jupyter_explorer_is_a_details_tree(stencil_tree: IntervalTree) -> None:
    html = stencil_tree._repr_html_()
    assert html.count("<details") == len(stencil_tree)
    assert "TRACER_Loop" in html and "Efficiency" in html
    assert "<table>" in stencil_tree.root._repr_html_()


def test_options_reach_the_engine(stencil: pj.Trace) -> None:
    late = stencil.intervals()
    waiting = stencil.intervals(attribution="waiting")
    assert late.root.characteristic("potential_sync") != waiting.root.characteristic(
        "potential_sync"
    )
    mode_b = stencil.intervals(productive="cpu+one-mpi")
    assert mode_b.root.productive_time > late.root.productive_time
    flat = stencil.intervals(sources=["markers"])
    assert len(flat) == 1
    shallow = stencil.intervals(max_depth=1)
    assert max(iv.level for iv in shallow) == 1
    assert shallow.settings["max_depth"] == 1
    check_identities(stencil.intervals(sendrecv="messages", execution="per-execution"))


@pytest.mark.parametrize(
    "options,message",
    [
        ({"productive": "all"}, "productive='all' is not one of"),
        ({"sources": ["markers", "loops"]}, "unknown source"),
        ({"max_depth": -1}, "max_depth must be None or an integer >= 0"),
        ({"attribution": "early"}, "attribution"),
    ],
)
def test_bad_options_are_usage_errors(stencil: pj.Trace, options: dict, message: str) -> None:
    with pytest.raises(pj.UsageError, match=message):
        stencil.intervals(**options)


def test_intervals_accepts_a_path(otf2_data: Path) -> None:
    tree = pj.intervals.intervals(otf2_data / "pipit-ping-pong")
    assert tree.root.processors == 2
    with pytest.raises(pj.UsageError, match=r"expected a parjava\.Trace"):
        pj.intervals.intervals(42)  # type: ignore[arg-type]


def test_cli_text_html_json(otf2_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    archive = str(otf2_data / "pipit-ping-pong")
    assert cli_main(["intervals", archive, "--depth", "0"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Interval (LineNumber = 0")
    assert "int main" not in out
    html_path = tmp_path / "r.html"
    assert cli_main(["intervals", archive, "--format", "html", "-o", str(html_path)]) == 0
    assert "<section id='i1'>" in html_path.read_text()
    json_path = tmp_path / "r.json"
    assert cli_main(["intervals", archive, "--format", "json", "-o", str(json_path)]) == 0
    data = json.loads(json_path.read_text())
    assert [iv["path"] for iv in data["intervals"]] == ["", "int main(int, char**)"]
    assert data["intervals"][0]["main"]["processes"] == 2
    assert cli_main(["intervals", str(tmp_path / "missing")]) == 2
    assert "TraceError" in capsys.readouterr().err
    assert cli_main(["intervals", archive, "--sources", "nope"]) == 2
