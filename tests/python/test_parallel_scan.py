"""Parallel trace analysis on MPI (parjava.parallel, `parjava scan --mpi`, `parjava intervals
--mpi`): for K = 1..4 analysis ranks on every test archive and a generated 64-rank trace, every
finding row, note and report line equals the serial scan's, and every interval, characteristic,
execution and warning equals the serial interval analysis's under each option set; a failing or
killed rank fails the job clearly."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import parjava as pj
from interval_records import INTERVAL_VARIANTS, interval_record
from parjava._core_loader import load_core

HERE = Path(__file__).parent
REPO = HERE.parents[1]
ARCHIVES = sorted(p for p in (REPO / "tests" / "data" / "otf2").glob("*/**/traces.otf2"))


def _mpirun() -> list[str]:
    pytest.importorskip("mpi4py", reason="mpi4py is not installed (pip install mpi4py)")
    if not shutil.which("mpirun"):
        pytest.skip("mpirun is not installed")
    return ["mpirun", "--oversubscribe"]


def _text(path: Path) -> str:
    with open(path, encoding="utf-8", newline="") as f:  # CSV rows end in \r\n
        return f.read()


def _without_wall_time(text: str) -> str:
    """The report but for the scan's wall time (in the text and HTML reports)."""
    return re.sub(r"scanned in [-+.e0-9]+ [a-z]+", "scanned in -", text)


def _env() -> dict[str, str]:
    return dict(os.environ, OMPI_MCA_rmaps_base_oversubscribe="1", PARJAVA_NO_PROGRESS="1")


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 64-rank halo-exchange trace written by benchmarks/trace_generate (OTF2 library)."""
    build = os.environ.get("PARJAVA_BUILD_DIR")
    tool = (Path(build).parent if build else REPO / "build" / "dev") / "benchmarks"
    tool = tool / "trace_generate"
    if not tool.exists():
        pytest.skip(f"{tool} is not built")
    out = tmp_path_factory.mktemp("gen") / "gen64"
    subprocess.run([str(tool), "-o", str(out), "--ranks", "64", "--events", "60000"], check=True)
    return out / "traces.otf2"


def test_archives_found() -> None:
    assert len(ARCHIVES) >= 6, ARCHIVES


def test_own_counts_add_up_to_the_serial_ones() -> None:
    """The per-location recount behind the parallel notes equals matching's own counts."""
    core = load_core()
    for path in ARCHIVES:
        trace = pj.Trace.open(path)
        everything = np.ones(trace.location_count, dtype=np.uint8)
        assert dict(core.count_unmatched(trace.core, everything)) == trace.unmatched, path
        clock = dict(core.count_clock_violations(trace.core, everything))
        assert clock.pop("largest_ns") == trace.core.clock_violation_largest_ns
        assert clock == trace.clock_violations, path


