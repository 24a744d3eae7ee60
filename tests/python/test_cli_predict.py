"""``parjava predict`` on a model file: table, JSON, parameter overrides, speedup checks."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import parjava as pj
from interp_machines import hockney


@pytest.fixture()
def files(tmp_path):
    m = pj.Model("stencil", params={"N": 1 << 16, "niter": 3}, file="stencil.c")
    with m.loop("it", 0, "niter", line=5):
        m.compute("1e-9 * N / size", line=6)
        m.sendrecv(
            dest="(rank + 1) % size", sendbytes=512, source="(rank - 1 + size) % size", line=7
        )
    model = tmp_path / "stencil.json"
    m.save(model)
    machine = tmp_path / "machine.json"
    machine.write_text(hockney(1e-6, 1e9))
    return model, machine


def predict(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "parjava", "predict", *args],
        capture_output=True,
        text=True,
        check=False,
    )


def test_table_and_json(files):
    model, machine = files
    out = predict(str(model), "--machine", str(machine), "--np", "1,2,4")
    assert out.returncode == 0, out.stderr
    assert "speedup" in out.stdout and "hot fragments" in out.stdout
    out = predict(
        str(model), "--machine", str(machine), "--np", "1,4", "--json", "--params", "N=4096"
    )
    doc = json.loads(out.stdout)
    assert [r["np"] for r in doc["runs"]] == [1, 4]
    assert doc["runs"][0]["time"] == pytest.approx(3 * 4096e-9)


def test_expect_speedup_exit_codes(files):
    model, machine = files
    ok = predict(str(model), "--machine", str(machine), "--np", "1,4", "--expect-speedup", "4:>=2")
    assert ok.returncode == 0, ok.stderr
    bad = predict(str(model), "--machine", str(machine), "--np", "1", "--expect-speedup", "4:>=4")
    assert bad.returncode == 1
    assert "speedup at np=4" in bad.stderr


def test_usage_errors_exit_2(files, tmp_path):
    model, machine = files
    assert predict(str(model), "--machine", str(machine), "--np", "x").returncode == 2
    assert predict(str(model), "--np", "2").returncode == 2  # no machine
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    out = predict(str(broken), "--machine", str(machine))
    assert out.returncode == 2 and "not valid JSON" in out.stderr
