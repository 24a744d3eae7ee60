"""Accuracy of the frontend pipeline (issue 7): source -> model -> estimate -> predict.

For every program in examples/model/: build the model with Clang, run the estimation code at
np = 1 on a small input, predict np = 1 and np = 2 on a larger input with the interpreter and a
machine description (measured by netbench, or a preset / JSON file), run the real program at
the same sizes, and print predicted vs measured times with the relative error. The bar is a
mean absolute error under 10 % (ParJava reports 10 % and 3-7 %), the aim under 5 %.

    PYTHONPATH=python PARJAVA_BUILD_DIR=build/dev/package python3 benchmarks/frontend_accuracy.py
    ... --machine machine.json   (skip netbench)  --repeat 5  --only jacobi2d
    ... --same-input   (estimate on the prediction input: the model's error without scaling)
    ... --grids        (estimate on smaller arrays too: adds the memory hierarchy's error)

Measured times are the programs' own "time <seconds>" lines (between the barrier after the
setup and the barrier before the output; the mean over --repeat runs); predicted times are
read from the model trace between the same two barriers on rank 0. The estimation code runs
--estimate-repeat times and pools their samples (``SourceModel.estimate(repeat=, combine=)``), so
both sides are means (--keep median / min for the other statistics): this VM has phases in
which the same code runs 1.4x slower, lasting 50-500 ms, so a short estimation run sits in one
of them and a long real run averages them. A single estimation run against the fastest of five
real runs (this benchmark before) measured the machine's mood rather than the model.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import parjava as pj

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "model"


@dataclass
class Case:
    """One example: its source, flags, the estimation input and the prediction input."""

    name: str
    source: str
    flags: list[str]
    small: list[str]  # command-line arguments of the estimation run
    large: list[str]  # command-line arguments of the predicted and measured runs
    grids: list[str]  # a smaller estimation input that also shrinks the arrays (--grids)
    np_estimate: int = 1


# Inputs: the predicted runs take 0.07-0.8 s at np 1 (shorter ones measured this VM's noise
# more than the model). By default each small input keeps the large one's arrays and shrinks
# the steps, repetitions, blocks, tasks or points ten-fold, keeping at least two of the main
# loop's iterations (a single one weighs the cold start, first-touch page faults, ten times
# in the prediction): block times measured with the data in one level of the
# memory hierarchy do not extrapolate to another (--grids estimates on smaller grids and shows
# that error: jacobi 512^2 -> 1024^2 leaves 4 MB for 16 MB). irregular keeps its recursion
# depth: a recursive function is measured in place, at the estimation input (its diagnostic
# says so), so only its data-dependent part scales.
CASES = [
    Case("jacobi2d", "jacobi2d.c", ["-O2"], ["1024", "30"], ["1024", "300"], ["512", "100"]),
    Case(
        "pipeline1d",
        "pipeline1d.c",
        ["-O2", "-lm"],
        ["20000", "24", "6"],
        ["20000", "240", "6"],
        ["4000", "48", "4"],
    ),
    Case(
        "master_worker",
        "master_worker.c",
        ["-O2"],
        ["32", "120000"],
        ["320", "120000"],
        ["80", "40000"],
    ),
    Case(
        "fft_transpose",
        "fft_transpose.c",
        ["-O2", "-lm"],
        ["512", "2"],
        ["512", "20"],
        ["256", "8"],
    ),
    Case(
        "heat_classes",
        "heat_classes.cpp",
        ["-O2", "-std=c++17", "-DOMPI_SKIP_MPICXX=1"],
        ["1024", "25"],
        ["1024", "250"],
        ["512", "60"],
    ),
    Case(
        "irregular",
        "irregular.c",
        ["-O2", "-lm"],
        ["20", "200000"],
        ["20", "2000000"],
        ["20", "400000"],
    ),
]


def mpirun(np: int) -> list[str]:
    """Return the mpirun prefix for np processes (root and oversubscription allowed)."""
    return [shutil.which("mpirun") or "mpirun", "--oversubscribe", "-np", str(np)]


def compile_example(case: Case, workdir: Path) -> Path:
    """Compile the original program with the case's flags."""
    src = EXAMPLES / case.source
    compiler = "mpicxx" if src.suffix == ".cpp" else "mpicc"
    exe = workdir / case.name
    # Libraries after the source: the linker resolves symbols left to right (-lm).
    libraries = [f for f in case.flags if f.startswith("-l")]
    options = [f for f in case.flags if not f.startswith("-l")]
    subprocess.run([compiler, *options, str(src), "-o", str(exe), *libraries], check=True)
    return exe


