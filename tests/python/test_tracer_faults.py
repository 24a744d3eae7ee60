"""Nothing recorded is lost when the program fails: a rank crashing with SIGSEGV, MPI_Abort,
exit() without MPI_Finalize, and the whole run killed with SIGTERM or SIGINT all leave an
archive that otf2-print reads, with each rank's events up to the failure."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from otf2_text import Archive, marker_line, read
from parjava import tracing

pytestmark = pytest.mark.mpi

EXAMPLES_SRC = Path(__file__).resolve().parents[2] / "examples"


def _program_end(archive: Archive, rank: int) -> int | None:
    ends = archive.of("PROGRAM_END", rank)
    return int(ends[0].fields["Exit status"]) if ends else None


def _failing_run(examples_bin: Path, tmp_path: Path, mode: str) -> tracing.TracedRunError:
    with pytest.raises(tracing.TracedRunError) as failure:
        tracing.run_traced(
            [str(examples_bin / "ring_faults"), "-m", mode, "-k", "2", "-a", "5"],
            np=4,
            output=tmp_path,
        )
    assert failure.value.archive is not None and failure.value.archive.exists()
    assert str(failure.value.archive) in str(failure.value)
    return failure.value


def test_segfault_in_one_rank_keeps_every_rank_trace(examples_bin: Path, tmp_path: Path) -> None:
    failure = _failing_run(examples_bin, tmp_path, "segv")
    archive = read(failure.archive)
    assert archive.stderr == ""
    # The crashing rank wrote everything up to the crash: 5 ring steps, then SIGSEGV (128+11).
    assert len(archive.enters("MPI_Recv", 2)) == 5 and len(archive.enters("MPI_Send", 2)) == 5
    assert _program_end(archive, 2) == 128 + signal.SIGSEGV
    # Every rank has its location and its MPI_Init; those mpirun killed end by SIGTERM.
    for rank in range(4):
        assert archive.enters("MPI_Init", rank)
    assert "dereferences a null pointer" in failure.stderr_tail


def test_mpi_abort_is_recorded_where_it_happened(examples_bin: Path, tmp_path: Path) -> None:
    failure = _failing_run(examples_bin, tmp_path, "abort")
    assert failure.returncode == 7
    archive = read(failure.archive)
    aborts = archive.enters("MPI_Abort", 2)
    assert len(aborts) == 1
    assert aborts[0].callsite[1] == marker_line(EXAMPLES_SRC / "ring_faults.c", "abort")
    # MPI_Abort does not return: its Enter has no Leave, and the rank ends with the error code.
    assert not [e for e in archive.of("LEAVE", 2) if e.region == "MPI_Abort"]
    assert _program_end(archive, 2) == 7


def test_exit_without_finalize_is_recorded(examples_bin: Path, tmp_path: Path) -> None:
    failure = _failing_run(examples_bin, tmp_path, "exit")
    archive = read(failure.archive)
    assert _program_end(archive, 2) == 3
    assert not archive.enters("MPI_Finalize", 2)
    assert len(archive.enters("MPI_Send", 2)) == 5


def test_exit_skipping_exit_handlers_is_recorded(examples_bin: Path, tmp_path: Path) -> None:
    """_exit() runs no exit handlers; the tracer interposes it to write the trace first."""
    failure = _failing_run(examples_bin, tmp_path, "_exit")
    archive = read(failure.archive)
    assert _program_end(archive, 2) == 4
    assert len(archive.enters("MPI_Send", 2)) == 5 and len(archive.enters("MPI_Recv", 2)) == 5


@pytest.mark.parametrize("signo", [signal.SIGTERM, signal.SIGINT])
def test_killing_the_traced_run_still_leaves_a_trace(
    examples_bin: Path, tmp_path: Path, signo: int
) -> None:
    """`parjava trace` gets the signal (as from `kill` or Ctrl-C), passes it to mpirun, and
    assembles what the ranks recorded before they were terminated."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "parjava",
            "trace",
            "--keep-fragments",
            "-np",
            "4",
            "-o",
            str(tmp_path),
            str(examples_bin / "ring_faults"),
            "-m",
            "hang",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
        # A runner that starts the suite as a background job without job control has SIGINT
        # ignored, and the child would inherit that: Ctrl-C is what is tested here.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + 60
    line = ""
    while "running" not in line and time.monotonic() < deadline:
        line = proc.stdout.readline()
    assert "running" in line, "the ring never started"
    time.sleep(0.3)
    proc.send_signal(signo)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "partial trace" in err
    archive = read(tmp_path / "traces.otf2")
    assert archive.stderr == ""
    logs = {p.name: p.read_text() for p in (tmp_path / "fragments").glob("p*.defs")}
    for rank in range(4):
        assert len(archive.enters("MPI_Send", rank)) >= 4
        # The ranks were terminated by mpirun with SIGTERM while inside the ring.
        assert _program_end(archive, rank) == 128 + signal.SIGTERM, (rank, logs, err)


def _cli_trace(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "parjava", "trace", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ),
        check=False,
    )


def test_an_existing_archive_is_refused_unless_forced(examples_bin: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    pingpong = str(examples_bin / "pingpong")
    first = _cli_trace("-np", "2", "-o", str(out), pingpong, "-n", "2")
    assert first.returncode == 0, first.stderr
    anchor = out / "traces.otf2"
    before = (anchor.stat().st_mtime_ns, len(read(anchor).enters("MPI_Send", 0)))
    again = _cli_trace("-np", "2", "-o", str(out), pingpong, "-n", "3")
    assert again.returncode == 2
    assert str(out) in again.stderr and "--force" in again.stderr
    assert (anchor.stat().st_mtime_ns, len(read(anchor).enters("MPI_Send", 0))) == before
    forced = _cli_trace("--force", "-np", "2", "-o", str(out), pingpong, "-n", "3")
    assert forced.returncode == 0, forced.stderr
    assert len(read(anchor).enters("MPI_Send", 0)) == 3 == before[1] + 1


def test_timeout_ends_the_run_within_its_grace(examples_bin: Path, tmp_path: Path) -> None:
    """--timeout 3 on a program that never ends: back within 3 s + TIMEOUT_GRACE_S, and
    every rank's events up to its end are in the archive."""
    started = time.monotonic()
    proc = _cli_trace(
        "--timeout",
        "3",
        "-np",
        "4",
        "-o",
        str(tmp_path),
        str(examples_bin / "ring_faults"),
        "-m",
        "hang",
    )
    wall = time.monotonic() - started
    assert proc.returncode == 2, proc.stderr
    assert "did not finish within 3 s" in proc.stderr
    assert tracing.TIMEOUT_GRACE_S <= 2.0
    assert wall <= 3 + tracing.TIMEOUT_GRACE_S, wall
    archive = read(tmp_path / "traces.otf2")
    assert archive.stderr == ""
    for rank in range(4):
        assert len(archive.enters("MPI_Send", rank)) >= 4
        assert _program_end(archive, rank) == 128 + signal.SIGTERM
