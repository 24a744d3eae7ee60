"""parjava.scan's Python face: parameters and their errors, the Findings object (array, pandas,
aggregates, metric tree, reports) and the ``parjava scan`` command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import parjava as pj
from parjava.cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "otf2"
PINGPONG = DATA / "pipit-ping-pong" / "traces.otf2"
COVERAGE = DATA / "sstmacro-mpi-coverage" / "traces.otf2"


@pytest.fixture(scope="module")
def coverage() -> pj.Findings:
    return pj.scan(pj.Trace.open(COVERAGE), eps=0)


def test_pattern_catalogue() -> None:
    table = pj.patterns()
    codes = {p.code for p in table}
    for code in [f"B{i}" for i in (1, 2, 3, 5, 6, 7, 8, 9, 10)]:
        assert code in codes
    assert {"N1", "N2", "N4", "N5", "N6", "N7", "N8", "SR"} <= codes
    assert {f"P{i}" for i in range(1, 13)} <= codes
    assert "mpi_latesender" in codes and "mpi_earlyscan" in codes
    assert len(pj.patterns("pgas")) == 12
    with pytest.raises(pj.UsageError):
        pj.patterns("upc")


def test_parameter_errors() -> None:
    trace = pj.Trace.open(PINGPONG)
    with pytest.raises(pj.UsageError, match="eps"):
        pj.scan(trace, eps=-1)
    with pytest.raises(pj.UsageError, match="unknown pattern 'late_snder'"):
        pj.scan(trace, patterns=["late_snder"])
    with pytest.raises(pj.UsageError, match="preset"):
        pj.scan(trace, eager_limit="lam")
    with pytest.raises(pj.UsageError, match="machine"):
        pj.scan(trace, eager_limit="machine")
    with pytest.raises(pj.UsageError, match="pgas_entry_sync"):
        pj.scan(trace, pgas_entry_sync="sometimes")
    with pytest.raises(pj.UsageError, match=r"parjava\.Trace"):
        pj.scan(42)  # type: ignore[arg-type]
    with pytest.raises(pj.TraceError):
        pj.scan("/nonexistent/traces.otf2")


def test_eager_limit_sources() -> None:
    trace = pj.Trace.open(PINGPONG)
    assert pj.scan(trace).eager_limit[:2] == (4040, 65480)  # the openmpi default
    assert pj.scan(trace, eager_limit=1000).eager_limit[:2] == (1000, 1000)
    assert pj.scan(trace, eager_limit="mvapich2").eager_limit[:2] == (65536, 65536)
    machine = pj.Machine.preset("infiniband-edr")
    limits = pj.scan(trace, machine=machine).eager_limit
    assert limits[:2] == (machine.eager_limit(True), machine.eager_limit(False))
    assert "machine" in limits[2]


def test_array_fields_and_pandas(coverage: pj.Findings) -> None:
    a = coverage.array
    assert len(a) == len(coverage) > 0
    for field in ("pattern", "code", "name", "rank", "peer_rank", "time", "idle", "callsite"):
        assert field in a.dtype.names
    assert np.all(a["idle"] > 0)
    # O_D only where the pattern defines it (the non-blocking ParJava patterns).
    nonblocking = np.isin(a["code"], ["N1", "N2", "N4", "N5", "N6", "N7", "N8"])
    assert np.all(np.isnan(a["optimal_distance"][~nonblocking]))
    assert np.all(a["optimal_distance"][nonblocking] >= 0)
    frame = coverage.to_pandas()
    assert len(frame) == len(a)
    table = coverage.table()
    assert list(table["idle"]) == sorted(a["idle"], reverse=True)
    assert frame["idle"].sum() == pytest.approx(a["idle"].sum())


def test_aggregates_add_up(coverage: pj.Findings) -> None:
    by_pattern = coverage.by_pattern()
    assert by_pattern["occurrences"].sum() == len(coverage)
    assert by_pattern["total"].sum() == pytest.approx(coverage.array["idle"].sum())
    # total() does not count Wrong Order twice: it is part of Late Sender.
    wrong_order = coverage.total("mpi_lswo_same") + coverage.total("mpi_lswo_different")
    assert coverage.total() == pytest.approx(coverage.array["idle"].sum() - wrong_order)
    by_site = coverage.by_callsite()
    for key in set(coverage.array["pattern"].tolist()):
        assert by_site[by_site["pattern"] == key]["total"].sum() == pytest.approx(
            coverage.total(key)
        )
    by_location = coverage.by_location()
    assert by_location["occurrences"].sum() == len(coverage)


def test_metric_tree_is_inclusive(coverage: pj.Findings) -> None:
    tree = coverage.tree()
    families = {c.name: c for c in tree.children}
    scalasca = next(v for k, v in families.items() if "Scalasca" in k)
    assert scalasca.value == pytest.approx(coverage.total("scalasca"))
    late_sender = tree.find("Late Sender")
    if late_sender is not None:
        # Wrong Order is part of Late Sender: the node holds Late Sender's own total.
        assert late_sender.value == pytest.approx(coverage.total("late_sender"))
    for node in tree.children:
        assert node.count == sum(c.count for c in node.children)
    assert "Wait at N x N" in tree.render()


def test_a_parent_without_its_own_time_says_what_it_holds() -> None:
    """Only the wrong-order patterns selected: the node above them is not Late Sender."""
    wrong_order = pj.scan(COVERAGE, eps=0, patterns=["mpi_lswo_same", "mpi_lswo_different"])
    assert len(wrong_order) > 0
    tree = wrong_order.tree()
    assert tree.find("Late Sender") is None
    parent = tree.find("Late Sender: only its Messages in Wrong Order part")
    assert parent is not None and parent.value == pytest.approx(wrong_order.array["idle"].sum())
    assert "Late Sender: only its Messages in Wrong Order part" in wrong_order.report()
    # With Late Sender's own severity included the node carries its full name again.
    both = pj.scan(COVERAGE, eps=0, patterns=["late_sender", "mpi_lswo_different"])
    assert both.tree().find("Late Sender") is not None
    assert "only its" not in both.report()


def test_the_clock_condition_is_stated(coverage: pj.Findings) -> None:
    assert "clock condition: no violations" in coverage.notes
    assert "clock condition: no violations" in coverage.report()


def test_reports(coverage: pj.Findings, tmp_path: Path) -> None:
    text = coverage.report(top=3)
    assert "Metric tree" in text and "Worst call sites" in text and "try:" in text
    page = coverage.to_html(tmp_path / "scan.html")
    assert (tmp_path / "scan.html").read_text() == page
    # Score-P recorded no call sites here: the report says so instead of showing source.
    assert "no call site" in page
    document = json.loads(coverage.to_json())
    assert len(document["findings"]) == len(coverage)
    assert coverage._repr_html_().startswith("<p><b>Findings</b>")
    assert "occurrences" in repr(coverage)


def test_reports_do_not_depend_on_how_the_rows_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reports are made from blocks of rows, as a parallel scan's rank 0 gets them merged
    (parallel.scan_write): read 7 rows at a time they are the same bytes, and the JSON is
    json.dumps of the whole document."""
    import importlib

    from parjava import _scan_summary

    scan_module = importlib.import_module("parjava.scan")  # parjava.scan is the function

    findings = pj.scan(pj.Trace.open(COVERAGE), eps=0)
    assert len(findings) > 3 * 7
    whole = (findings.report(top=4), findings.to_html(top=4), findings.to_json())
    a = findings.array
    document = {
        "parameters": {k: scan_module._describe(v) for k, v in findings.parameters.items()},
        "eager_limit": list(findings.eager_limit),
        "notes": findings.notes,
        "events_scanned": findings.events_scanned,
        "patterns": {
            key: {"occurrences": findings.count(key), "total": findings.total(key)}
            for key in sorted(set(a["pattern"].tolist()))
        },
        "findings": [
            {**{n: scan_module._plain(row[n]) for n in a.dtype.names or ()}, "diagnosis": d}
            for row, d in zip(a, findings.diagnoses)
        ],
    }
    assert whole[2] == json.dumps(document, indent=1, allow_nan=False, default=str)
    monkeypatch.setattr(_scan_summary, "SUMMARY_BLOCK", 7)
    monkeypatch.setattr(scan_module, "_CSV_BLOCK", 7)
    monkeypatch.setattr(_scan_summary.JsonWriter, "BLOCK", 3)
    assert (findings.report(top=4), findings.to_html(top=4), findings.to_json()) == whole
    # Worst occurrences and call sites: by lost time, ties in the rows' order.
    order = np.argsort(-np.abs(findings.raw["idle"]), kind="stable")[:4]
    for i in order:
        assert (
            f"t={float(findings.raw['time'][i]) * 1e-9:.6f} s  {findings.diagnoses[i]}" in whole[0]
        )