@pytest.mark.parametrize("ranks", [1, 2, 3, 4])
def test_parallel_scan_equals_serial(ranks: int, tmp_path: Path, generated: Path) -> None:
    archives = [*ARCHIVES, generated]
    cmd = [*_mpirun(), "-np", str(ranks), sys.executable, str(HERE / "mpi_scan_worker.py")]
    run = subprocess.run(
        [*cmd, str(tmp_path), *map(str, archives)],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-4000:]
    for k, path in enumerate(archives):
        serial = pj.scan(pj.Trace.open(path), eps=1e-7)
        raw = np.load(tmp_path / f"{k}.npy")
        assert len(raw) == len(serial), path
        for field in serial.raw.dtype.names:
            if field == "reserved":
                continue
            assert np.array_equal(raw[field], serial.raw[field]), (path, field)
        assert _text(tmp_path / f"{k}.csv") == serial.to_csv(), path
        assert _text(tmp_path / f"{k}.merged.csv") == serial.to_csv(), path
        assert json.loads((tmp_path / f"{k}.merged.json").read_text()) == len(serial)
        assert json.loads((tmp_path / f"{k}.json").read_text()) == json.loads(serial.to_json())
        # Written by rank 0 from the merged chunks without holding the findings: the bytes.
        assert _text(tmp_path / f"{k}.report.json") == serial.to_json(), path
        for fmt, want in (("text", serial.report(top=20)), ("html", serial.to_html(top=5))):
            got = _text(tmp_path / f"{k}.report.{fmt}")
            assert _without_wall_time(got) == _without_wall_time(want), (path, fmt)
        # The text report, but for the scan's wall time on its first line.
        report = (tmp_path / f"{k}.txt").read_text().splitlines()
        assert report[1:] == serial.report(top=20).splitlines()[1:], path
        _check_intervals(tmp_path, k, path)
        pgas = pj.scan(pj.Trace.open(path), eps=1e-7, pgas_mpi_collectives=True).raw
        got = np.load(tmp_path / f"{k}.pgas.npy")
        assert len(got) == len(pgas), path
        for field in pgas.dtype.names:
            assert np.array_equal(got[field], pgas[field]), (path, field, "pgas")
        shares = json.loads((tmp_path / f"{k}.part.json").read_text())
        assert sum(own for own, _, _ in shares) == serial.events_scanned
        assert all(r <= w for _, r, w in shares), shares  # the reduction never adds
        if ranks > 1 and path == generated:
            # Each rank reads its block of the 64 equal processes, and receives a fraction of
            # what the others hold: of the world collectives (an allreduce every step), only
            # the decisive members' Begin and End, not all 64 (then 4-6 times as many).
            own = [o for o, _, _ in shares]
            assert max(own) <= serial.events_scanned / ranks * 1.05, shares
            assert all(r < 0.5 * (serial.events_scanned - o) for o, r, _ in shares), shares
            assert all(3 * r < w for _, r, w in shares), shares
            assert all(o + r < 1.15 * serial.events_scanned / ranks for o, r, _ in shares)


def _check_intervals(out: Path, k: int, path: Path) -> None:
    trace = pj.Trace.open(path)
    for v, options in enumerate(INTERVAL_VARIANTS):
        try:
            want = interval_record(trace.intervals(**options))
        except pj.Error as exc:
            want = {"error": str(exc)}
        got = json.loads((out / f"{k}.intervals.{v}.json").read_text())
        assert "error" in got or len(got["intervals"]) > 0
        assert got == json.loads(json.dumps(want)), (path, options)


