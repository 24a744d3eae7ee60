"""A real MPI run under the tracer: two marked phases, one balanced and one 2:1 imbalanced.

examples/phases.c (built by `make build` against parjava/interval.h) is traced with
parjava.trace at np 2 and 4. Load imbalance and idle time must appear in the imbalanced phase
(ideally a quarter of its total time: the light half of the ranks waits half the time) and not
in the balanced one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import parjava as pj
from parjava import tracing

pytestmark = [pytest.mark.mpi, pytest.mark.slow]

ITERATIONS = 3
WORK_US = 60_000


@pytest.fixture(scope="module")
def phases(examples_bin: Path) -> Path:
    exe = examples_bin / "phases"
    assert exe.exists(), f"{exe} is missing: examples/CMakeLists.txt builds it"
    return exe


@pytest.mark.parametrize("np_", [2, 4])
def test_imbalance_and_idle_only_in_the_imbalanced_phase(
    phases: Path, tmp_path: Path, np_: int
) -> None:
    trace = tracing.trace(
        # -s 1: the work sleeps, so its durations hold on an oversubscribed, loaded machine
        [str(phases), "-n", str(ITERATIONS), "-w", str(WORK_US), "-s", "1"],
        np=np_,
        output=tmp_path,
    )
    tree = trace.intervals()
    balanced, imbalanced = tree["balanced"], tree["imbalanced"]
    for iv in (balanced, imbalanced):
        assert iv.source == "marker"
        assert iv.exe_count == ITERATIONS
        assert iv.processors == np_
        assert iv.file.endswith("phases.c")
    work = ITERATIONS * WORK_US * 1e-6

    def fraction(iv: pj.intervals.Interval, name: str) -> float:
        return iv.characteristic(name) / iv.total_time

    # Imbalanced: the light (odd) ranks wait `work` each, so idle time and load imbalance are
    # a quarter of the total (measured 0.25 at np 2 and 4) and efficiency is 3/4.
    assert 0.18 < fraction(imbalanced, "idle") < 0.32
    assert 0.18 < fraction(imbalanced, "load_imbalance") < 0.32
    assert 0.65 < imbalanced.efficiency < 0.85
    for label, row in imbalanced.per_process.iterrows():
        if int(label) % 2 == 1:
            assert row["idle"] > 0.75 * work, label
            assert row["load_imbalance"] > 0.75 * work, label
        else:
            assert row["idle"] < 0.2 * work, label
    # Balanced: none of it (measured 0.002).
    assert fraction(balanced, "idle") < 0.06
    assert fraction(balanced, "load_imbalance") < 0.06
    assert balanced.efficiency > 0.93
    assert balanced.per_process["idle"].max() < 0.2 * work
    # The barriers between the phases are outside both: in the root's own part.
    assert imbalanced.characteristic("mpi") < 0.05 * imbalanced.total_time
    assert tree.root.characteristic("collective") > 0