def test_no_findings_report() -> None:
    findings = pj.scan(PINGPONG, eps=1000.0)  # no wrong-order pair here (B9/B10 ignore eps)
    assert len(findings) == 0
    assert "No pattern occurrence" in findings.report()
    assert "No pattern occurrence" in findings.to_html()
    assert findings.array.dtype.names is not None


def test_cli_list_and_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", "--list"]) == 0
    listed = capsys.readouterr().out
    assert "B1" in listed and "P12" in listed and "mpi_latesender" in listed
    assert main(["scan", str(COVERAGE), "--patterns", "scalasca", "--top", "2"]) == 0
    out = capsys.readouterr().out
    assert "Wait at N x N" in out


def test_cli_fail_on_and_formats(tmp_path: Path, coverage: pj.Findings) -> None:
    total = coverage.total("wait_at_nxn")
    assert total > 0
    low = f"wait_at_nxn:{total / 2}"
    high = f"wait_at_nxn:{total * 2}"
    out = tmp_path / "f.csv"
    assert (
        main(
            [
                "scan",
                str(COVERAGE),
                "--eps",
                "0",
                "--fail-on",
                low,
                "-o",
                str(out),
                "--format",
                "csv",
            ]
        )
        == 1
    )
    assert out.read_text().startswith("pattern,")
    assert (
        main(
            [
                "scan",
                str(COVERAGE),
                "--eps",
                "0",
                "--fail-on",
                high,
                "--format",
                "json",
                "-o",
                str(tmp_path / "f.json"),
            ]
        )
        == 0
    )
    assert main(["scan", str(COVERAGE), "--fail-on", "nonsense:1"]) == 2
    assert main(["scan", str(COVERAGE), "--eager-limit", "nonsense"]) == 2


