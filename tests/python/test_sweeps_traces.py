"""Sweeps over a trace (issue 15): `pj.sweep(trace, machines=[...], params={replay option:
[...]})` replays the trace at every point, equal to a loop of `pj.replay`, on the serial path,
a process pool, Dask and mpi4py workers, and from `parjava sweep TRACE`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import parjava as pj
from interp_machines import hockney

MACHINES = [hockney(1e-5, 1e8), "ethernet-10g"]
PARAMS = {"balance": [False, True], "scale:*": [1.0, 0.5]}


def archive(otf2_data: Path) -> str:
    return str(otf2_data / "tracer-stencil4d-64" / "traces.otf2")


def loop(path: str) -> pd.DataFrame:
    """What the sweep must equal: one pj.replay per point, in sweep order."""
    trace = pj.Trace.open(path)
    rows = []
    for m, label in zip(MACHINES, ["test-hockney", "ethernet-10g"]):
        machine = pj.Machine.from_json(m) if m.lstrip().startswith("{") else m
        for balance in PARAMS["balance"]:
            for factor in PARAMS["scale:*"]:
                r = pj.replay(
                    trace, machine, balance=balance, scale={"*": factor}, record_trace=False
                )
                rows.append(
                    {
                        "machine": label,
                        "np": trace.process_count,
                        "balance": balance,
                        "scale:*": factor,
                        "time": r.time,
                        "speedup": trace.duration / r.time,
                        "warnings": "; ".join(r.warnings),
                        "status": "ok",
                    }
                )
    return pd.DataFrame(rows)


def same(frame: pd.DataFrame, reference: pd.DataFrame) -> None:
    cols = list(reference.columns)
    pd.testing.assert_frame_equal(
        frame[cols].reset_index(drop=True), reference, check_exact=True, check_dtype=False
    )


@pytest.fixture(scope="module")
def serial(otf2_data: Path) -> pd.DataFrame:
    frame = pj.sweep(archive(otf2_data), MACHINES, params=PARAMS, executor="serial")
    assert frame.attrs["trace"].endswith("traces.otf2")
    return frame


def test_serial_sweep_is_the_loop_of_replay(serial: pd.DataFrame, otf2_data: Path) -> None:
    reference = loop(archive(otf2_data))
    same(serial, reference)
    assert serial["time"].nunique() == len(serial)  # every option changes the replay
    assert serial[["error_bound", "efficiency", "coverage"]].isna().all().all()
    assert list(serial.columns[:5]) == ["machine", "np", "threads", "balance", "scale:*"]


def test_pool_and_dask_equal_serial(serial: pd.DataFrame, otf2_data: Path) -> None:
    trace = pj.Trace.open(archive(otf2_data))  # a Trace object works as the path does
    pool = pj.sweep(trace, MACHINES, params=PARAMS, workers=2)
    pd.testing.assert_frame_equal(pool, serial, check_exact=True)
    assert pool.attrs["payload_shipments"] == 2
    distributed = pytest.importorskip(
        "distributed", reason="dask.distributed is not installed (pip install dask distributed)"
    )
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        frame = pj.sweep(trace, MACHINES, params=PARAMS, executor=client.get_executor())
    pd.testing.assert_frame_equal(frame, serial, check_exact=True)


def test_cli_on_mpi_workers_writes_the_same_csv(
    serial: pd.DataFrame, otf2_data: Path, tmp_path: Path
) -> None:
    pytest.importorskip("mpi4py", reason="mpi4py is not installed (pip install mpi4py)")
    if not shutil.which("mpirun"):
        pytest.skip("mpirun is not installed")
    machine = tmp_path / "hockney.json"
    machine.write_text(MACHINES[0])
    out = tmp_path / "sweep.csv"
    cmd = ["mpirun", "--oversubscribe", "-np", "3", sys.executable, "-m", "mpi4py.futures"]
    cmd += ["-m", "parjava", "sweep", archive(otf2_data), "--machine", str(machine)]
    cmd += ["--machine", "ethernet-10g", "--param", "balance=false,true"]
    cmd += ["--param", "scale:*=1,0.5", "--executor", "mpi", "-o", str(out)]
    env = dict(os.environ, OMPI_MCA_rmaps_base_oversubscribe="1")
    run = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "8 points (8 ok) written" in run.stderr
    frame = pd.read_csv(out, keep_default_na=False, na_values=[""])
    for col in ("time", "speedup"):
        assert frame[col].equals(serial[col]), col
    assert list(frame["balance"]) == list(serial["balance"])


def test_bad_trace_sweeps_are_named(otf2_data: Path) -> None:
    path = archive(otf2_data)
    with pytest.raises(pj.UsageError, match="'N' is not a replay option"):
        pj.sweep(path, MACHINES, params={"N": [1]}, executor="serial")
    with pytest.raises(pj.UsageError, match="np is the trace's"):
        pj.sweep(path, MACHINES, np=[2, 4], executor="serial")
    with pytest.raises(pj.UsageError, match="matches no user region"):
        pj.sweep(path, MACHINES, params={"scale:no_such_region": [2.0]}, executor="serial")
    with pytest.raises(pj.UsageError, match="balance = 'yes'"):
        pj.sweep(path, MACHINES, params={"balance": ["yes"]}, executor="serial")
