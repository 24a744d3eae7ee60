"""parjava.sweep on every executor: the frame equals the serial loop of pj.interpret exactly,
models and machines travel once per worker, and `parjava sweep` writes the same as CSV."""

from __future__ import annotations

import math
import multiprocessing
import os
import shutil
import subprocess
import sys
import textwrap
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pandas as pd
import pytest

import parjava as pj
from interp_machines import hockney

PARAMS = {"N": [1000, 4000], "halo": [8, 65536]}
NPS = [1, 2, 3, 4]


def stencil() -> pj.Model:
    """Compute scaled by N/size, a halo ring exchange, an allreduce; np 3 deadlocks on purpose
    (two rendezvous sends head to head) so failed rows are part of every comparison."""
    m = pj.Model("stencil", params={"N": 1000, "halo": 8})
    m.compute("N * 1e-6 / size", line=3)
    with m.if_("size != 3", line=4):
        m.sendrecv(
            dest="(rank + 1) % size",
            sendbytes="halo",
            source="(rank + size - 1) % size",
            line=5,
        )
    with m.if_("size == 3 && rank < 2", line=7):
        m.send(dest="1 - rank", bytes=1 << 22, line=8)
        m.recv(source="1 - rank", line=9)
    m.allreduce(bytes="8 * N", line=11)
    return m


def machines() -> list[object]:
    return [hockney(1e-6, 1e9, eager=65536), pj.Machine.preset("ethernet-10g")]


def serial_loop(model: pj.Model, machine_list: list[object]) -> pd.DataFrame:
    """The reference: pj.interpret point by point, in the sweep's row order."""
    rows = []
    for mach in machine_list:
        name = pj.Machine.from_json(mach).name if isinstance(mach, str) else mach.name
        for n in PARAMS["N"]:
            for halo in PARAMS["halo"]:
                group = []
                for p in NPS:
                    try:
                        pred = pj.interpret(model, mach, np=p, params={"N": n, "halo": halo})
                        time, bound, status = pred.time, pred.error_bound, "ok"
                    except pj.DeadlockError:
                        time, bound, status = math.nan, math.nan, "failed"
                    group.append((name, p, n, halo, time, bound, status))
                base = next(g[4] for g in group if g[6] == "ok")
                for name_, p, n_, h, time, bound, status in group:
                    speedup = base / time if status == "ok" else math.nan
                    rows.append(
                        {
                            "machine": name_,
                            "np": p,
                            "N": n_,
                            "halo": h,
                            "time": time,
                            "error_bound": bound,
                            "speedup": speedup,
                            "efficiency": speedup / p,
                            "status": status,
                        }
                    )
    return pd.DataFrame(rows)


def same(frame: pd.DataFrame, reference: pd.DataFrame) -> None:
    cols = list(reference.columns)
    pd.testing.assert_frame_equal(
        frame[cols].reset_index(drop=True), reference, check_exact=True, check_dtype=False
    )


@pytest.fixture(scope="module")
def reference() -> pd.DataFrame:
    ref = serial_loop(stencil(), machines())
    assert (ref["status"] == "failed").sum() == 8 and (
        ref["np"][ref["status"] == "failed"] == 3
    ).all()
    return ref


@pytest.fixture(scope="module")
def serial() -> pd.DataFrame:
    return pj.sweep(stencil(), machines(), np=NPS, params=PARAMS, executor="serial")


def test_serial_sweep_is_the_loop_of_interpret(
    serial: pd.DataFrame, reference: pd.DataFrame
) -> None:
    same(serial, reference)
    assert list(serial.columns) == [
        "machine", "np", "threads", "N", "halo", "time", "error_bound", "speedup",
        "efficiency", "coverage", "warnings", "status", "error",
    ]  # fmt: skip
    assert len(serial) == 2 * 2 * 2 * 4
    failed = serial[serial["status"] == "failed"]
    assert failed["error"].str.startswith("deadlock: ").all()
    # Parameters reach the interpretation: the 64 KiB halo costs more than the 8 B one.
    ok = serial[(serial["status"] == "ok") & (serial["np"] == 4)]
    small, big = ok[ok["halo"] == 8], ok[ok["halo"] == 65536]
    assert (big["time"].to_numpy() > small["time"].to_numpy()).all()


def test_coverage_comes_from_the_models_self_check(serial: pd.DataFrame) -> None:
    assert serial["coverage"].isna().all()  # this model was never estimated
    model = stencil()
    model.native()
    model._doc["self_check"] = {"passed": True, "coverage": 0.75, "message": "self-check"}
    frame = pj.sweep(model, machines()[0], np=[1, 2], executor="serial")
    assert (frame["coverage"] == 0.75).all()


def test_process_pool_equals_serial_and_ships_once_per_worker(serial: pd.DataFrame) -> None:
    frame = pj.sweep(stencil(), machines(), np=NPS, params=PARAMS, workers=2, chunksize=3)
    pd.testing.assert_frame_equal(frame, serial, check_exact=True)
    assert frame.attrs["payload_shipments"] == 2  # one per worker, at start-up
    # A pool of the caller's: the first task per worker carries the payload; a worker that
    # still lacks it asks once. Far fewer shipments than the 16 tasks.
    spawn = multiprocessing.get_context("spawn")  # fresh workers, nothing cached
    with ProcessPoolExecutor(max_workers=2, mp_context=spawn) as pool:
        frame = pj.sweep(stencil(), machines(), np=NPS, params=PARAMS, executor=pool, chunksize=2)
    pd.testing.assert_frame_equal(frame, serial, check_exact=True)
    assert 2 <= frame.attrs["payload_shipments"] <= 4