def test_cli_as_a_program() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "parjava", "scan", str(PINGPONG), "--format", "html"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("<!DOCTYPE html>")


def test_counts_and_totals_cost_only_the_rows() -> None:
    # A fresh scan: its counts and totals come from the C++ rows, so the findings stay at
    # 72 bytes each (issue 18: at most 100); the array is made on demand and not kept.
    findings = pj.scan(pj.Trace.open(COVERAGE), eps=0)
    n = len(findings)
    assert n > 10
    counts = {key: findings.count(key) for key in ("mpi_latesender", "scalasca", "parjava")}
    totals = {key: findings.total(key) for key in (None, "mpi_latesender", "scalasca")}
    assert findings.memory_bytes == 72 * n
    a = findings.array  # the same figures from its text columns
    assert findings.memory_bytes == 72 * n
    # Text columns refer to shared strings (8 bytes a row), not a fixed-width copy per row.
    assert a.dtype["callsite"].kind == "O" and a.nbytes <= 120 * n
    assert len({id(s) for s in a["callsite"]}) == len(set(a["callsite"].tolist()))
    late = a["code"] == "mpi_latesender"
    assert counts["mpi_latesender"] == int(late.sum()) > 0
    assert counts["scalasca"] == int((a["family"] == "scalasca").sum())
    assert counts["parjava"] == int((a["family"] == "parjava").sum()) > 0
    # Summed exactly as nanoseconds, then made seconds.
    assert totals["mpi_latesender"] == int(findings.raw["idle"][late].sum()) / 1e9
    assert totals["mpi_latesender"] == pytest.approx(float(a["idle"][late].sum()), rel=1e-12)
    assert 0 < totals["mpi_latesender"] <= totals["scalasca"]


