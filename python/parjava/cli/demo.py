"""``parjava demo``: the main job on the embedded default, as a sequence of steps.

Each step is a function of a shared :class:`DemoContext`; later parts append their steps to
``STEPS`` (trace an example, scan it, predict it, ...). Today the demo measures this machine.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..machine import Machine, ping_pong_text

DEFAULT_OUTPUT_DIR = Path("parjava-demo")


@dataclass
class DemoContext:
    """What the steps share: where to write, how many ranks, and what earlier steps made."""

    output_dir: Path
    np: int
    results: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Step:
    """One demo step: a name, a one-line title and the function that runs it."""

    name: str
    title: str
    run: Callable[[DemoContext], None]


def measure_machine(context: DemoContext) -> None:
    """Measure this machine with netbench (quick) and write ``machine.json``."""
    path = context.output_dir / "machine.json"
    machine = Machine.measure(np=context.np, quick=True, output=path)
    context.results["machine"] = machine
    print(machine.summary())
    print()
    print(ping_pong_text(machine))
    print(f"\nmachine description written to {path}")


STEPS: list[Step] = [
    Step(
        "machine",
        "Measure this machine with netbench (ping-pong, eager limit, threads)",
        measure_machine,
    ),
]

EPILOG = f"""\
steps:
{chr(10).join(f"  {s.name:<10} {s.title}" for s in STEPS)}

examples:
  parjava demo                       # every step, output in ./{DEFAULT_OUTPUT_DIR}/
  parjava demo --output-dir /tmp/pj  # elsewhere
  parjava demo --step machine        # one step
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``demo`` verb."""
    parser = subparsers.add_parser(
        "demo",
        help="run the demo: measure this machine (more steps as parjava grows)",
        description="Run parjava's main job on the embedded default, step by step, writing "
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
        help="run only this step (repeatable)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the selected steps in order."""
    args.output_dir.mkdir(parents=True, exist_ok=True)
    context = DemoContext(output_dir=args.output_dir, np=args.np)
    chosen = [s for s in STEPS if not args.step or s.name in args.step]
    for number, step in enumerate(chosen, start=1):
        print(f"== step {number}/{len(chosen)}: {step.title}")
        started = time.monotonic()
        step.run(context)
        print(f"== step {step.name} done in {time.monotonic() - started:.1f} s\n")
    print(f"demo finished; results in {args.output_dir}/")
    return 0
