"""Sweeps keep what succeeds (a deadlock or model error at one np is reported for that np),
``parjava predict --fail-on``, per-rank opaque statistics and measured arguments from the Python
builder, shared sampled draws, and the progress callback."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import parjava as pj
from interp_machines import hockney
from parjava._core_loader import load_core
from parjava._progress import Progress

MACHINE = hockney(1e-6, 1e9, eager=65536)


def fragile() -> pj.Model:
    """Fine at np 1 and 4; a head-to-head rendezvous at np 2 (deadlock); a peer outside the
    communicator at np 3 (model error)."""
    m = pj.Model("fragile", file="fragile.c")
    m.compute(1e-3, line=3)
    with m.if_("size == 2", line=4):
        m.send(dest="1 - rank", bytes=1 << 20, line=5)
        m.recv(source="1 - rank", line=6)
    with m.if_("size == 3 && rank == 0", line=8):
        m.send(dest=5, bytes=8, line=9)
    m.allreduce(bytes=8, line=11)
    return m


def test_a_sweep_keeps_the_runs_that_succeed() -> None:
    pred = pj.interpret(fragile(), MACHINE, np=[1, 2, 3, 4])
    assert list(pred.np) == [1, 4] and not pred.ok
    assert [(f.np, f.kind) for f in pred.failures] == [(2, "deadlock"), (3, "model error")]
    deadlock = pred.failures[0]
    assert [b["rank"] for b in deadlock.blocked] == [0, 1]
    assert [b["location"] for b in deadlock.blocked] == ["fragile.c:5", "fragile.c:5"]
    assert "rank 0: MPI_Send" in deadlock.message
    assert "rank 5" in pred.failures[1].message or "5" in pred.failures[1].summary
    rows = pred.table()
    assert [r["np"] for r in rows] == [1, 2, 3, 4]
    assert [r["status"] for r in rows] == ["ok", "failed", "failed", "ok"]
    assert np.isnan(rows[1]["time"]) and rows[1]["error"].startswith("deadlock: ")
    assert rows[3]["speedup"] == pytest.approx(pred.speedup()[-1])
    frame = pred.to_pandas()
    assert list(frame["status"]) == ["ok", "failed", "failed", "ok"]
    assert "FAILED (deadlock" in repr(pred) and "failed: deadlock" in pred._repr_html_()
    doc = pred.to_dict()
    assert [f["np"] for f in doc["failures"]] == [2, 3] and len(doc["runs"]) == 2
    # Asked to, the first failure stops the sweep; a single run raises as before.
    with pytest.raises(pj.DeadlockError):
        pj.interpret(fragile(), MACHINE, np=[1, 2, 4], errors="raise")
    with pytest.raises(pj.DeadlockError) as info:
        pj.interpret(fragile(), MACHINE, np=2)
    assert len(info.value.blocked) == 2
    # When every run fails there is nothing to keep: the first error is raised.
    with pytest.raises(pj.DeadlockError) as info:
        pj.interpret(fragile(), MACHINE, np=[2, 3])
    assert "every run of the sweep failed" in "".join(getattr(info.value, "__notes__", []))


def predict_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "parjava", "predict", *args],
        capture_output=True,
        text=True,
        check=False,
    )


def test_cli_marks_failed_rows_and_fail_on(tmp_path) -> None:
    model = tmp_path / "fragile.json"
    fragile().save(model)
    machine = tmp_path / "machine.json"
    machine.write_text(MACHINE)
    out = predict_cli(str(model), "--machine", str(machine), "--np", "1,2,4")
    assert out.returncode == 1, out.stderr
    lines = out.stdout.splitlines()
    assert any(line.split()[:3] == ["2", "1", "FAILED"] and "deadlock" in line for line in lines)
    assert any(line.split()[:2] == ["4", "1"] and "FAILED" not in line for line in lines)
    assert "failed at np=2 threads=1: deadlock" in out.stderr and "fragile.c:5" in out.stderr
    assert "check failed: the prediction failed at np=2" in out.stderr
    quiet = predict_cli(str(model), "--machine", str(machine), "--np", "1,2,4", "--fail-on", "none")
    assert quiet.returncode == 0, quiet.stderr
    doc = json.loads(
        predict_cli(str(model), "--machine", str(machine), "--np", "1,2", "--json").stdout
    )
    assert doc["failures"][0]["kind"] == "deadlock" and doc["failures"][0]["blocked"]
    assert [r["np"] for r in doc["runs"]] == [1]
    every = predict_cli(str(model), "--machine", str(machine), "--np", "2")
    assert every.returncode == 2 and "DeadlockError" in every.stderr


def test_builder_per_rank_statistics_and_measured_arguments() -> None:
    m = pj.Model("ranks", file="ranks.c")
    with m.loop("i", 0, 10, line=2):
        with m.if_(
            probability=0.5,
            samples=20,
            by_rank=[{"probability": 1.0, "samples": 10}, {"probability": 0.0, "samples": 10}],
            line=3,
        ):
            m.compute(1e-6, line=4)
    with m.if_("rank == 0", line=6):
        m.send(dest=pj.measured_arg("1", [[2], [], []]), bytes=8, line=7)
    with m.if_("rank == 2", line=8):
        m.recv(source=0, line=9)
    doc = json.loads(m.to_json())
    node = next(n for n in doc["nodes"] if n.get("source", {}).get("line") == 3)
    assert node["opaque"]["by_rank"][1] == {"probability": 0.0, "samples": 10}
    send = next(n for n in doc["nodes"] if n.get("op") == "MPI_Send")
    assert send["args"]["dest"] == {"expr": "1", "by_rank": [[2], [], []]}
    free = hockney(0.0, 1e30)
    # np 2 (where the branch was measured): rank 0 always, rank 1 never; the peer was measured
    # at np 3, so rank 0 sends to the fallback rank 1, which never receives it.
    pred = pj.interpret(m, free, np=2)
    assert pred.end_times[0] == pytest.approx(10e-6) and pred.end_times[1] == pytest.approx(0.0)
    assert any("'dest' was measured per rank at np 3; at np 2" in w for w in pred.warnings)
    assert any("never received" in w for w in pred.warnings)
    # np 3: the measured peer 2 receives; the branch runs by rank class (the middle rank pooled).
    pred3 = pj.interpret(m, free, np=3)
    # (rank 2 receives the message rank 0 sends after its 10 µs)
    assert list(pred3.end_times) == pytest.approx([10e-6, 5e-6, 10e-6])
    assert [w for w in pred3.warnings if "differ across ranks" in w]
    assert not [w for w in pred3.warnings if "never received" in w or "'dest'" in w]
    with pytest.raises(pj.UsageError, match="by_rank= needs the pooled"):
        m.if_(by_rank=[{"probability": 1.0, "samples": 1}])
    sw = pj.Model("switch")
    with sw.switch(samples=2, by_rank=[{"weights": [1, 0], "samples": 1}, {"samples": 0}]):
        with sw.case(0, weight=1):
            sw.compute(1e-6)
        with sw.case(default=True, weight=3):
            sw.compute(1e-3)
    again = pj.Model.from_json(sw.to_json())
    assert next(n for n in again.nodes() if n["kind"] == "switch")["by_rank"][1] == {"samples": 0}


def test_sampled_draws_guarding_a_collective_agree_across_ranks() -> None:
    m = pj.Model("coin")
    with m.loop("i", 0, 8):
        with m.if_(probability=0.5):
            m.allreduce(bytes=8)
        m.compute("1e-6 * (rank + 1)")
    counts = set()
    for seed in range(1, 201):
        pred = pj.interpret(m, MACHINE, np=3, opaque="sampled", seed=seed)
        freq = next(r for r in pred.nodes() if r["kind"] == "cfc")["freq"]
        assert freq % 3 == 0
        counts.add(freq // 3)
    assert len(counts) > 4


def test_progress_callback_and_bar(capsys) -> None:
    m = pj.Model("ring", params={"niter": 500})
    with m.loop("it", 0, "niter"):
        m.irecv(source="(rank - 1 + size) % size", request="r")
        m.isend(dest="(rank + 1) % size", bytes=1024, request="s")
        m.compute(1e-6)
        m.waitall("r")
        m.waitall("s")
    seen: list[tuple[int, float, float]] = []
    core = load_core().interpret(
        m.native(),
        MACHINE,
        64,
        1,
        {},
        "expected",
        1,
        {},
        0.0,
        True,
        False,
        0,
        progress=lambda e, t, w: seen.append((e, t, w)),
        progress_interval=0.0,
    )
    assert len(seen) >= 2 and seen[0][0] == 65536 and seen[1][0] == 2 * 65536
    assert 0 < seen[0][1] <= seen[1][1] <= core.program_time

    # A callback that raises stops the interpretation (Ctrl-C goes the same way).
    def stop(*_: float) -> None:
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        load_core().interpret(
            m.native(),
            MACHINE,
            64,
            1,
            {},
            "expected",
            1,
            {},
            0.0,
            True,
            False,
            0,
            progress=stop,
            progress_interval=0.0,
        )
    with Progress(2, "interpret ring", enabled=True) as bar:
        bar.update("np=64: 0.1 M events")
        bar.advance(note="np=64 0.5 s")
    err = capsys.readouterr().err
    assert "interpret ring [" in err and "np=64: 0.1 M events" in err and "1/2" in err
