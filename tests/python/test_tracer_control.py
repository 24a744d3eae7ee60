"""Controlling what the tracer records (groups, MPI_Pcontrol), using it by linking, the
interval header without the tracer, and the errors of `parjava.trace` / `parjava trace`."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import parjava
from otf2_text import read
from parjava import tracing
from parjava.cli import main

pytestmark = pytest.mark.mpi

REPO = Path(__file__).resolve().parents[2]


def test_groups_select_what_is_recorded(examples_bin: Path, tmp_path: Path) -> None:
    pingpong = str(examples_bin / "pingpong")
    coll = tracing.run_traced([pingpong, "-n", "3"], np=2, groups="coll", output=tmp_path / "c")
    assert coll.calls == {"MPI_Barrier": 2}
    p2p = tracing.run_traced(
        [pingpong, "-n", "3"], np=2, groups=["p2p-blocking", "other"], output=tmp_path / "p"
    )
    assert p2p.calls == {"MPI_Send": 6, "MPI_Recv": 6, "MPI_Init": 2, "MPI_Finalize": 2}
    archive = read(p2p.archive)
    assert len(archive.of("MPI_SEND")) == 6 and not archive.of("MPI_COLLECTIVE_END")
    assert "PARJAVA::TRACE_GROUPS" in archive.definitions


def test_unknown_group_is_a_usage_error(examples_bin: Path, tmp_path: Path) -> None:
    with pytest.raises(parjava.UsageError, match="p2p-blocking"):
        tracing.run_traced([str(examples_bin / "pingpong")], np=2, groups="p2p", output=tmp_path)


def test_pcontrol_pauses_and_resumes(examples_bin: Path, tmp_path: Path) -> None:
    run = tracing.run_traced(
        [str(examples_bin / "pingpong"), "-n", "9", "-p", "1"], np=2, output=tmp_path
    )
    archive = read(run.archive)
    for rank in (0, 1):
        switches = [e.text for e in archive.of("MEASUREMENT_ON_OFF", rank)]
        assert switches == ["Mode: OFF", "Mode: ON"], switches
        # Iterations 3, 4 and 5 ran while paused: 6 of 9 exchanges are in the trace.
        sends = archive.enters("MPI_Send", rank)
        assert len(sends) == 6
        # Both MPI_Pcontrol calls are recorded, on either side of the pause.
        pcontrols = archive.enters("MPI_Pcontrol", rank)
        assert len(pcontrols) == 2
        off, on = archive.of("MEASUREMENT_ON_OFF", rank)
        assert pcontrols[0].time <= off.time <= on.time <= pcontrols[1].time
        assert not [e for e in archive.events if e.location == rank and off.time < e.time < on.time]


def test_tracer_works_when_linked_instead_of_preloaded(tmp_path: Path) -> None:
    """A program linked with -lparjava_tracer, started by plain mpirun, is traced."""
    mpicc = shutil.which("mpicc")
    if mpicc is None:
        pytest.skip("mpicc not installed")
    library = tracing.tracer_library()
    source = tmp_path / "linked.c"
    source.write_text(
        "#include <mpi.h>\n#include <parjava/interval.h>\n"
        "int main(int argc, char **argv) {\n"
        "  MPI_Init(&argc, &argv);\n"
        '  parjava_interval_begin(7, "work");\n'
        "  MPI_Barrier(MPI_COMM_WORLD);\n"
        "  parjava_interval_end(7);\n"
        "  MPI_Finalize();\n"
        "  return 0;\n"
        "}\n"
    )
    binary = tmp_path / "linked"
    subprocess.run(
        [
            mpicc,
            "-g",
            f"-I{parjava.include_dir()}",
            str(source),
            "-o",
            str(binary),
            f"-L{library.parent}",
            "-lparjava_tracer",
            f"-Wl,-rpath,{library.parent}",
        ],
        check=True,
    )
    fragments = tmp_path / "fragments"
    env = dict(os.environ, PARJAVA_TRACE_DIR=str(fragments))
    subprocess.run(
        ["mpirun", "--oversubscribe", "-np", "2", "-x", "PARJAVA_TRACE_DIR", str(binary)],
        check=True,
        env=env,
    )
    report = tracing.assemble(fragments, tmp_path / "archive")
    assert report["calls"] == {"MPI_Barrier": 2, "MPI_Init": 2, "MPI_Finalize": 2, "work": 2}
    archive = read(Path(report["archive"]))
    assert {e.callsite[1] for e in archive.enters("work")} == {5}
    assert {e.callsite[1] for e in archive.enters("MPI_Barrier")} == {6}


THREADED_PROGRAM = r"""
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
static int rank;
static void *exchange(void *arg) {
  const int thread = (int)(long)arg, partner = rank ^ 1;
  int value = thread;
  for (int i = 0; i < 3; ++i) {
    if (rank % 2 == 0) {
      MPI_Send(&value, 1, MPI_INT, partner, thread, MPI_COMM_WORLD);
    } else {
      MPI_Recv(&value, 1, MPI_INT, partner, thread, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }
  return NULL;
}
int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (provided < MPI_THREAD_MULTIPLE) {
    printf("no MPI_THREAD_MULTIPLE\n");
    MPI_Finalize();
    return 0;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  pthread_t helper;
  pthread_create(&helper, NULL, exchange, (void *)1L);
  exchange((void *)0L);
  pthread_join(helper, NULL);
  MPI_Finalize();
  return 0;
}
"""


def test_threads_get_their_own_locations(tmp_path: Path) -> None:
    mpicc = shutil.which("mpicc")
    if mpicc is None:
        pytest.skip("mpicc not installed")
    source = tmp_path / "threads.c"
    source.write_text(THREADED_PROGRAM)
    binary = tmp_path / "threads"
    subprocess.run([mpicc, "-g", "-pthread", str(source), "-o", str(binary)], check=True)
    run = tracing.run_traced([str(binary)], np=2, output=tmp_path / "out")
    if "no MPI_THREAD_MULTIPLE" in run.stdout:
        pytest.skip("this MPI does not provide MPI_THREAD_MULTIPLE")
    archive = read(run.archive)
    helper = 1 << 32  # Score-P's location ids: rank + thread * 2^32
    assert {e.location for e in archive.of("MPI_SEND")} == {0, helper}
    assert {e.location for e in archive.of("MPI_RECV")} == {1, helper + 1}
    for location in (0, helper):
        tags = {e.number("Tag") for e in archive.of("MPI_SEND", location)}
        assert len(archive.of("MPI_SEND", location)) == 3 and len(tags) == 1
    assert re.search(r'LOCATION\s+4294967297\s+Name: "rank 1 thread 1"', archive.definitions)
    assert archive.stderr == ""


@pytest.mark.parametrize("compiler", ["cc", "c++"])
def test_interval_header_is_a_no_op_without_the_tracer(compiler: str, tmp_path: Path) -> None:
    if shutil.which(compiler) is None:
        pytest.skip(f"{compiler} not installed")
    suffix = ".c" if compiler == "cc" else ".cpp"
    source = tmp_path / f"markers{suffix}"
    source.write_text(
        "#include <parjava/interval.h>\n#include <stdio.h>\n"
        "int main(void) {\n"
        "  for (int i = 0; i < 3; ++i) {\n"
        '    parjava_interval_begin(1, "loop");\n'
        "    parjava_interval_end(1);\n"
        "  }\n"
        '  puts("markers ran");\n'
        "  return 0;\n"
        "}\n"
    )
    binary = tmp_path / "markers"
    std = "-std=c99" if compiler == "cc" else "-std=c++11"
    subprocess.run(
        [
            compiler,
            std,
            "-Wall",
            "-Wextra",
            "-Werror",
            f"-I{parjava.include_dir()}",
            str(source),
            "-o",
            str(binary),
        ],
        check=True,
    )
    out = subprocess.run([str(binary)], capture_output=True, text=True, check=True)
    assert out.stdout == "markers ran\n"


def test_program_failing_before_mpi_init_reports_status_and_stderr(tmp_path: Path) -> None:
    script = tmp_path / "fails.sh"
    script.write_text("#!/bin/sh\necho 'cannot open input.dat' >&2\nexit 4\n")
    script.chmod(0o755)
    with pytest.raises(tracing.TracedRunError) as failure:
        tracing.run_traced([str(script)], np=2, output=tmp_path / "out")
    assert failure.value.archive is None
    assert failure.value.returncode != 0
    assert "cannot open input.dat" in str(failure.value)


def test_program_without_mpi_produces_no_trace(tmp_path: Path) -> None:
    with pytest.raises(parjava.TraceError, match="no trace"):
        tracing.run_traced(["/bin/true"], np=2, output=tmp_path)


def test_missing_launcher_is_reported(tmp_path: Path) -> None:
    with pytest.raises(parjava.MissingDependencyError, match="no-such-mpirun"):
        tracing.run_traced(["./app"], np=2, launcher="no-such-mpirun", output=tmp_path)


def test_assembling_an_empty_directory_is_a_trace_error(tmp_path: Path) -> None:
    with pytest.raises(parjava.TraceError, match="nothing to assemble"):
        tracing.assemble(tmp_path, tmp_path / "out")
    with pytest.raises(parjava.TraceError, match="no such fragment directory"):
        tracing.assemble(tmp_path / "missing", tmp_path / "out")
    (tmp_path / "p1.defs").write_text("not a fragment\n")
    with pytest.raises(parjava.TraceError, match="not a parjava trace fragment"):
        tracing.assemble(tmp_path, tmp_path / "out")


def test_cli_traces_a_plain_command(examples_bin: Path, tmp_path: Path, capsys) -> None:
    code = main(["trace", "-np", "2", "-o", str(tmp_path), str(examples_bin / "pingpong")])
    assert code == 0
    err = capsys.readouterr().err
    assert f"trace: {tmp_path / 'traces.otf2'}" in err
    assert "MPI_Send 20" in err
    assert not (tmp_path / "fragments").exists()


def test_cli_accepts_a_full_launcher_command(examples_bin: Path, tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "parjava",
            "trace",
            "--json",
            "-o",
            str(tmp_path),
            "--",
            "mpirun",
            "-np",
            "2",
            str(examples_bin / "pingpong"),
            "-n",
            "2",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert '"ranks": 2' in proc.stdout
    assert (tmp_path / "traces.otf2").exists()


def test_cli_errors_exit_with_status_2(examples_bin: Path, tmp_path: Path, capsys) -> None:
    assert main(["trace", "--groups", "bogus", "-o", str(tmp_path), "./x"]) == 2
    assert "unknown tracer group" in capsys.readouterr().err
    assert main(["trace"]) == 2
    assert "no command to trace" in capsys.readouterr().err
