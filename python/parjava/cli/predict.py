"""``parjava predict``: predict run times.

This minimal version (from the loggp part) handles ``--goal FILE`` only: it simulates a
LogGOPSim GOAL schedule under LogGP (see :mod:`parjava.goal`). The interpreter part extends
this verb with program models; it dispatches ``--goal`` to :func:`parjava.goal.run_cli`.
"""

from __future__ import annotations

import argparse
from typing import Any

from .. import goal
from ..errors import UsageError

EPILOG = """examples:
  parjava predict --goal allreduce.goal
  parjava predict --goal allreduce.goal -L 2500 -o 1500 -g 1000 -G 6 -O 0 -S 65535
  parjava predict --goal ring.goal --order loggopsim --allow-unfinished
"""


def register(subparsers: Any) -> None:
    """Add the ``predict`` verb."""
    parser = subparsers.add_parser(
        "predict",
        help="predict run times (GOAL schedules under LogGP)",
        description="Predict run times. With --goal, simulate a LogGOPSim GOAL schedule under "
        "LogGP; host end times equal LogGOPSim's to the nanosecond.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    goal.add_cli_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the verb; returns the exit status."""
    if not args.goal:
        raise UsageError("nothing to predict: give --goal FILE")
    return goal.run_cli(args)
