"""``parjava intervals``: interval efficiency analysis of a trace (seed 004 / DVM method)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

EPILOG = """\
examples:
  parjava intervals run/traces.otf2
      text report of every interval (seed-004 layout, seconds with six decimals)
  parjava intervals run/traces.otf2 --depth 1 --no-per-process
      the whole run and its first-level intervals, without the per-process tables
  parjava intervals run/traces.otf2 --format html -o intervals.html
      DVM-Predictor-style page with links between nested intervals
  parjava intervals run/traces.otf2 --format json -o intervals.json --sources markers
      machine-readable results, intervals from parjava_interval_begin/end only
  parjava intervals run/traces.otf2 --timeline timeline.png --timeline-interval step
  mpirun -np 4 parjava intervals run/traces.otf2 --mpi --format json -o intervals.json
      4 analysis ranks share the trace; rank 0 writes the same report
      also draw the timeline, zoomed to the executions of interval "step"

The open definitions of the method are options: --productive, --attribution, --sendrecv,
--execution, --load (see docs/intervals.md).
"""


def register(subparsers: Any) -> None:
    """Add the ``intervals`` verb."""
    from .._interval_options import ATTRIBUTION, EXECUTION, LOAD, PRODUCTIVE, SENDRECV, SOURCES

    p = subparsers.add_parser(
        "intervals",
        help="efficiency characteristics per interval and per process",
        description="Split a run into intervals (markers, MPI_Pcontrol phases, user regions) "
        "and report, per interval and process, where the time goes: productive and lost time, "
        "MPI and communication time, idle time, load imbalance, synchronisation.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("trace", help="OTF2 archive (traces.otf2 or its directory)")
    p.add_argument(
        "--correct-clocks",
        action="store_true",
        help="remove clock-condition violations (a receive before its send, ...) with the "
        "controlled logical clock before analysing",
    )
    p.add_argument(
        "--depth",
        type=int,
        default=None,
        metavar="N",
        help="report intervals down to level N (the whole run is level 0)",
    )
    p.add_argument("--format", choices=("text", "html", "json"), default="text")
    p.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    p.add_argument(
        "--no-per-process",
        dest="per_process",
        action="store_false",
        help="text format: leave out the table of characteristics on each process",
    )
    p.add_argument(
        "--sources",
        default=",".join(SOURCES),
        help=f"where intervals come from, comma-separated subset of {','.join(SOURCES)} "
        "(default: all)",
    )
    p.add_argument(
        "--max-depth",
        type=int,
        default=None,
        metavar="N",
        help="deepest level at which intervals are created (deeper ones fold into their parent)",
    )
    p.add_argument("--productive", choices=tuple(PRODUCTIVE), default="cpu")
    p.add_argument("--attribution", choices=tuple(ATTRIBUTION), default="late")
    p.add_argument("--sendrecv", choices=tuple(SENDRECV), default="calls")
    p.add_argument("--execution", choices=tuple(EXECUTION), default="accumulated")
    p.add_argument("--load", choices=tuple(LOAD), default="cpu")
    p.add_argument(
        "--sequential",
        action="append",
        metavar="PATTERN",
        help="interval names (glob) of sequential parts; repeatable (default: 'seq:*')",
    )
    p.add_argument(
        "--mpi",
        action="store_true",
        help="analyse in parallel: run under mpirun -np K; each rank reads its share of the "
        "processes, rank 0 writes the report (needs mpi4py; docs/running-at-scale.md)",
    )
    p.add_argument("--timeline", metavar="PNG", help="also save the timeline figure here")
    p.add_argument(
        "--timeline-interval", metavar="PATH", help="zoom the timeline to this interval's path"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Analyse the trace and write the report."""
    from ..errors import UsageError
    from ..intervals import intervals
    from ..trace import Trace

    if args.depth is not None and args.depth < 0:
        raise UsageError(f"--depth must be >= 0, got {args.depth}")
    sources = [s.strip() for s in args.sources.split(",") if s.strip()]
    options = dict(
        sources=sources,
        max_depth=args.max_depth,
        productive=args.productive,
        attribution=args.attribution,
        sendrecv=args.sendrecv,
        execution=args.execution,
        load=args.load,
        sequential=args.sequential if args.sequential is not None else ("seq:*",),
    )
    if args.mpi:
        for flag, given in (
            ("--correct-clocks", args.correct_clocks),
            ("--timeline", args.timeline),
        ):
            if given:
                raise UsageError(f"{flag} is not available with --mpi; run it serially")
        from ..parallel import intervals as parallel_intervals

        merged = parallel_intervals(args.trace, **options)
        if merged is None:
            return 0  # not rank 0: rank 0 reports
        tree = merged
    else:
        trace = Trace.open(args.trace, correct_clocks=args.correct_clocks)
        tree = intervals(trace, **options)
    if args.format == "text":
        text = tree.report(depth=args.depth, per_process=args.per_process)
    elif args.format == "html":
        text = tree.to_html(depth=args.depth)
    else:
        text = tree.to_json(depth=args.depth)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
        sys.stderr.write(
            f"parjava intervals: wrote {args.format} report of {len(tree)} "
            f"intervals to {args.output}\n"
        )
    else:
        sys.stdout.write(text)
        if not text.endswith("\n"):
            sys.stdout.write("\n")
    if args.timeline:
        import matplotlib

        matplotlib.use("Agg")
        fig = trace.timeline(intervals=tree, interval=args.timeline_interval)
        fig.savefig(args.timeline, dpi=100)
        sys.stderr.write(f"parjava intervals: wrote the timeline to {args.timeline}\n")
    for warning in tree.warnings:
        sys.stderr.write(f"parjava intervals: warning: {warning}\n")
    return 0
