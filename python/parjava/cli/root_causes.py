"""``parjava root-causes``: which computation on which rank caused the waiting.

Delay costs (Böhme et al., ICPP 2010), short- and long-term, by source line.
"""

from __future__ import annotations

import argparse

from ._output import add_output_options, check, emit

EPILOG = """\
examples:
  parjava root-causes run/traces.otf2
  parjava root-causes run/traces.otf2 --format csv -o causes.csv
  parjava root-causes run/traces.otf2 --fail-on share:0.5     # one cause makes > 50 % of waiting
  mpirun -np 4 parjava root-causes big/traces.otf2 --mpi --format json -o causes.json
      4 analysis ranks share the trace; rank 0 writes the same report
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``root-causes`` verb."""
    p = subparsers.add_parser(
        "root-causes",
        help="root causes of waiting: which computation on which rank delayed the others",
        description="Charge every wait state to what the process it waited for did more than "
        "the waiting one since they last synchronised (short-term delay costs), and waiting "
        "that spread further to its own causes (long-term).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("trace", help="OTF2 archive (traces.otf2 or its directory)")
    p.add_argument("--top", type=int, default=10, metavar="N", help="causes listed")
    p.add_argument(
        "--mpi",
        action="store_true",
        help="analyse in parallel: run under mpirun -np K; each rank reads its share of the "
        "processes, rank 0 writes the report (needs mpi4py; docs/running-at-scale.md)",
    )
    add_output_options(
        p, "cause:SECONDS (the worst cause caused more), share:RATIO (its share of all waiting)"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Analyse, report, check."""
    from ..causes import root_causes

    if args.mpi:
        from ..parallel import root_causes as parallel_root_causes

        gathered = parallel_root_causes(args.trace)
        if gathered is None:
            return 0  # not rank 0: rank 0 reports
        causes = gathered
    else:
        causes = root_causes(args.trace)
    emit("root-causes", args, causes, causes.report(top=args.top))
    table = causes.table()
    worst = float(table["total"].iloc[0]) if len(table) else 0.0
    share = float(table["share"].iloc[0]) if len(table) else 0.0
    return check(
        "root-causes",
        args.fail_on,
        {
            "cause": lambda v: (
                None if worst <= v else f"the worst cause caused {worst:.6g} s of waiting > {v:g} s"
            ),
            "share": lambda v: (
                None if share <= v else f"the worst cause made {share:.1%} of all waiting > {v:.1%}"
            ),
        },
    )