def test_reports_and_diagnoses_keep_the_findings_at_their_rows() -> None:
    # Issue 18: every output is made on demand from the rows; none is kept by the findings.
    findings = pj.scan(pj.Trace.open(COVERAGE), eps=0)
    n = len(findings)
    everything = list(findings._result.diagnoses())  # the C++ formatting of every row
    report = findings.report(top=3)
    findings.to_html(top=3)
    findings._repr_html_()
    findings.tree()
    table = findings.table(top=3)
    assert findings.memory_bytes == 72 * n <= 100 * n
    diagnoses = findings.diagnoses
    assert len(diagnoses) == n and diagnoses == everything
    assert diagnoses[-1] == everything[-1] and diagnoses[1:4] == everything[1:4]
    with pytest.raises(IndexError):
        diagnoses[n]
    # The worst occurrences: formatted for those rows only, the same text as the whole list.
    assert list(table["diagnosis"]) == [everything[i] for i in table.index]
    assert list(table["idle"]) == sorted(findings.to_pandas()["idle"], reverse=True)[:3]
    for line in table["diagnosis"]:
        assert line in report
    frame = findings.to_pandas(diagnosis=True)
    assert list(frame["diagnosis"]) == everything
    assert findings.memory_bytes == 72 * n


def test_to_pandas_is_categorical_and_does_without_the_array(coverage: pj.Findings) -> None:
    findings = pj.scan(coverage.trace, eps=0)
    frame = findings.to_pandas()
    by_site = findings.by_callsite()
    assert by_site["occurrences"].sum() == len(findings)
    assert findings.memory_bytes == 72 * len(findings)
    assert "diagnosis" not in frame.columns  # text per row only when asked for
    for column in ("pattern", "code", "name", "family", "callsite", "file", "call"):
        assert str(frame[column].dtype) == "category"
    a = findings.array
    for name in a.dtype.names or ():
        values = frame[name]
        if str(values.dtype) == "category" or a[name].dtype.kind == "O":
            assert list(values.astype(str)) == a[name].tolist(), name
        else:
            np.testing.assert_array_equal(values.to_numpy(), a[name], err_msg=name)


def test_finding_texts_of_rows_held_outside_a_scan() -> None:
    # A parallel scan's root holds gathered rows only and formats them from its trace's tables.
    from parjava._core_loader import load_core

    core = load_core()
    findings = pj.scan(pj.Trace.open(COVERAGE), eps=0)
    rows = np.ascontiguousarray(findings.raw).view(np.uint8).reshape(-1)
    last = len(findings) - 1
    texts = core.finding_texts(findings.trace.core, rows, [last, 0])
    assert texts == [findings.diagnoses[last], findings.diagnoses[0]]
    sites = core.finding_texts(findings.trace.core, rows, [0], callsites=True)
    assert sites == [findings.array["callsite"][0]]
    with pytest.raises(pj.UsageError, match="not a whole number of 72-byte rows"):
        core.finding_texts(findings.trace.core, rows[:-1], [0])
    with pytest.raises(pj.UsageError, match=f"finding row {last + 1} of {last + 1}"):
        core.finding_texts(findings.trace.core, rows, [last + 1])
