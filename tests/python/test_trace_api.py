"""parjava.Trace on the real OTF2 archives of tests/data/otf2 (see SOURCES.md)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest

import parjava as pj
from parjava.trace import COLUMNS, EventKind

ARCHIVES = {
    "pipit-ping-pong": 120,
    "pipit-ping-pong-papi": 204,
    "sstmacro-mpi-coverage": 22180,
    "sst-ember-otf2": 80,
    "tracer-stencil4d-64": 8644,
    "fastotf2-mi300-hip": 72670,
}


@pytest.fixture(scope="module")
def ping_pong(otf2_data: Path) -> pj.Trace:
    return pj.Trace.open(otf2_data / "pipit-ping-pong" / "traces.otf2")


@pytest.fixture(scope="module")
def coverage(otf2_data: Path) -> pj.Trace:
    return pj.Trace.open(otf2_data / "sstmacro-mpi-coverage")


@pytest.mark.parametrize("name,events", sorted(ARCHIVES.items()))
def test_every_archive_opens_with_its_event_count(otf2_data: Path, name: str, events: int) -> None:
    trace = pj.Trace.open(otf2_data / name)
    assert len(trace) == events
    assert sum(trace.kind_counts().values()) == events
    offsets = trace.location_offsets
    assert offsets[0] == 0 and offsets[-1] == events
    assert trace.memory_bytes / events < 64


def test_event_kinds_mirror_the_engine() -> None:
    from parjava._core import EVENT_KIND_NAMES

    def snake(name: str) -> str:
        return re.sub(r"(?<!^)(?=[A-Z])", "_", name).upper()

    assert [snake(n) for n in EVENT_KIND_NAMES] == [k.name for k in EventKind]


def test_columns_are_views_that_keep_the_trace_alive(otf2_data: Path) -> None:
    trace = pj.Trace.open(otf2_data / "pipit-ping-pong")
    time = trace.events.time
    again = trace.core.column("time")
    assert np.shares_memory(time, again)  # a view of the same C++ memory, no copy
    assert time.dtype == np.int64 and trace.events.kind.dtype == np.uint8
    assert not time.flags.writeable
    with pytest.raises(ValueError):
        time[0] = 1
    first = int(time[0])
    del trace, again
    # The view's base holds the C++ trace: still valid after the Python Trace is gone.
    assert int(time[0]) == first
    assert time.base is not None


def test_all_columns_have_one_value_per_event(ping_pong: pj.Trace) -> None:
    for name in COLUMNS:
        assert len(ping_pong.events[name]) == len(ping_pong), name


def test_reader_threads_do_not_change_the_trace(otf2_data: Path) -> None:
    one = pj.Trace.open(otf2_data / "tracer-stencil4d-64", threads=1)
    two = pj.Trace.open(otf2_data / "tracer-stencil4d-64", threads=2)
    for name in COLUMNS:
        assert np.array_equal(one.events[name], two.events[name]), name
    assert one.unmatched == two.unmatched
    with pytest.raises(pj.UsageError):
        pj.Trace.open(otf2_data / "tracer-stencil4d-64", threads=0)


def test_anchor_and_directory_give_the_same_trace(otf2_data: Path, ping_pong: pj.Trace) -> None:
    other = pj.Trace.open(str(otf2_data / "pipit-ping-pong"))
    assert np.array_equal(other.events.time, ping_pong.events.time)


def test_constructor_refuses_a_path_and_names_open(otf2_data: Path, ping_pong: pj.Trace) -> None:
    path = otf2_data / "pipit-ping-pong" / "traces.otf2"
    for wrong in (str(path), path):
        with pytest.raises(TypeError, match=r"Trace\.open\(path\)") as refused:
            pj.Trace(wrong)
        assert "traces.otf2" in str(refused.value)
    with pytest.raises(TypeError, match="not a dict"):
        pj.Trace({})
    wrapped = pj.Trace(ping_pong.core)  # what other parts do with the traces they make
    assert len(wrapped) == len(ping_pong) == 120


def test_messages_are_matched_between_ranks(ping_pong: pj.Trace) -> None:
    e = ping_pong.events
    sends = np.flatnonzero(e.kind == EventKind.SEND)
    assert len(sends) == 16
    receives = e.match[sends]
    assert np.all(e.kind[receives] == EventKind.RECV)
    ranks = np.array([loc.rank for loc in ping_pong.locations])
    assert np.array_equal(e.peer[sends], ranks[e.location[receives]])
    assert sum(ping_pong.unmatched.values()) == 0


def test_definitions(coverage: pj.Trace) -> None:
    assert coverage.process_count == 10
    assert coverage.locations[3].rank == 3
    assert coverage.communicators[0].name == "MPI_COMM_WORLD"
    assert coverage.communicators[0].members == tuple(range(10))
    isend = [r for r in coverage.regions if r.function == "MPI_Isend"]
    assert isend and isend[0].category == pj.Category.NONBLOCKING_SEND
    assert coverage.metadata["format_version"] == "2.0.0"
    collectives = coverage.collectives
    assert len(collectives["function"]) == len(collectives["comm"]) > 0
    assert "MPI_Allreduce" in collectives["function"]
    assert np.all(collectives["member_count"] == collectives["expected"])


def test_to_pandas_has_readable_names(ping_pong: pj.Trace) -> None:
    frame = ping_pong.to_pandas()
    assert len(frame) == len(ping_pong)
    sends = frame[frame["kind"] == "SEND"]
    assert len(sends) == 16
    assert set(sends["region"]) == {"MPI_Send"}
    assert set(frame["location"].cat.categories) == {"rank 0", "rank 1"}
    assert set(sends["rank"]) == {0, 1}


def test_summary_splits_each_rank_by_seed004_category(ping_pong: pj.Trace) -> None:
    summary = ping_pong.summary()
    assert list(summary.index) == ["rank 0", "rank 1"]
    assert list(summary.columns[:7]) == [c.label for c in pj.Category]
    categories = summary.iloc[:, :7].sum(axis=1)
    assert np.allclose(categories, summary["total"])
    # Blocking-send time of rank 0 = the durations of its MPI_Send calls.
    frame = ping_pong.to_pandas()
    rank0 = frame[(frame["rank"] == 0) & (frame["region"] == "MPI_Send")]
    enters = rank0[rank0["kind"] == "ENTER"]["time"].to_numpy()
    leaves = rank0[rank0["kind"] == "LEAVE"]["time"].to_numpy()
    assert summary.loc["rank 0", "blocking send"] == pytest.approx((leaves - enters).sum() / 1e9)
    assert summary.loc["rank 0", "user code"] > 0


def test_filter_by_time_locations_ranks_and_regions(coverage: pj.Trace) -> None:
    middle = (coverage.start + coverage.end) / 2
    early = coverage.filter(time_window=(coverage.start, middle))
    assert 0 < len(early) < len(coverage)
    assert early.events.time.max() < middle * 1e9
    ranks = coverage.filter(ranks=[0, 6])
    assert {loc.rank for loc in ranks.locations} == {0, 6}
    by_label = coverage.filter(locations=["rank 0", "rank 6"])
    assert np.array_equal(by_label.events.time, ranks.events.time)
    waits = coverage.filter(regions=["MPI_Waitall"])
    kinds = set(waits.kind_counts())
    assert kinds <= {"ENTER", "LEAVE", "ISEND_COMPLETE", "IRECV_COMPLETE"}
    assert len(coverage) == 22180  # the original is unchanged


def test_filter_rejects_unknown_names(coverage: pj.Trace) -> None:
    with pytest.raises(pj.UsageError, match="MPI_Nothing"):
        coverage.filter(regions=["MPI_Nothing"])
    with pytest.raises(pj.UsageError, match="rank 99"):
        coverage.filter(locations=["rank 99"])
    with pytest.raises(pj.UsageError):
        coverage.filter(time_window=(2.0, 1.0))


def test_write_round_trip(ping_pong: pj.Trace, tmp_path: Path) -> None:
    ping_pong.write(tmp_path / "copy")
    copy = pj.Trace.open(tmp_path / "copy")
    for name in COLUMNS:
        assert np.array_equal(copy.events[name], ping_pong.events[name]), name
    with pytest.raises(pj.TraceError, match="already exists"):
        ping_pong.write(tmp_path / "copy")


def test_repr_and_html(ping_pong: pj.Trace) -> None:
    assert "120 events" in repr(ping_pong)
    assert "2 processes" in repr(ping_pong)
    html = ping_pong._repr_html_()
    assert "<table>" in html and "120" in html


@pytest.mark.parametrize(
    "damage,message",
    [
        ("missing", "no such file"),
        ("text", "not a readable OTF2 archive"),
        ("truncated_events", "reading the events"),
        ("no_events", "missing"),
    ],
)
def test_bad_archives_raise_trace_error(
    otf2_data: Path, tmp_path: Path, damage: str, message: str
) -> None:
    archive = tmp_path / "a"
    shutil.copytree(otf2_data / "pipit-ping-pong", archive)
    target = archive
    if damage == "missing":
        target = tmp_path / "nothing-here"
    elif damage == "text":
        (archive / "traces.otf2").write_text("not a trace\n")
    elif damage == "truncated_events":
        evt = archive / "traces" / "0.evt"
        evt.write_bytes(evt.read_bytes()[: evt.stat().st_size // 2])
    elif damage == "no_events":
        (archive / "traces" / "1.evt").unlink()
    with pytest.raises(pj.TraceError, match=message) as info:
        pj.Trace.open(target)
    assert str(target.name) in str(info.value) or "traces" in str(info.value)


def test_clock_condition_of_consistent_archives(otf2_data: Path) -> None:
    """The public archives (1,440 matched receives and 680 collective instances in the
    coverage trace) keep the clock condition; correcting them moves nothing. The violating
    case is tests/cpp/trace/test_clock_condition.cpp (a hand-built trace through OTF2)."""
    anchor = otf2_data / "sstmacro-mpi-coverage" / "traces.otf2"
    trace = pj.Trace.open(anchor)
    assert trace.clock_violations == {"receive_before_send": 0, "collective_exit_before_entry": 0}
    assert trace.clock_violation_largest == 0.0 and trace.clock_correction is None
    assert "0 clock violations" in repr(trace) and "no violations" in trace._repr_html_()
    corrected = pj.Trace.open(anchor, correct_clocks=True)
    report = corrected.clock_correction
    assert report is not None and report["events_moved"] == 0 and report["jumps"] == 0
    assert np.array_equal(corrected.events.time, trace.events.time)
    assert sum(corrected.clock_violations.values()) == 0
    assert any(key == "PARJAVA::CLOCK_CONDITION" for key, _ in corrected.metadata["properties"])


def test_scan_correct_clocks_option(otf2_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from parjava.cli import main

    anchor = str(otf2_data / "pipit-ping-pong" / "traces.otf2")
    assert main(["scan", anchor]) == 0
    assert "note: clock condition: no violations" in capsys.readouterr().out
    assert main(["scan", "--correct-clocks", anchor]) == 0
    assert "0 violations corrected by the controlled logical clock" in capsys.readouterr().out
