"""``parjava critical-path``: the path through computation and communication that sets the run time.

Böhme et al., IPDPS 2012: per activity and rank, with its imbalance.
"""

from __future__ import annotations

import argparse
import sys

from ..errors import UsageError
from ._output import add_output_options, check, emit

EPILOG = """\
examples:
  parjava critical-path run/traces.otf2
  parjava critical-path run/traces.otf2 --format csv -o path.csv      # per-activity table
  parjava critical-path run/traces.otf2 --timeline path.png           # the path on the timeline
  parjava critical-path run/traces.otf2 --chrome path.json            # for ui.perfetto.dev
  parjava critical-path run/traces.otf2 --fail-on imbalance:0.2       # exit 1 above 20 %
  mpirun -np 4 parjava critical-path big/traces.otf2 --mpi --format json -o path.json
      4 analysis ranks share the trace; rank 0 writes the same report
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``critical-path`` verb."""
    p = subparsers.add_parser(
        "critical-path",
        help="the critical path: which computation and communication set the run time",
        description="Walk back from the end of the run, jumping at each wait state to the "
        "process that caused it: the activities on that path, per rank, and how much of it is "
        "imbalance (time other processes did not need).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("trace", help="OTF2 archive (traces.otf2 or its directory)")
    p.add_argument("--top", type=int, default=10, metavar="N", help="activities listed")
    p.add_argument("--timeline", metavar="PNG", help="also save the timeline with the path")
    p.add_argument(
        "--chrome", metavar="JSON", help="also write the trace and the path as Perfetto JSON"
    )
    p.add_argument(
        "--mpi",
        action="store_true",
        help="analyse in parallel: run under mpirun -np K; each rank reads its share of the "
        "processes, rank 0 writes the report (needs mpi4py; docs/running-at-scale.md)",
    )
    add_output_options(
        p, "imbalance:RATIO (imbalance above RATIO of the path), length:SECONDS (path longer)"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Analyse, report, check."""
    from ..causes import critical_path

    if args.mpi:
        for flag, given in (("--timeline", args.timeline), ("--chrome", args.chrome)):
            if given:
                raise UsageError(
                    f"{flag} is not available with --mpi (it draws the whole "
                    "trace); run it serially"
                )
        from ..parallel import critical_path as parallel_critical_path

        gathered = parallel_critical_path(args.trace)
        if gathered is None:
            return 0  # not rank 0: rank 0 reports
        path = gathered
    else:
        path = critical_path(args.trace)
    emit("critical-path", args, path, path.report(top=args.top))
    if args.timeline:
        import matplotlib

        matplotlib.use("Agg")
        path.trace.timeline(critical_path=path).savefig(args.timeline, dpi=100)
        sys.stderr.write(f"parjava critical-path: wrote the timeline to {args.timeline}\n")
    if args.chrome:
        path.trace.to_chrome_trace(args.chrome, critical_path=path)
        sys.stderr.write(f"parjava critical-path: wrote {args.chrome} (open in ui.perfetto.dev)\n")
    return check(
        "critical-path",
        args.fail_on,
        {
            "imbalance": lambda v: (
                None
                if path.imbalance_ratio <= v
                else f"critical-path imbalance {path.imbalance_ratio:.3f} > {v:g}"
            ),
            "length": lambda v: (
                None if path.length <= v else f"critical path {path.length:.6g} s > {v:g} s"
            ),
        },
    )
