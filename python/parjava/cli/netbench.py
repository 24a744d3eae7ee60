"""``parjava netbench``: measure this machine and write its description as JSON."""

from __future__ import annotations

import argparse
import sys

DEFAULT_OUTPUT = "machine.json"

EPILOG = """\
examples:
  parjava netbench                         # 2 ranks, quick, writes machine.json
  parjava netbench -np 4 -o cluster.json   # 4 ranks (oversubscribed on 2 cores is fine)
  parjava netbench --thorough              # 2 % confidence intervals, about a minute
  parjava netbench --mpirun-arg=--host --mpirun-arg=node1,node2   # across two nodes

The machine is printed as a table (networks, fits, eager limit, thread costs, then every
measured size) and written as JSON; load it with parjava.Machine.load(FILE).
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``netbench`` verb."""
    parser = subparsers.add_parser(
        "netbench",
        help="measure this machine (ping-pong, eager limit, collectives, thread costs)",
        description="Run netbench under mpirun: ping-pong one-way times over 0 B .. 4 MiB, the "
        "eager limit, LogGP overheads, Sendrecv, collectives and thread primitive costs; fit "
        "Hockney and LogGP; print the machine and write its JSON.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-np", type=int, default=2, metavar="N", help="MPI ranks (default 2)")
    parser.add_argument(
        "-o",
        "--output",
        default=DEFAULT_OUTPUT,
        metavar="FILE",
        help=f"where to write the machine JSON (default {DEFAULT_OUTPUT})",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--quick",
        dest="quick",
        action="store_true",
        default=True,
        help="few samples per point, 5%% CI target (default; a few seconds)",
    )
    mode.add_argument(
        "--thorough",
        dest="quick",
        action="store_false",
        help="at least 20 samples per point, 2%% CI target (about a minute)",
    )
    parser.add_argument("--name", help="the machine's name (default measured-<host>)")
    parser.add_argument("--max-bytes", help="largest ping-pong size, e.g. 1MiB (default 4 MiB)")
    parser.add_argument("--ci", type=float, help="target relative 95%% CI half-width (e.g. 0.05)")
    parser.add_argument(
        "--mpirun-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="an extra argument for mpirun (repeatable)",
    )
    parser.add_argument(
        "--no-table", action="store_true", help="print the summary only, not every size"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Measure, print, write."""
    from ..machine import Machine, ping_pong_text

    machine = Machine.measure(
        np=args.np,
        quick=args.quick,
        output=args.output,
        name=args.name,
        max_bytes=args.max_bytes,
        ci=args.ci,
        mpirun_args=args.mpirun_arg,
    )
    print(machine.summary())
    if not args.no_table:
        print()
        print(ping_pong_text(machine))
    print(f"\nwrote {args.output}", file=sys.stdout)
    return 0
