"""`parjava demo`: the pipeline of `make demo`, run for real on the embedded examples."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

from parjava.cli import demo


def run_demo(tmp_path: Path, *steps: str) -> str:
    command = [sys.executable, "-m", "parjava", "demo", "--output-dir", str(tmp_path)]
    for step in steps:
        command += ["--step", step]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def test_a_step_brings_the_steps_it_needs() -> None:
    names = [s.name for s in demo._chosen(["amdahl"])]
    assert names == ["machine", "model", "estimate", "predict", "amdahl"]
    assert [s.name for s in demo._chosen(["scan"])] == ["scan"]
    assert [s.name for s in demo._chosen(None)] == [s.name for s in demo.STEPS]


def test_source_to_speedup_curve_and_amdahl(tmp_path: Path) -> None:
    out = run_demo(tmp_path, "amdahl")
    for name in ("machine.json", "jacobi2d-model.json", "prediction.csv", "speedup.png"):
        assert (tmp_path / name).stat().st_size > 0, name
    with open(tmp_path / "prediction.csv") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["np"]) for r in rows] == list(demo.PREDICT_NP)
    times = [float(r["time"]) for r in rows]
    speedups = [float(r["speedup"]) for r in rows]
    # Rows split across more ranks: time falls and speedup rises up to 1024 on this input. The
    # stencil's working set falls from 1 GiB at np 1 into the caches, so its time per byte
    # falls too (scaled by this machine's sweep cost per byte, issue 13 item 4): the speedup
    # is superlinear, within the cache levels' cost ratio; the halo exchange and Allreduce
    # then hold the largest count back from what its smaller working set alone would give
    # (whether its efficiency still rises a little depends on the machine's measured cache
    # costs: 1.256 -> 1.244 here, up to 1.281 on a CI machine).
    assert all(b < a for a, b in zip(times, times[1:]))
    assert all(b > a for a, b in zip(speedups, speedups[1:]))
    efficiency = [s / n for s, n in zip(speedups, demo.PREDICT_NP)]
    assert abs(efficiency[1] - 1.0) < 0.05  # both ranks' rows still come from memory
    assert max(efficiency) < 10.0
    assert efficiency[-1] < 1.1 * efficiency[-2], efficiency
    assert "serial fraction f=" in out
    assert "[reduced]" in out  # the Clang model was reduced (seed 000 §3.5)
    assert "loop" in out and "reduced to a block" in out  # estimation reduced the stencil nest


def test_trace_scan_and_intervals_of_a_real_run(tmp_path: Path) -> None:
    out = run_demo(tmp_path, "scan")
    assert (tmp_path / "imbalance-trace" / "traces.otf2").is_file()
    # Rank 0 computes 20 ms longer before each of 10 barriers (examples/scan_imbalance.c).
    assert "Wait at Barrier" in out
    assert "scan_imbalance.c:" in out
    assert "Load Imbalance" in out and "Parallelization Efficiency" in out
