"""Loops a data test ends, and lookups that always find their key (UoB-HPC/hot, thirty-second
session; tests/programs/convergence/jacobi.c).

* A convergence check's `break` under a test the model decides by its measured frequency p:
  error diffusion from ½ took it first after ½/p iterations, so hot's 10 CG solves ran 9.5/p,
  5 % short of the run. A test that leaves its loop now starts at 0: every entry runs 1/p.
* At another input the count is the estimation's: hot estimated at 256^2 and predicted at 512^2
  kept 152 CG iterations a solve where the run needs 239-444, 62-68 % too fast without a word.
  The prediction now names the loop, its count and the inputs that differ.
* A search loop `while (fgets(...)) { if (match) return 1; }` of measured trips: drawn apart,
  the trips and the match ended lookups with "not found" the run never reached (hot's
  parameter file, then its error path). The match is now taken on the loop's last trip, in the
  share of entries the run left by it.

Real Clang parses, real mpirun runs.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import parjava as pj

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

SOURCE = Path(__file__).resolve().parents[1] / "programs" / "convergence" / "jacobi.c"
MACHINE = pj.Machine.preset("shared-memory")


def _settings(tmp_path: Path, cells: int) -> Path:
    path = tmp_path / f"cells{cells}.in"
    # The lookups end after 1, 2 and 5 lines (2.67 on average): drawn apart from that count,
    # a match that leaves the loop misses the second lookup's last line.
    path.write_text(f"cells {cells}\nsteps 6\n# the sweeps' cap\n#\nmax_sweeps 100000\n")
    return path


def _sweeps(tmp_path: Path, settings: Path, np_: int) -> int:
    exe = tmp_path / "jacobi"
    if not exe.exists():
        mpicc = shutil.which("mpicc")
        assert mpicc is not None
        subprocess.run([mpicc, "-O2", str(SOURCE), "-o", str(exe)], check=True)
    out = subprocess.run(
        ["mpirun", "--oversubscribe", "-np", str(np_), str(exe), str(settings)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    return int(out.split("sweeps ")[1].split()[0])


def test_a_convergence_loop_runs_the_runs_count_and_says_so_at_another_input(
    tmp_path: Path,
) -> None:
    small = _settings(tmp_path, 64)
    run = ["./jacobi", str(small)]
    model = pj.build_model(SOURCE, ["-O2"], argv=run)
    model.estimate(run=run, np=1, directory=tmp_path / "est")
    base = model.arguments(run)
    real = _sweeps(tmp_path, small, 1)
    for np_ in (1, 2):
        same = pj.interpret(model, MACHINE, np=np_, params=base)
        rows = same.nodes(np_)
        loop = next(r for r in rows if r["label"] == "for sweep < max_sweeps")
        body = next(r for r in rows if r["id"] == model.node(loop["id"])["children"][0])
        # Every solve runs the sweeps the run's did (6 solves of 5830 at 64 cells), at np 2 too
        # (the same global problem); from ½ the first solve was half as long.
        assert body["freq"] / np_ == pytest.approx(real, abs=6), (body, loop, real)
        data_test = [w for w in same.warnings if "ended after the iterations" in w]
        assert (not data_test) if np_ == 1 else data_test, same.warnings
        # The lookups always found their key: the model takes no "not found" path either.
        never = [w for w in same.warnings if "never executed" in w]
        assert not never, never
    wider = pj.interpret(model, MACHINE, np=1, params={**base, "cells": 128})
    said = [w for w in wider.warnings if "ended after the iterations" in w]
    assert said and "jacobi.c" in said[0] and "cells=128" in said[0], wider.warnings
    assert "about 5830" in said[0], said
    # What it warns about is real: the finer grid needs about 4x the sweeps.
    assert _sweeps(tmp_path, _settings(tmp_path, 128), 1) > 3 * real
