"""``parjava demo``: the main job on the embedded example, as a sequence of steps.

The pipeline of ParJava (seed 000 §6; seed 003 §3) on ``examples/model/jacobi2d.c``: measure
this machine, build the program model from the source, measure its block times on a small
input, check the prediction against real runs, predict np 1…1024 on a cluster made of this
machine's nodes and an InfiniBand network, fit Amdahl's law and plot the speedup; then the
real-trace half (seed 000 §5; seed 004): trace a run with a known imbalance, scan it for
patterns that lose time and split its time into intervals. Each step is a function of a shared
:class:`DemoContext`, so ``--step`` can run one of them (a step needing an earlier one's result
runs that one first).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._paths import PACKAGE_DIR, external_program
from ..errors import MissingDependencyError, RunError

DEFAULT_OUTPUT_DIR = Path("parjava-demo")

# The test input of the estimation run, the input the real-run check uses, and the input of the
# large-scale prediction: block times measured on a small grid scale with the trip counts the
# model computes for a larger one (seed 000 §3.7).
# The estimation input keeps the grid of the checked runs and takes a tenth of the steps: block
# times measured with the data in one cache level do not extrapolate to another (docs/frontend.md).
ESTIMATE_INPUT = ("1024", "30")
ESTIMATE_REPEAT = 3  # estimation runs, pooled: one short run sits in one of a machine's phases
CHECK_INPUT = ("1024", "300")
CHECK_REPEAT = 3  # real runs per point, averaged like the estimation runs
PREDICT_INPUT = ("8192", "200")
PREDICT_NP = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
# The what-if cluster: 32 nodes of 32 ranks, this machine's measured intra-node network.
CLUSTER_NODES = 32
CLUSTER_RANKS_PER_NODE = 32


@dataclass
class DemoContext:
    """What the steps share: where to write, how many ranks, and what earlier steps made."""

    output_dir: Path
    np: int
    results: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Step:
    """One demo step: a name, a one-line title, the function, and the steps it needs."""

    name: str
    title: str
    run: Callable[[DemoContext], None]
    needs: tuple[str, ...] = ()


def example_source(name: str) -> Path:
    """Return an embedded example source: installed with the package, or in the source tree."""
    for directory in (PACKAGE_DIR / "examples", PACKAGE_DIR.parents[1] / "examples"):
        for candidate in (directory / name, directory / "model" / name):
            if candidate.is_file():
                return candidate
    raise MissingDependencyError(
        f"the demo's example {name} is neither in {PACKAGE_DIR / 'examples'} nor in the source "
        "tree's examples/: reinstall parjava (`pip install .`) or run from a clone"
    )


def _compile(source: Path, output: Path, *flags: str) -> Path:
    """Compile an example with mpicc; a failure is a RunError with the compiler's output."""
    mpicc = external_program("mpicc", "apt-get install -y libopenmpi-dev openmpi-bin")
    command = [mpicc, "-O2", "-g", *flags, str(source), "-o", str(output), "-lm"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RunError(f"compiling {source} failed: {' '.join(command)}\n{done.stderr[-2000:]}")
    return output


def _mpirun(np: int, command: list[str], timeout: float = 300.0) -> str:
    mpirun = external_program("mpirun", "apt-get install -y openmpi-bin")
    full = [mpirun, "--oversubscribe", "-np", str(np), *command]
    try:
        done = subprocess.run(full, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired as exc:
        raise RunError(f"{' '.join(full)} did not finish within {timeout:.0f} s") from exc
    if done.returncode != 0:
        raise RunError(f"{' '.join(full)} failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    return done.stdout


_CPU_SHARE = 0.85  # below this share of a CPU per rank, a run was slowed by neighbours


def _children_cpu() -> float:
    """CPU seconds used by the finished child processes (mpirun and its ranks)."""
    import resource

    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _timed_run(binary: Path, np: int) -> float:
    """Run jacobi2d for real; the seconds it reports between its barriers."""
    out = _mpirun(np, [str(binary), *CHECK_INPUT])
    found = re.search(r"^time\s+([0-9.eE+-]+)$", out, re.M)
    if found is None:
        raise RunError(f"jacobi2d printed no 'time <seconds>' line:\n{out[-1000:]}")
    return float(found.group(1))


def measure_machine(context: DemoContext) -> None:
    """Measure this machine with netbench (quick) and write ``machine.json``."""
    from ..machine import Machine, ping_pong_text

    path = context.output_dir / "machine.json"
    machine = Machine.measure(np=context.np, quick=True, output=path)
    context.results["machine"] = machine
    print(machine.summary())
    print()
    print(ping_pong_text(machine))
    print(f"\nmachine description written to {path}")


def build_model(context: DemoContext) -> None:
    """Build the program model of jacobi2d.c with Clang and write ``jacobi2d-model.json``."""
    from ..frontend import build_model as build

    source = example_source("jacobi2d.c")
    model = build(source, args=["-O2"])
    context.results["model"] = model
    print(f"model of {source}: {len(model.parameters)} parameters ({', '.join(model.parameters)})")
    for diagnostic in model.diagnostics:
        print(f"  {diagnostic}")
    path = context.output_dir / "jacobi2d-model.json"
    model.save(path)
    print(f"model written to {path}")


def estimate(context: DemoContext) -> None:
    """Run the estimation code at np 1 on the small input and load the block times."""
    model = context.results["model"]
    run = ["./jacobi2d", *ESTIMATE_INPUT]
    estimation = model.estimate(run=run, np=1, repeat=ESTIMATE_REPEAT)
    print(f"estimation run `{' '.join(run)}`: {estimation}")
    for diagnostic in estimation.diagnostics:
        print(f"  {diagnostic}")
    path = context.output_dir / "jacobi2d-model.json"
    model.save(path)
    print(f"estimated model written to {path}")


def check_against_real_runs(context: DemoContext) -> None:
    """Predict np 1 and 2 on a larger input with the measured machine; run it for real."""
    from ..prediction import interpret

    model = context.results["model"]
    machine = context.results["machine"]
    binary = _compile(example_source("jacobi2d.c"), context.output_dir / "jacobi2d")
    argv = ["./jacobi2d", *CHECK_INPUT]
    nps = [1, 2]
    predicted = interpret(model, machine, np=nps, params=model.arguments(argv), trace=True)
    print(f"input {' '.join(CHECK_INPUT)} (the model was estimated on {' '.join(ESTIMATE_INPUT)});")
    print("times between the first and the last MPI_Barrier, as the program measures itself")
    print(f"{'np':>4} {'predicted s':>12} {'measured s':>11} {'error':>7}")
    errors = []
    slowed = []
    cpus = os.cpu_count() or 1
    for np_ in nps:
        before, started = _children_cpu(), time.monotonic()
        measured = sum(_timed_run(binary, np_) for _ in range(CHECK_REPEAT)) / CHECK_REPEAT
        share = (_children_cpu() - before) / ((time.monotonic() - started) * np_)
        predicted_time = predicted.region_time(np_)
        error = (predicted_time - measured) / measured
        errors.append(abs(error))
        print(f"{np_:>4} {predicted_time:>12.4f} {measured:>11.4f} {error:>+7.1%}")
        # The ranks poll while they wait, so each uses a whole CPU when it has one: less than
        # its share of the machine means other processes took the rest.
        if share < _CPU_SHARE * min(1.0, cpus / np_):
            slowed.append(f"np {np_}: {100 * share:.0f}% of a CPU per rank")
    print(f"mean absolute error {sum(errors) / len(errors):.1%} (the bar is 10 %)")
    if slowed:
        print(
            f"the real runs were slowed by other processes ({'; '.join(slowed)}; load "
            f"{os.getloadavg()[0]:.1f} on {cpus} CPUs): the prediction is for this machine "
            "without them (the estimation's block times are corrected for the CPU it waited "
            "for), so the errors above are partly the load's; run the check on a quiet machine"
        )


def predict(context: DemoContext) -> None:
    """Predict np 1…1024 on a 32-node cluster: this machine's nodes, InfiniBand between them."""
    from ..machine import Machine
    from ..prediction import interpret

    model = context.results["model"]
    measured = context.results["machine"]
    cluster = measured.with_networks(
        inter_node=Machine.preset("infiniband-edr").inter_node
    ).with_layout(
        nodes=CLUSTER_NODES,
        cores_per_node=CLUSTER_RANKS_PER_NODE,
        ranks_per_node=CLUSTER_RANKS_PER_NODE,
    )
    argv = ["./jacobi2d", *PREDICT_INPUT]
    started = time.monotonic()
    prediction = interpret(model, cluster, np=list(PREDICT_NP), params=model.arguments(argv))
    seconds = time.monotonic() - started
    context.results["prediction"] = prediction
    print(
        f"input {' '.join(PREDICT_INPUT)} on {CLUSTER_NODES} nodes x {CLUSTER_RANKS_PER_NODE} "
        f"ranks ({len(PREDICT_NP)} process counts interpreted in {seconds:.1f} s)"
    )
    print(f"{'np':>5} {'time s':>10} {'speedup':>8} {'efficiency':>10}")
    for row in prediction.table():
        print(
            f"{int(row['np']):>5} {row['time']:>10.4f} {row['speedup']:>8.1f} "
            f"{row['efficiency']:>10.1%}"
        )
    path = context.output_dir / "prediction.csv"
    prediction.to_pandas().to_csv(path, index=False)
    print(f"table written to {path}")


def fit_amdahl(context: DemoContext) -> None:
    """Fit Amdahl's law to the predicted times and plot the speedup curve."""
    import matplotlib

    matplotlib.use("Agg")
    prediction = context.results["prediction"]
    fit = prediction.fit("amdahl")
    print(fit.summary())
    path = context.output_dir / "speedup.png"
    figure = fit.plot(kind="both")
    figure.savefig(path, dpi=120, bbox_inches="tight")
    print(f"plot written to {path}")


def trace_and_scan(context: DemoContext) -> None:
    """Trace a real run with a known imbalance, scan it, and split its time into intervals."""
    from ..scan import scan
    from ..tracing import trace

    source = example_source("scan_imbalance.c")
    binary = _compile(source, context.output_dir / "scan_imbalance", f"-I{source.parent}")
    np_ = max(4, context.np)
    # Rank 0 computes 20 ms longer before each of 10 barriers: the others wait 10 x 20 ms.
    archive = context.output_dir / "imbalance-trace"
    if archive.exists():
        import shutil

        shutil.rmtree(archive)
    run = trace([str(binary), "-p", "barrier", "-n", "10", "-d", "20"], np=np_, output=archive)
    print(f"traced {np_} ranks into {archive}: {run}")
    findings = scan(run)
    print(findings.report(top=5))
    print(run.intervals().report(depth=1, per_process=False))


STEPS: list[Step] = [
    Step(
        "machine",
        "Measure this machine with netbench (ping-pong, eager limit, threads)",
        measure_machine,
    ),
    Step(
        "model",
        "Build the program model of jacobi2d.c (Clang, control-variable reduction)",
        build_model,
    ),
    Step(
        "estimate",
        "Measure block times with the estimation code (np 1, small input)",
        estimate,
        ("model",),
    ),
    Step(
        "check",
        "Predict np 1, 2 on a larger input and compare with real runs",
        check_against_real_runs,
        ("machine", "model", "estimate"),
    ),
    Step(
        "predict",
        "Predict np 1…1024 on a 32-node cluster",
        predict,
        ("machine", "model", "estimate"),
    ),
    Step(
        "amdahl",
        "Fit Amdahl's law, write the speedup plot",
        fit_amdahl,
        ("machine", "model", "estimate", "predict"),
    ),
    Step(
        "scan",
        "Trace a real run with a known imbalance; scan it; interval analysis",
        trace_and_scan,
    ),
]

EPILOG = f"""\
steps:
{chr(10).join(f"  {s.name:<10} {s.title}" for s in STEPS)}

examples:
  parjava demo                       # every step, output in ./{DEFAULT_OUTPUT_DIR}/
  parjava demo --output-dir /tmp/pj  # elsewhere
  parjava demo --step predict        # one step (and the steps it needs)
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``demo`` verb."""
    parser = subparsers.add_parser(
        "demo",
        help="run the demo: source -> model -> prediction -> Amdahl; trace -> scan",
        description="Run parjava's main job on the embedded example, step by step, writing "
        f"every result under --output-dir (default ./{DEFAULT_OUTPUT_DIR}).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--output-dir",
        type=Path,
        default=DEFAULT_OUTPUT_DIR,
        metavar="DIR",
        help=f"where results go (default ./{DEFAULT_OUTPUT_DIR})",
    )
    parser.add_argument("-np", type=int, default=2, metavar="N", help="MPI ranks (default 2)")
    parser.add_argument(
        "--step",
        action="append",
        choices=[s.name for s in STEPS],
        help="run only this step and those it needs (repeatable)",
    )
    parser.set_defaults(func=run)


def _chosen(names: list[str] | None) -> list[Step]:
    if not names:
        return list(STEPS)
    wanted = set(names)
    for step in STEPS:
        if step.name in wanted:
            wanted.update(step.needs)
    return [s for s in STEPS if s.name in wanted]


def run(args: argparse.Namespace) -> int:
    """Run the selected steps in order."""
    args.output_dir.mkdir(parents=True, exist_ok=True)
    context = DemoContext(output_dir=args.output_dir, np=args.np)
    chosen = _chosen(args.step)
    for number, step in enumerate(chosen, start=1):
        print(f"== step {number}/{len(chosen)}: {step.title}")
        started = time.monotonic()
        step.run(context)
        print(f"== step {step.name} done in {time.monotonic() - started:.1f} s\n")
    print(f"demo finished; results in {args.output_dir}/")
    return 0
