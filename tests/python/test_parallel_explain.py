"""The explanation analyses on MPI (parjava.parallel.pop, critical_path and root_causes,
`parjava pop --mpi`, `parjava critical-path --mpi`, `parjava root-causes --mpi`): for K = 1..4
analysis ranks on every test archive, the project's own traced examples and a generated
64-rank trace, every POP figure (per run, per interval, per region, the scaling table), the
whole critical path and every delay cost (the C++ result's arrays bit for bit, every table and
report) equal the serial ones; the command line writes the serial reports' bytes; a failing or
killed rank fails the job clearly; `parjava whatif --mpi` says why a replay cannot run in
parts."""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import parjava as pj
from explain_records import critical_path_record, pop_record, root_causes_record
from parjava import parallel

HERE = Path(__file__).parent
REPO = HERE.parents[1]
ARCHIVES = sorted(p for p in (REPO / "tests" / "data" / "otf2").glob("*/**/traces.otf2"))
WINDOWS = {"main": "main", "all": "all", "seconds": (0.0, 1.3)}


def _mpirun() -> list[str]:
    pytest.importorskip("mpi4py", reason="mpi4py is not installed (pip install mpi4py)")
    if not shutil.which("mpirun"):
        pytest.skip("mpirun is not installed")
    return ["mpirun", "--oversubscribe"]


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


def _equal(got: Any, want: Any, where: Any) -> None:
    """Exactly equal: frames by value and dtype (NaN equal to NaN), the rest by ==."""
    if isinstance(want, pd.DataFrame):
        pd.testing.assert_frame_equal(got, want, check_exact=True, obj=str(where))
    elif isinstance(want, dict):
        assert set(got) == set(want), where
        for key in want:
            _equal(got[key], want[key], (where, key))
    else:
        assert got == want, where


def _serial_pop(trace: pj.Trace, window: Any, tables: bool) -> dict[str, Any]:
    try:
        return pop_record(pj.pop(trace, window=window, transfer=False), tables)
    except pj.Error as exc:
        return {"error": str(exc)}


def _serial_path(trace: pj.Trace) -> dict[str, Any]:
    try:
        return critical_path_record(pj.critical_path(trace))
    except pj.Error as exc:
        return {"error": str(exc)}


def _serial_causes(trace: pj.Trace) -> dict[str, Any]:
    try:
        return root_causes_record(pj.root_causes(trace))
    except pj.Error as exc:
        return {"error": str(exc)}


def _check(out: Path, k: int, path: Path) -> bool:
    """Compare OUT/<k>.pickle with the serial analyses of ``path``; whether it has processes."""
    got = pickle.loads((out / f"{k}.pickle").read_bytes())
    trace = pj.Trace.open(path)
    for name, window in WINDOWS.items():
        want = _serial_pop(trace, window, tables=name == "main")
        record = got[f"pop.{name}"]
        if "error" in want:
            assert want["error"] in record["error"], (path, name)
            continue
        # Asked with transfer=True (the default): the note says why SerE and TE are missing.
        assert record.pop("note") == parallel.TRANSFER_NOTE, (path, name)
        assert want.pop("note") is None
        _equal(record, want, (path, name))
    want = _serial_path(trace)
    causes = _serial_causes(trace)
    if "error" in want:
        assert want["error"] in got["critical_path"]["error"], path
        assert causes["error"] in got["root_causes"]["error"], path
        return False
    _equal(got["critical_path"], want, (path, "critical path"))
    assert want["path"]["length"] > 0, path
    _equal(got["root_causes"], causes, (path, "root causes"))
    return True


def _run_worker(ranks: int, out: Path, archives: list[str]) -> None:
    cmd = [*_mpirun(), "-np", str(ranks), sys.executable, str(HERE / "mpi_explain_worker.py")]
    run = subprocess.run(
        [*cmd, str(out), *archives], capture_output=True, text=True, env=_env(), timeout=600
    )
    assert run.returncode == 0, run.stderr[-4000:]


def test_archives_found() -> None:
    assert len(ARCHIVES) >= 6, ARCHIVES


@pytest.mark.parametrize("ranks", [1, 2, 3, 4])
def test_parallel_explanations_equal_serial(ranks: int, tmp_path: Path, generated: Path) -> None:
    archives = [*ARCHIVES, generated]
    _run_worker(ranks, tmp_path, [str(p) for p in archives])
    with_processes = [p for k, p in enumerate(archives) if _check(tmp_path, k, p)]
    assert len(with_processes) >= 5
    # Long-term costs: waiting propagated across the ranks' blocks (generated: 64 processes).
    causes = pj.root_causes(generated)
    assert causes.table()["long_term"].sum() > 0
    scaling = pickle.loads((tmp_path / "scaling.pickle").read_bytes())
    assert scaling == pj.pop([str(p) for p in with_processes], transfer=False).to_dict()


def test_own_traced_examples(examples_bin: Path, tmp_path: Path) -> None:
    """Runs of the project's own examples under the tracer (every wrapped MPI function; a
    stencil with rank 0 late; a program with injected imbalance), on 1 to 4 ranks."""
    runs = [
        ([str(examples_bin / "mpi_coverage")], 4),
        ([str(examples_bin / "stencil2d"), "-n", "16", "-i", "8", "-r", "2", "-d", "2"], 4),
        ([str(examples_bin / "scan_imbalance")], 4),
    ]
    archives = []
    for k, (command, np_) in enumerate(runs):
        if not Path(command[0]).exists():
            continue
        trace = pj.trace(command, np=np_, output=tmp_path / f"run{k}", timeout=120)
        archives.append(trace.metadata["path"])
    assert len(archives) >= 2
    for ranks in (1, 2, 3, 4):
        out = tmp_path / f"k{ranks}"
        out.mkdir()
        _run_worker(ranks, out, archives)
        for k, path in enumerate(archives):
            assert _check(out, k, Path(path)), (ranks, path)


