"""What the estimation says about itself (issue 13 items 2, 3, 5): per-rank statistics of an
estimation at np 2, the noise of the machine around the runs, and the self-check of the model
against its own estimation runs. Real mpirun runs of real instrumented programs."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import parjava as pj
from parjava import _estimation_report as report
from parjava._reference_run import ReferenceRun
from timed_estimation import estimate_checked

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "model"

RANKS = r"""
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int iters = argc > 1 ? atoi(argv[1]) : 40;
  /* arrays too large for the model to keep element by element (more than 64 scalars): their
     contents are data, so the branches, peers and counts below are measured */
  double values[128], buf[64] = {0};
  int counts[128] = {16, 48}, peers[128];
  for (int k = 0; k < 8; k++) values[k] = rank == 0 ? 1.0 : 0.0;
  peers[0] = (rank + 1) % size;
  peers[1] = (rank + size - 1) % size;
  double acc = 0.0, x;
  for (int it = 0; it < iters; it++) {
    if (values[it % 8] > 0.5) {
      acc += 1.0 / (1.0 + it);
    }
    x = 1.0 + values[it % 8];
    while (x > 0.01) {
      x *= 0.5;
    }
    switch ((int)values[it % 8]) {
    case 0:
      acc += 1.0;
      break;
    default:
      acc -= 1.0;
      break;
    }
    if (rank == 7) {
      if (values[0] > 2.0) acc = 0.0;
    }
    MPI_Sendrecv(buf, counts[rank % 2], MPI_DOUBLE, peers[0], 1, buf, 64, MPI_DOUBLE, peers[1], 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Allreduce(MPI_IN_PLACE, &acc, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  if (rank == 0) printf("acc %g\n", acc);
  MPI_Finalize();
  return 0;
}
"""


def labelled(doc: dict, prefix: str) -> dict:
    return next(n for n in doc["nodes"] if str(n.get("label", "")).startswith(prefix))


def test_opaque_statistics_and_measured_arguments_per_rank(tmp_path: Path) -> None:
    src = tmp_path / "ranks.c"
    src.write_text(RANKS)
    model = pj.build_model(src, ["-O2"])
    model.estimate(run=["./ranks", "40"], np=2, self_check=False)
    doc = json.loads(model.to_json())
    # interfaces §1: pooled statistics on top, one entry per rank of the np-2 run.
    branch = labelled(doc, "if values[it % 8] > 0.5")["opaque"]
    assert branch["probability"] == 0.5 and branch["samples"] == 80
    assert branch["by_rank"] == [
        {"probability": 1.0, "samples": 40},
        {"probability": 0.0, "samples": 40},
    ]
    # x starts at 2 on rank 0 (8 halvings to 0.0078) and at 1 on rank 1 (7 halvings): the
    # loop is reduced with each rank class's own trip count.
    loop = labelled(doc, "while x > 0.01")
    assert loop["kind"] == "rb"
    assert loop["time"].startswith("((rank == 0) ? 8.0 : ((rank == size - 1) ? 7.0 : 7.5)) * ")
    selector = labelled(doc, "switch (int)values[it % 8]")
    assert [r["weights"] for r in selector["by_rank"]] == [[0.0, 40.0], [40.0, 0.0]]
    # interfaces §2: arguments the model cannot compute, as {expr, by_rank} sequences; the
    # mean stays the fallback expression.
    sendrecv = next(n for n in doc["nodes"] if n.get("op") == "MPI_Sendrecv")
    dest = sendrecv["args"]["dest"]
    assert dest["by_rank"] == [[1] * 40, [0] * 40]
    assert sendrecv["args"]["source"]["by_rank"] == [[1] * 40, [0] * 40]
    sent = sendrecv["args"]["sendbytes"]
    assert sent["expr"] == "256" and sent["by_rank"] == [[128] * 40, [384] * 40]
    # A rank-dependent branch no rank of this input reached: unmeasured, said so, with the
    # probability the model uses.
    unmeasured = [
        d
        for d in model.diagnostics
        if "'if values[0] > 2.0' was never evaluated" in d.message and d.severity == "warning"
    ]
    assert unmeasured and "probability 0.5" in unmeasured[0].message
    assert (
        unmeasured[0].line == RANKS.splitlines().index("      if (values[0] > 2.0) acc = 0.0;") + 1
    )


def test_the_self_check_passes_on_its_own_runs_and_fires_on_a_lost_loop_bound(
    tmp_path: Path,
) -> None:
    model = pj.build_model(EXAMPLES / "jacobi2d.c", ["-O2"])
    est = estimate_checked(model, tmp_path / "est", run=["./jacobi2d", "512", "100"], np=1)
    check = est.self_check
    assert check is not None and check.np == 1
    assert check.measured > 0 and check.predicted > 0
    # A quiet machine re-predicts its own run within 10 %; a loaded one is said to be loaded,
    # and a program whose own runs differ by over 10 % (35-ms runs here: up to 20 %) is said
    # to be an uncertain reference.
    assert check.passed or est.verdict != "good", (check.message, est.trust)
    if est.verdict == "fair" and "unmodified program's" in est.trust:
        spans = est.reference.spans if est.reference else []
        assert max(spans) > 1.1 * min(spans), (spans, est.trust)
    # It compares with the unmodified program, built from the same sources and run three times
    # (a program this short; five when the three differ by over 10 %: the median of five
    # outlasts a slow phase; unless neighbours slowed those runs), and says what the probes
    # cost.
    assert est.reference is not None and len(est.reference.spans) in (3, 5)
    assert len(est.reference.spans) == 3 or max(est.reference.spans[:3]) > 1.1 * min(
        est.reference.spans[:3]
    )
    if not est.reference.disturbed:
        assert check.baseline == "unmodified" and check.measured == est.reference.seconds
        assert check.overhead is not None, check.message
        if est.verdict == "good":
            assert 0.8 < check.overhead < 2.0, check.message
        assert "the unmodified program took" in check.message
    doc = json.loads(model.to_json())
    assert doc["self_check"]["passed"] == check.passed
    assert doc["self_check"]["coverage"] == pytest.approx(check.coverage)
    assert doc["self_check"]["baseline"] == check.baseline
    # Against a program whose own runs differ by 32 %, a model 18 % off cannot be called wrong:
    # the tolerance is the spread (up to 25 %), and the message says so. 30 % off still fails.
    predicted = check.predicted
    for error, spread, passes in ((-0.18, 1.02, False), (-0.18, 1.25, True), (-0.30, 1.25, False)):
        median = predicted / (1 + error)
        noisy = dataclasses.replace(
            est,
            reference=ReferenceRun(
                ["x"], spans=[0.95 * median, median, spread * median], combine="mean"
            ),
        )
        rechecked = noisy.recheck(model)
        assert rechecked is not None and rechecked.error == pytest.approx(error)
        assert rechecked.passed == passes, rechecked.message
        if passes:
            assert rechecked.tolerance == pytest.approx(0.25)
            assert "within the program's own run-to-run spread of 32%" in rechecked.message
    # The model loses the bound of its iteration loop (the builder reduced its definition
    # away: here the condition is edited to a constant the run never had).
    loop = labelled(doc, "for it < iterations")
    loop["cond"] = "(it < 2)"
    doc.pop("self_check")
    broken = pj.Model.from_json(json.dumps(doc))
    failed = est.recheck(broken)
    assert failed is not None and not failed.passed
    assert failed.predicted < 0.5 * failed.measured and failed.coverage < 0.5
    # It names the fragments with the largest unexplained time and why.
    assert failed.fragments
    top = failed.fragments[0]
    assert "reduced away" in top["cause"] and "runs 2 times in the model, 100 times" in top["cause"]
    # And where the counts part: the loop, entered once in both, whose trips differ.
    assert "counts part at 'for it < iterations' (jacobi2d.c:" in top["cause"], top["cause"]
    assert "condition '(it < 2)': 2 times in the model against 100 in the run" in top["cause"]
    assert f"node {top['node']}" in failed.message
    # The JSON carries the failed check; `parjava predict --fail-on self-check` refuses it.
    doc["self_check"] = failed.to_json()
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(doc))
    loaded = pj.Model.load(path)
    assert loaded.self_check is not None and loaded.self_check["passed"] is False
    machine = pj.Machine.preset("shared-memory")
    predicted = pj.interpret(loaded, machine, np=1)
    assert predicted.self_check["passed"] is False
    # Every prediction from it says so first among its warnings.
    assert predicted.warnings[0].startswith("the model failed its self-check at np=1")
    cli = [sys.executable, "-m", "parjava", "predict", str(path), "--machine", "shared-memory"]
    refused = subprocess.run([*cli, "--fail-on", "self-check"], capture_output=True, text=True)
    assert refused.returncode == 1, refused.stderr
    assert "model self-check FAILED" in refused.stderr
    assert "failed its self-check" in refused.stderr
    shown = subprocess.run(cli, capture_output=True, text=True)
    assert shown.returncode == 0 and "model self-check FAILED" in shown.stderr


# irregular.c's tolerance: its fill loops (a goto out of the second keeps it a loop) probe
# bodies of about a nanosecond, whose first touches of 3 MB the model misses in part (0.5-1 ms;
# at depth 20, -10 to -15 % of a 9-ms run on this VM in one hour, -5 % of 25 ms), and 75 % of
# its run is one recursive call of 2^25 activations, measured once per run. At depth 24 the
# project's CI machine read -12 % twice on good timings (the estimation code 1.01x the program,
# here 1.05-1.25x), with the reduced loops named as the gap: the self-check fired as it must. On
# this example a failed check is accepted within 15 % when it names the fragments.
@pytest.mark.parametrize(
    ("source", "flags", "args", "accepted"),
    [
        ("pipeline1d.c", ["-O2", "-lm"], ["20000", "24", "6"], 0.0),
        ("fft_transpose.c", ["-O2", "-lm"], ["512", "2"], 0.0),
        ("irregular.c", ["-O2", "-lm"], ["24", "200000"], 0.15),
        ("master_worker.c", ["-O2"], ["32", "120000"], 0.0),
        ("heat_classes.cpp", ["-O2", "-std=c++17", "-DOMPI_SKIP_MPICXX=1"], ["1024", "25"], 0.0),
    ],
)
def test_the_self_check_stays_quiet_on_the_examples(
    source: str, flags: list[str], args: list[str], accepted: float, tmp_path: Path
) -> None:
    model = pj.build_model(EXAMPLES / source, flags)
    # The fastest of three runs on both sides: these programs run 7-45 ms, and one launch of
    # the same binary differs from the next by up to 8 % (master_worker.c, 6.8 ms and 7.4 ms).
    # One more measurement of both sides when the first fails on good timings:
    # fft_transpose.c's launches differ by up to 15 % in phases that outlast three runs (a CI
    # run: -10.3 % with every run within 10 %).
    est = estimate_checked(
        model, tmp_path / "est", run=["./x", *args], np=1, repeat=3, combine="min"
    )
    check = est.self_check
    assert check is not None
    # Quiet on a quiet machine; on a loaded one (runs slowed, or differing by over 10 %, the
    # estimation code's or the unmodified program's) the trust line says so.
    if not check.passed and est.verdict == "good" and abs(check.error) <= accepted:
        assert "largest unexplained: node" in check.message, check.message
        return
    runs = [(r.program_seconds, r.probe_seconds) for r in est.records]
    assert check.passed or est.verdict != "good", (check.message, est.trust, runs)
    if check.passed:
        # Within 10 %, or within the unmodified program's own spread (then the trust line is
        # fair and the message says so).
        assert check.coverage >= 1.0 - check.tolerance, check.message
        if abs(check.error) > 0.1:
            assert est.verdict != "good" and "run-to-run spread" in check.message, check.message


def test_a_run_slowed_by_neighbours_is_flagged(tmp_path: Path) -> None:
    model = pj.build_model(EXAMPLES / "jacobi2d.c", ["-O2"])
    cpus = os.cpu_count() or 1
    # As many busy processes as CPUs, plus one: every core is shared with a neighbour.
    burn = "import time\nend = time.monotonic() + 60\nwhile time.monotonic() < end: pass"
    neighbours = [subprocess.Popen([sys.executable, "-c", burn]) for _ in range(cpus + 1)]
    try:
        time.sleep(0.5)
        lines: list[str] = []
        est = model.estimate(run=["./jacobi2d", "1024", "60"], np=1, repeat=2, log=lines.append)
    finally:
        for p in neighbours:
            p.kill()
            p.wait()
    assert est.verdict == "doubtful"
    assert est.trust.startswith("timings: doubtful")
    assert all(r.disturbed for r in est.records)
    assert any("% of a CPU" in reason for r in est.records for reason in r.reasons)
    # One line per run: what ran and how long it took; then the unmodified program's runs (as
    # many as the estimation's, three under a second), slowed as much, so the self-check does
    # not compare with them.
    assert len(lines) == 3 and lines[0].startswith("estimation run 1: "), lines
    assert "estimation-code 1024 60 took" in lines[0] and "(program " in lines[0]
    assert lines[2].startswith("unmodified program: ") and "program 1024 60: " in lines[2]
    shortest = min(float(r.program_seconds or 0.0) for r in est.records)
    assert est.reference is not None
    assert len(est.reference.spans) == (3 if shortest < 1.0 else 2), (shortest, est.reference)
    assert est.reference.disturbed and est.self_check is not None
    assert est.self_check.baseline == "estimation"
    assert any("unmodified program's runs were slowed" in d.message for d in est.diagnostics)
    # The self-check may pass on the slowed timings (the model follows its own run): every
    # prediction from the model still says where its block times come from.
    assert model.self_check is not None
    assert model.self_check["timings"]["verdict"] == "doubtful"
    prediction = pj.interpret(
        model, pj.Machine.preset("shared-memory"), np=2, params=model.arguments(["./j", "1024"])
    )
    assert any("slowed by neighbours" in w for w in prediction.warnings), prediction.warnings


def test_repeat_auto_stops_when_the_block_medians_settle() -> None:
    model = pj.build_model(EXAMPLES / "pipeline1d.c", ["-O2", "-lm"])
    est = model.estimate(run=["./p", "4000", "24", "6"], np=1, repeat="auto", max_repeat=6)
    assert 3 <= est.runs <= 6
    assert len(est.records) == est.runs
    with pytest.raises(pj.UsageError, match="repeat"):
        model.estimate(run=["./p"], repeat="often")


def test_stability_and_noise_rules_on_recorded_summaries() -> None:
    def summary(node_seconds: float, cpu: float = 1.0, busy: float = 1.0) -> dict:
        return {
            "cpus": 2,
            "runs": [
                [
                    {
                        "rank": 0,
                        "size": 1,
                        "probe_seconds": 0.0,
                        "program_seconds": 1.0,
                        "cpu_seconds": cpu,
                        "load_begin": 1.0,
                        "load_end": 1.0,
                        "steal_seconds": 0.0,
                        "busy_seconds": busy,
                    }
                ]
            ],
            "nodes": [{"node": 5, "kind": "block", "seconds": node_seconds, "executions": 10}],
        }

    # Medians 1.0, 1.0, 1.0: stable; one outlier does not move the median past 3 %.
    assert report.stable([summary(1.0), summary(1.0), summary(1.0)])
    assert report.stable([summary(1.0), summary(1.02), summary(1.5)])
    assert not report.stable([summary(1.0), summary(1.2), summary(1.4)])
    assert not report.stable([summary(1.0), summary(1.0)])  # fewer than three runs
    quiet = report.run_record(1, ["x"], 1.2, summary(1.0), np=1)
    assert not quiet.disturbed
    # The rank had 60 % of a CPU and others used 70 % of the machine.
    busy = report.run_record(2, ["x"], 1.2, summary(1.0, cpu=0.6, busy=2.0), np=1)
    assert busy.disturbed and len(busy.reasons) == 2
    verdict, line = report.trust_line([quiet, busy])
    assert verdict == "doubtful" and "1 of 2" in line
    # Quiet estimation runs, but the unmodified program's own runs differ by 34 %: the
    # self-check's reference is that uncertain.
    assert report.trust_line([quiet])[0] == "good"
    assert report.trust_line([quiet], [0.062, 0.064])[0] == "good"
    verdict, line = report.trust_line([quiet], [0.0658, 0.0688, 0.0882])
    assert verdict == "fair" and "unmodified program's 3 runs differ by 34%" in line, line
    # A rank that sleeps used 5 % of a CPU without waiting for one (schedstat: run 0.05 s,
    # run-queue wait 1 ms): not slowed by neighbours. Starved, it waited instead.
    asleep = summary(1.0, cpu=0.05, busy=0.05)
    asleep["runs"][0][0].update(run_seconds=0.05, wait_seconds=0.001)
    assert not report.run_record(3, ["x"], 1.2, asleep, np=1).disturbed
    starved = summary(1.0, cpu=0.4, busy=0.4)
    starved["runs"][0][0].update(run_seconds=0.4, wait_seconds=0.6)
    reasons = report.run_record(4, ["x"], 1.2, starved, np=1).reasons
    assert reasons == ("a rank had 40% of a CPU while it was runnable",), reasons


SPLIT = r"""
#include <mpi.h>
#include <stdlib.h>

/* the bounds of this rank's share, written through a pointer into an array too large for the
   model to keep: the loop below has a trip count the model cannot compute */
static void decompose(int n, int *bounds) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bounds[0] = rank * n / size;
  bounds[1] = (rank + 1) * n / size;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 2000000;
  int bounds[128];
  decompose(n, bounds);
  double s = 0.0, all = 0.0;
  for (int i = bounds[0]; i < bounds[1]; i++) {
    s += 1.0 / (1.0 + (double)i * i);
  }
  MPI_Allreduce(&s, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return all > 0.0 ? 0 : 1;
}
"""


def test_work_timed_at_one_np_is_named_when_predicted_at_another(tmp_path: Path) -> None:
    src = tmp_path / "split.c"
    src.write_text(SPLIT)
    model = pj.build_model(src, ["-O2"])
    model.estimate(run=["./split", "4000000"], np=1)
    machine = pj.Machine.preset("shared-memory")
    # At the estimation's np the measured time is the run's: nothing to say.
    same = pj.interpret(model, machine, np=1)
    assert not [w for w in same.warnings if "timed as constants" in w]
    # At np 2 the loop's share is divided in reality but not in the model: said, with the line.
    other = pj.interpret(model, machine, np=2)
    said = [w for w in other.warnings if "timed as constants at np=1" in w]
    line = SPLIT.splitlines().index("  for (int i = bounds[0]; i < bounds[1]; i++) {") + 1
    assert said and f"split.c:{line}" in said[0], other.warnings
    assert "estimate at np=2" in said[0]


STEPPED = SPLIT.replace(
    """  for (int i = bounds[0]; i < bounds[1]; i++) {
    s += 1.0 / (1.0 + (double)i * i);
  }
  MPI_Allreduce(&s, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);""",
    """  for (int i = bounds[0]; i < bounds[1]; i += 20000) {
    for (int k = i; k < i + 20000; k++) {
      s += 1.0 / (1.0 + (double)k * k);
    }
    MPI_Allreduce(&s, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }""",
)


def test_loop_counts_measured_at_one_np_are_named_when_predicted_at_another(
    tmp_path: Path,
) -> None:
    """A loop the model interprets (its body communicates) with a data bound keeps the counts
    measured at the estimation's np: at another np the prediction names it (minisweep's cell
    loops, bounded by widths each rank receives, were 40 % too slow at np 2 without a word)."""
    assert STEPPED != SPLIT
    src = tmp_path / "stepped.c"
    src.write_text(STEPPED)
    model = pj.build_model(src, ["-O2"])
    model.estimate(run=["./stepped", "4000000"], np=1)
    loop = labelled(model._doc, "for i < bounds[1]")
    assert "trips" in loop.get("opaque", {}), loop
    machine = pj.Machine.preset("shared-memory")
    same = pj.interpret(model, machine, np=1)
    assert not [w for w in same.warnings if "trip counts the model could not compute" in w]
    other = pj.interpret(model, machine, np=2)
    said = [w for w in other.warnings if "counts measured at np=1" in w]
    line = STEPPED.splitlines().index("  for (int i = bounds[0]; i < bounds[1]; i += 20000) {")
    assert said and f"stepped.c:{line + 1}" in said[0], other.warnings
    assert "estimate at np=2" in said[0]