def test_cli_mpi_writes_the_serial_csv(tmp_path: Path) -> None:
    path = next(p for p in ARCHIVES if "stencil" in str(p))
    out = tmp_path / "scan.csv"
    cmd = [*_mpirun(), "-np", "3", sys.executable, "-m", "parjava", "scan", str(path), "--mpi"]
    run = subprocess.run(
        [*cmd, "--format", "csv", "-o", str(out)],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert _text(out) == pj.scan(pj.Trace.open(path)).to_csv()
    assert run.stderr.count("findings written") == 1  # rank 0 alone writes


def test_cli_mpi_writes_the_serial_reports(tmp_path: Path) -> None:
    """JSON, text and HTML with --mpi: rank 0 writes the serial command's bytes (but for the
    scan's wall time) as the rows are merged, and --fail-on checks the same totals."""
    path = next(p for p in ARCHIVES if "stencil" in str(p))
    serial = pj.scan(pj.Trace.open(path))
    total = serial.total("late_sender")
    assert total > 0
    cmd = [*_mpirun(), "-np", "3", sys.executable, "-m", "parjava", "scan", str(path), "--mpi"]
    for fmt, check, status in (("json", 2, 0), ("text", 0.5, 1), ("html", 2, 0)):
        out = tmp_path / f"scan.{fmt}"
        run = subprocess.run(
            [*cmd, "--format", fmt, "-o", str(out), "--fail-on", f"late_sender:{total * check}"],
            capture_output=True,
            text=True,
            env=_env(),
            timeout=300,
        )
        assert run.returncode == status, run.stderr[-3000:]
        assert run.stderr.count("findings written") == 1  # rank 0 alone writes
        assert run.stderr.count("check failed") == status
        want = {
            "json": serial.to_json(),
            "text": serial.report(top=10),
            "html": serial.to_html(top=10),
        }[fmt]
        assert _without_wall_time(_text(out)) == _without_wall_time(want), fmt


def test_cli_intervals_mpi_writes_the_serial_report(tmp_path: Path) -> None:
    path = next(p for p in ARCHIVES if "stencil" in str(p))
    out = tmp_path / "intervals.json"
    cmd = [*_mpirun(), "-np", "3", sys.executable, "-m", "parjava", "intervals", str(path)]
    run = subprocess.run(
        [*cmd, "--mpi", "--sendrecv", "messages", "--format", "json", "-o", str(out)],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    serial = pj.Trace.open(path).intervals(sendrecv="messages")
    assert out.read_text() == serial.to_json()
    assert run.stderr.count("wrote json report") == 1  # rank 0 alone writes


def test_a_bad_archive_fails_every_rank_clearly(tmp_path: Path) -> None:
    cmd = [*_mpirun(), "-np", "2", sys.executable, "-m", "parjava", "scan"]
    run = subprocess.run(
        [*cmd, str(tmp_path / "missing.otf2"), "--mpi"],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=300,
    )
    assert run.returncode == 2, run.stderr
    assert "reading the archive failed on analysis rank 0 of 2" in run.stderr
    assert run.stdout == ""


def test_an_unwritable_csv_fails_every_rank_before_the_scan(tmp_path: Path) -> None:
    """Rank 0 opens the CSV it streams to before the ranks scan; if it cannot, all stop."""
    path = next(p for p in ARCHIVES if "stencil" in str(p))
    out = tmp_path / "missing" / "scan.csv"
    cmd = [*_mpirun(), "-np", "2", sys.executable, "-m", "parjava", "scan", str(path), "--mpi"]
    run = subprocess.run(
        [*cmd, "--format", "csv", "-o", str(out)],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=300,
    )
    assert run.returncode == 2, run.stderr
    assert f"opening the output failed on analysis rank 0 of 2: cannot write {out}" in run.stderr
    assert not out.exists()


def test_a_killed_rank_fails_the_job(tmp_path: Path) -> None:
    """Rank 2 dies as it starts: mpirun ends the job with an error and rank 0 prints no result."""
    path = next(p for p in ARCHIVES if "stencil" in str(p))
    die = "from mpi4py import MPI; import os, signal; os.kill(os.getpid(), signal.SIGKILL)"
    cmd = [*_mpirun(), "-np", "2", sys.executable, "-m", "parjava", "scan", str(path), "--mpi"]
    run = subprocess.run(
        [*cmd, ":", "-np", "1", sys.executable, "-c", die],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=300,
    )
    assert run.returncode != 0
    assert "signal 9" in run.stderr or "Killed" in run.stderr, run.stderr[-2000:]
    assert "parjava scan of" not in run.stdout


def test_own_traced_examples(examples_bin: Path, tmp_path: Path) -> None:
    """Runs of the project's own examples under the tracer (every wrapped MPI function;
    a stencil with rank 0 late), scanned on 1 to 4 ranks, equal the serial scans."""
    runs = [
        ([str(examples_bin / "mpi_coverage")], 4),
        ([str(examples_bin / "stencil2d"), "-n", "16", "-i", "8", "-r", "2", "-d", "2"], 4),
    ]
    archives = []
    for k, (command, np_) in enumerate(runs):
        trace = pj.trace(command, np=np_, output=tmp_path / f"run{k}", timeout=120)
        archives.append(trace.metadata["path"])
    serials = [pj.scan(pj.Trace.open(path), eps=1e-7) for path in archives]
    for ranks in (1, 2, 3, 4):
        out = tmp_path / f"k{ranks}"
        out.mkdir()
        cmd = [*_mpirun(), "-np", str(ranks), sys.executable, str(HERE / "mpi_scan_worker.py")]
        run = subprocess.run(
            [*cmd, str(out), *archives], capture_output=True, text=True, env=_env(), timeout=300
        )
        assert run.returncode == 0, run.stderr[-4000:]
        for k, (path, serial) in enumerate(zip(archives, serials, strict=True)):
            assert len(serial) > 0, path
            assert _text(out / f"{k}.csv") == serial.to_csv(), (ranks, path)
            assert _text(out / f"{k}.merged.csv") == serial.to_csv(), (ranks, path)
            assert json.loads((out / f"{k}.merged.json").read_text()) == len(serial)
            raw = np.load(out / f"{k}.npy")
            for field in serial.raw.dtype.names:
                assert np.array_equal(raw[field], serial.raw[field]), (ranks, path, field)
            _check_intervals(out, k, Path(path))