def test_bad_inputs_are_named() -> None:
    with pytest.raises(pj.UsageError, match="nope"):
        pj.sweep(stencil(), machines(), np=[1], params={"nope": [1]}, executor="serial")
    with pytest.raises(pj.UsageError, match="np values"):
        pj.sweep(stencil(), machines(), np=[0], executor="serial")
    with pytest.raises(pj.UsageError, match="not-a-machine"):
        pj.sweep(stencil(), ["not-a-machine"], np=[1], executor="serial")
    with pytest.raises(pj.UsageError, match=r"parjava\.Trace"):
        pj.sweep(object(), machines(), np=[1])  # type: ignore[arg-type]


WORKER_SCRIPT = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {tests!r})
    import parjava as pj
    from test_sweeps import stencil, machines, PARAMS, NPS
    {setup}
    frame = pj.sweep(stencil(), machines(), np=NPS, params=PARAMS, executor=executor)
    frame.to_pickle({out!r})
    {teardown}
    """
)


def test_mpi4py_pool_under_mpirun_equals_serial(serial: pd.DataFrame, tmp_path: Path) -> None:
    pytest.importorskip("mpi4py", reason="mpi4py is not installed (pip install mpi4py)")
    if not shutil.which("mpirun"):
        pytest.skip("mpirun is not installed")
    out = tmp_path / "mpi.pkl"
    script = tmp_path / "mpi_sweep.py"
    script.write_text(
        WORKER_SCRIPT.format(
            tests=str(Path(__file__).parent),
            setup="from mpi4py.futures import MPIPoolExecutor\nexecutor = MPIPoolExecutor()",
            out=str(out),
            teardown="executor.shutdown()",
        )
    )
    env = dict(os.environ, OMPI_MCA_rmaps_base_oversubscribe="1")
    cmd = ["mpirun", "--oversubscribe", "-np", "3", sys.executable, "-m", "mpi4py.futures"]
    run = subprocess.run([*cmd, str(script)], capture_output=True, text=True, env=env, timeout=180)
    assert run.returncode == 0, run.stderr[-3000:]
    frame = pd.read_pickle(out)
    pd.testing.assert_frame_equal(frame, serial, check_exact=True)
    assert 2 <= frame.attrs["payload_shipments"] <= 4  # two worker ranks


def test_dask_local_cluster_equals_serial(serial: pd.DataFrame) -> None:
    distributed = pytest.importorskip(
        "distributed", reason="dask.distributed is not installed (pip install dask distributed)"
    )
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        frame = pj.sweep(
            stencil(), machines(), np=NPS, params=PARAMS, executor=client.get_executor()
        )
    pd.testing.assert_frame_equal(frame, serial, check_exact=True)
    assert frame.attrs["payload_shipments"] == 2  # broadcast to the two workers


def test_cli_writes_the_same_csv(serial: pd.DataFrame, tmp_path: Path) -> None:
    model = tmp_path / "stencil.json"
    stencil().save(model)
    machine = tmp_path / "hockney.json"
    machine.write_text(machines()[0])  # type: ignore[arg-type]
    out = tmp_path / "sweep.csv"
    cmd = [sys.executable, "-m", "parjava", "sweep", str(model), "--machine", str(machine)]
    cmd += ["--machine", "ethernet-10g", "--np", "1,2,3,4", "--param", "N=1000,4000"]
    cmd += ["--param", "halo=8,65536", "--workers", "2", "-o", str(out)]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "32 points (24 ok) written" in run.stderr and "failed: test-hockney np=3" in run.stderr
    frame = pd.read_csv(out, keep_default_na=False, na_values=[""])
    for col in ("time", "error_bound", "speedup", "efficiency"):
        # CSV keeps every float exactly (shortest round-trip text).
        assert frame[col].equals(serial[col]), col
    assert list(frame["machine"]) == list(serial["machine"])
    fail = subprocess.run(
        [*cmd, "--executor", "serial", "--fail-on", "failure"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert fail.returncode == 1
    bad = subprocess.run([*cmd[:4], "--param", "N"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "NAME=V1,V2" in bad.stderr


def test_cli_on_mpi_workers(serial: pd.DataFrame, tmp_path: Path) -> None:
    """`mpirun -np 3 python -m mpi4py.futures -m parjava sweep ... --executor mpi`: rank 0 runs
    the command, ranks 1-2 the points (they import parjava.__main__ without running it)."""
    pytest.importorskip("mpi4py", reason="mpi4py is not installed (pip install mpi4py)")
    if not shutil.which("mpirun"):
        pytest.skip("mpirun is not installed")
    model = tmp_path / "stencil.json"
    stencil().save(model)
    out = tmp_path / "mpi.csv"
    cmd = ["mpirun", "--oversubscribe", "-np", "3", sys.executable, "-m", "mpi4py.futures"]
    cmd += ["-m", "parjava", "sweep", str(model), "--machine", "ethernet-10g", "--np", "1,2,3,4"]
    cmd += ["--param", "N=1000,4000", "--param", "halo=8,65536", "--executor", "mpi", "-o"]
    env = dict(os.environ, OMPI_MCA_rmaps_base_oversubscribe="1")
    run = subprocess.run([*cmd, str(out)], capture_output=True, text=True, env=env, timeout=180)
    assert run.returncode == 0, run.stderr[-3000:]
    frame = pd.read_csv(out, keep_default_na=False, na_values=[""])
    expected = serial[serial["machine"] == "ethernet-10g"].reset_index(drop=True)
    assert frame["time"].equals(expected["time"])
    assert list(frame["status"]) == list(expected["status"])