def _cli(*args: str, ranks: int = 3) -> subprocess.CompletedProcess[str]:
    cmd = [*_mpirun(), "-np", str(ranks), sys.executable, "-m", "parjava", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=_env(), timeout=300)


def _serial_cli(*args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "parjava", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=_env(), timeout=300)


@pytest.mark.parametrize("verb", ["pop", "critical-path", "root-causes"])
def test_cli_mpi_writes_the_serial_reports(verb: str, tmp_path: Path) -> None:
    """Every format with --mpi: rank 0 alone writes the serial command's bytes."""
    path = str(next(p for p in ARCHIVES if "stencil" in str(p)))
    extra = ["--no-transfer"] if verb == "pop" else []
    for fmt in ("text", "json", "csv"):
        got, want = tmp_path / f"mpi.{fmt}", tmp_path / f"serial.{fmt}"
        run = _cli(verb, path, "--mpi", *extra, "--format", fmt, "-o", str(got))
        assert run.returncode == 0, run.stderr[-3000:]
        assert run.stderr.count("wrote the") == 1  # rank 0 alone writes
        serial = _serial_cli(verb, path, *extra, "--format", fmt, "-o", str(want))
        assert serial.returncode == 0, serial.stderr[-3000:]
        assert got.read_bytes() == want.read_bytes(), (verb, fmt)


def test_cli_pop_mpi_says_what_it_leaves_out(tmp_path: Path) -> None:
    """Without --no-transfer, --mpi reports transfer and serialisation efficiency as n/a and
    says why, once; --intervals adds the serial per-interval and per-region tables; --fail-on
    checks the same figures; --machine (the replay's) is refused."""
    path = str(next(p for p in ARCHIVES if "stencil" in str(p)))
    pe = pj.pop(path, transfer=False).parallel_efficiency
    run = _cli("pop", path, "--mpi", "--intervals", "--fail-on", f"parallel_efficiency:{pe * 2}")
    assert run.returncode == 1, run.stderr[-3000:]
    assert run.stderr.count("not computed under MPI") == 1
    assert run.stderr.count("check failed") == 1
    serial = _serial_cli("pop", path, "--no-transfer", "--intervals")
    assert run.stdout == serial.stdout.replace(
        "      Transfer efficiency                  n/a\n",
        "      Transfer efficiency                  n/a\n  (" + parallel.TRANSFER_NOTE + ")\n",
    )
    assert "per region:" in run.stdout
    run = _cli("pop", path, "--mpi", "--machine", "shared-memory", ranks=2)
    assert run.returncode == 2
    assert "--machine sets the ideal-network replay" in run.stderr


def test_cli_critical_path_mpi_refuses_what_needs_the_whole_trace(tmp_path: Path) -> None:
    path = str(next(p for p in ARCHIVES if "stencil" in str(p)))
    for flag, value in (("--timeline", "p.png"), ("--chrome", "p.json")):
        run = _cli("critical-path", path, "--mpi", flag, str(tmp_path / value), ranks=2)
        assert run.returncode == 2
        assert f"{flag} is not available with --mpi" in run.stderr
        assert run.stdout == ""


def test_cli_whatif_mpi_says_why_a_replay_is_not_parallel() -> None:
    """The replay is one simulation of the whole run: --mpi is refused, with the reason."""
    from parjava.cli.whatif import MPI_REFUSED

    path = str(next(p for p in ARCHIVES if "stencil" in str(p)))
    run = _cli("whatif", path, "--machine", "shared-memory", "--mpi", ranks=2)
    assert run.returncode == 2, run.stderr[-2000:]
    assert run.stderr.count("a replay cannot run in parts") == 2  # each rank says it
    assert MPI_REFUSED.split(".")[0] in run.stderr
    assert run.stdout == ""
    serial = _serial_cli("whatif", path, "--machine", "shared-memory", "--mpi")
    assert serial.returncode == 2 and "global time order" in serial.stderr


@pytest.mark.parametrize("verb", ["pop", "critical-path", "root-causes"])
def test_a_bad_archive_fails_every_rank_clearly(verb: str, tmp_path: Path) -> None:
    run = _cli(verb, str(tmp_path / "missing.otf2"), "--mpi", ranks=2)
    assert run.returncode == 2, run.stderr
    assert "reading the archive failed on analysis rank 0 of 2" in run.stderr
    assert run.stdout == ""


@pytest.mark.parametrize("verb", ["pop", "critical-path", "root-causes"])
def test_a_killed_rank_fails_the_job(verb: str) -> None:
    """Rank 2 dies as it starts: mpirun ends the job with an error and nothing is reported."""
    path = str(next(p for p in ARCHIVES if "stencil" in str(p)))
    die = "from mpi4py import MPI; import os, signal; os.kill(os.getpid(), signal.SIGKILL)"
    cmd = [*_mpirun(), "-np", "2", sys.executable, "-m", "parjava", verb, path, "--mpi"]
    run = subprocess.run(
        [*cmd, ":", "-np", "1", sys.executable, "-c", die],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=300,
    )
    assert run.returncode != 0
    assert "signal 9" in run.stderr or "Killed" in run.stderr, run.stderr[-2000:]
    assert "POP metrics" not in run.stdout and "critical path" not in run.stdout
    assert "root causes" not in run.stdout