def measure(exe: Path, args: list[str], np: int, repeat: int, keep: str) -> float:
    """Run the real program; the mean, median or minimum of its times over `repeat` runs."""
    times: list[float] = []
    for _ in range(repeat):
        out = subprocess.run(
            [*mpirun(np), str(exe), *args], capture_output=True, text=True, check=True
        ).stdout
        match = re.search(r"^time ([0-9.eE+-]+)$", out, re.M)
        if match is None:
            raise RuntimeError(f"{exe.name} printed no time line:\n{out}")
        times.append(float(match.group(1)))
    if keep == "min":
        return min(times)
    return statistics.median(times) if keep == "median" else statistics.fmean(times)


def machine_for(args: argparse.Namespace) -> object:
    """The machine description: a JSON file, a preset, or measured now by netbench."""
    if args.machine:
        return pj.Machine.load(args.machine)
    if args.preset:
        return pj.Machine.preset(args.preset)
    return pj.Machine.measure(np=2)


def main() -> int:
    """Print the accuracy table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--machine", help="machine JSON (default: measure with netbench)")
    parser.add_argument("--preset", help="use a machine preset instead of netbench")
    parser.add_argument("--repeat", type=int, default=9, help="real runs per point")
    parser.add_argument(
        "--estimate-repeat", type=int, default=9, help="estimation runs (pooled by --keep)"
    )
    parser.add_argument(
        "--keep",
        choices=("mean", "median", "min"),
        default="mean",
        help="statistic of both the real runs and the estimation runs (default mean)",
    )
    parser.add_argument(
        "--grids", action="store_true", help="estimate on smaller arrays, not only fewer steps"
    )
    parser.add_argument(
        "--same-input",
        action="store_true",
        help="estimate on the prediction input (isolates the model from the scaling)",
    )
    parser.add_argument("--only", action="append", help="run only these examples")
    args = parser.parse_args()
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    machine = machine_for(args)
    rows = []
    work = Path(tempfile.mkdtemp(prefix="parjava-accuracy-"))
    try:
        for case in CASES:
            if args.only and case.name not in args.only:
                continue
            src = EXAMPLES / case.source
            t0 = time.monotonic()
            model = pj.build_model(src, case.flags)
            estimate_input = case.small
            if args.same_input:
                estimate_input = case.large
            elif args.grids:
                estimate_input = case.grids
            model.estimate(
                run=[f"./{case.name}", *estimate_input],
                np=case.np_estimate,
                repeat=args.estimate_repeat,
                combine=args.keep,
            )
            params = model.arguments([f"./{case.name}", *case.large])
            prediction = pj.interpret(model, machine, np=[1, 2], params=params, trace=True)
            build_seconds = time.monotonic() - t0
            exe = compile_example(case, work)
            for np in (1, 2):
                real = measure(exe, case.large, np, args.repeat, args.keep)
                predicted = prediction.region_time(np)
                rows.append((case.name, np, real, predicted, build_seconds))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{'program':16} {'np':>3} {'measured s':>11} {'predicted s':>12} {'error':>8}")
    errors = []
    for name, np, real, predicted, _ in rows:
        err = (predicted - real) / real
        errors.append(abs(err))
        print(f"{name:16} {np:3d} {real:11.5f} {predicted:12.5f} {100 * err:+7.1f}%")
    if errors:
        mean = 100 * statistics.fmean(errors)
        print(
            f"\nmean absolute error {mean:.1f}% over {len(errors)} points "
            f"(bar 10%, aim 5%); max {100 * max(errors):.1f}%"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
