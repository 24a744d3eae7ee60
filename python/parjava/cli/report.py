"""``parjava report``: one self-contained HTML page (machine, prediction, findings, ...)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .._scan_defaults import DEFAULT_EPS, DEFAULT_SEND_RECV_DELTA
from ..errors import UsageError

DEFAULT_OUTPUT = "parjava-report.html"

EPILOG = f"""\
examples:
  parjava report run/traces.otf2
      trace, findings with source lines, interval tree and timeline -> {DEFAULT_OUTPUT};
      the Why section (POP metrics, critical path, root causes) when the run waited
      (--no-explain leaves it out)
  parjava report run/traces.otf2 --machine machine.json -o run.html
      the same with the machine description (also used for O_D and the eager limit)
  parjava report run/traces.otf2 --patterns scalasca --eps 1e-4 --depth 1
      only Scalasca's wait states above 100 us; intervals down to level 1
  parjava report --model jacobi.json --machine infiniband-edr --np 1,4,16,64,256,1024
      the prediction: table, speedup and efficiency with the Amdahl fit and its limit,
      hot fragments with their source lines (and the machine)
  parjava report run/traces.otf2 --model jacobi.json --machine cluster.json --np 1,2,4,8
      measured run and prediction in one page
  parjava report --machine machine.json -o machine.html
      only the machine
  parjava report run/traces.otf2 --json
      print what was written (sections and their one-line summaries) as JSON

The page needs no network and no file beside it: styles are inline, figures are inline PNG.
Sections appear for whatever inputs are given.
"""


def register(subparsers: Any) -> None:
    """Add the ``report`` verb."""
    parser = subparsers.add_parser(
        "report",
        help="write one self-contained HTML report (machine, prediction, findings, intervals, "
        "timeline)",
        description="Combine what parjava knows about a run into one HTML file that opens "
        "anywhere without network: the machine, the trace, the pattern findings with the "
        "source lines of each call site, the interval tree and the timeline.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("trace", nargs="?", help="OTF2 archive (traces.otf2 or its directory)")
    parser.add_argument(
        "--correct-clocks",
        action="store_true",
        help="remove clock-condition violations (a receive before its send, ...) with the "
        "controlled logical clock before analysing",
    )
    parser.add_argument(
        "--machine",
        metavar="M",
        help="machine JSON (parjava netbench) or a preset name (parjava.Machine.preset)",
    )
    parser.add_argument(
        "-o",
        "--output",
        default=DEFAULT_OUTPUT,
        metavar="FILE",
        help=f"where to write the page (default {DEFAULT_OUTPUT})",
    )
    parser.add_argument("--title", help="the page's title (default: from the trace's directory)")
    parser.add_argument("--json", action="store_true", help="print the report's contents as JSON")
    pred = parser.add_argument_group("prediction (as parjava predict; needs --machine)")
    pred.add_argument("--model", metavar="FILE", help="program model JSON to predict")
    pred.add_argument(
        "--np",
        default="1,2,4,8,16,32,64",
        metavar="LIST",
        help="process counts, comma-separated (default 1,2,4,8,16,32,64)",
    )
    pred.add_argument(
        "--params",
        action="append",
        default=[],
        metavar="NAME=VALUE[,...]",
        help="override model parameters, e.g. N=4096,niter=100 (repeatable)",
    )
    pred.add_argument(
        "--fit",
        default="auto",
        choices=("auto", "amdahl", "amdahl_log", "amdahl_linear", "gustafson"),
        help="scaling law fitted to the predicted times (default auto: lowest LOO SMAPE)",
    )
    scan = parser.add_argument_group("findings (as parjava scan)")
    scan.add_argument(
        "--eps",
        type=float,
        default=DEFAULT_EPS,
        metavar="SECONDS",
        help=f"smallest lost time reported (default {DEFAULT_EPS:g} s)",
    )
    scan.add_argument(
        "--send-recv-delta",
        type=float,
        default=DEFAULT_SEND_RECV_DELTA,
        metavar="SECONDS",
        help=f"close send/receive threshold (default {DEFAULT_SEND_RECV_DELTA:g} s)",
    )
    scan.add_argument(
        "--eager-limit", metavar="BYTES|PRESET", help="eager limit (default: the machine's)"
    )
    scan.add_argument("--patterns", metavar="LIST", help="keys, codes or families (default all)")
    scan.add_argument(
        "--top", type=int, default=10, metavar="N", help="call sites and occurrences listed (10)"
    )
    scan.add_argument(
        "--source-dir",
        action="append",
        default=[],
        metavar="DIR",
        help="where to look for the sources shown at call sites (repeatable)",
    )
    scan.add_argument("--no-findings", action="store_true", help="leave the findings out")
    why = parser.add_mutually_exclusive_group()
    why.add_argument(
        "--explain",
        action="store_true",
        default=None,
        help="always add the Why section (POP metrics, critical path, root causes of waiting); "
        "by default it is added when the trace has wait states",
    )
    why.add_argument(
        "--no-explain",
        dest="explain",
        action="store_false",
        help="leave the Why section out",
    )
    iv = parser.add_argument_group("intervals and timeline")
    iv.add_argument("--depth", type=int, metavar="N", help="interval levels shown (default all)")
    iv.add_argument("--no-intervals", action="store_true", help="leave the interval tree out")
    iv.add_argument("--no-timeline", action="store_true", help="leave the timeline out")
    iv.add_argument(
        "--timeline-interval", metavar="PATH", help="zoom the timeline to this interval's path"
    )
    parser.set_defaults(func=run, explain=None)


def run(args: argparse.Namespace) -> int:
    """Build the report and write it."""
    from ..reporting import report

    if not args.trace and not args.machine and not args.model:
        raise UsageError(
            "give a trace (an OTF2 archive), --model FILE --machine M and/or --machine M "
            "to report on"
        )
    if args.model and not args.machine:
        raise UsageError("--model needs --machine (a machine JSON file or a preset name)")
    if args.top < 1:
        raise UsageError(f"--top must be >= 1, got {args.top}")
    if args.depth is not None and args.depth < 0:
        raise UsageError(f"--depth must be >= 0, got {args.depth}")
    if args.trace is None and (args.timeline_interval or args.patterns):
        raise UsageError("--patterns and --timeline-interval need a trace")
    # The same machine, process-count and parameter syntax as `parjava predict`.
    from .predict import _ints, _machine, _params

    machine = _machine(args.machine) if args.machine else None
    prediction = None
    if args.model:
        from ..prediction import interpret

        prediction = interpret(
            args.model, machine, np=sorted(set(_ints(args.np, "--np"))), params=_params(args.params)
        )
    eager: int | str | None = args.eager_limit
    if isinstance(eager, str) and eager.isdigit():
        eager = int(eager)
    scan_options: dict[str, Any] = {
        "eps": args.eps,
        "send_recv_delta": args.send_recv_delta,
        "eager_limit": eager,
        "patterns": args.patterns,
        "machine": machine,
    }
    import matplotlib

    matplotlib.use("Agg")  # figures go into the page, never to a window
    trace = None
    tree: Any = None if not args.no_intervals else False
    timeline: Any = None if not args.no_timeline else False
    if args.trace:
        from ..trace import Trace

        trace = Trace.open(args.trace, correct_clocks=args.correct_clocks)
        if args.timeline_interval and not args.no_timeline:
            if tree is None:
                tree = trace.intervals()
            timeline = trace.timeline(
                intervals=tree if tree is not False else True, interval=args.timeline_interval
            )
    result = report(
        args.output,
        trace=trace,
        findings=False if args.no_findings else None,
        intervals=tree,
        timeline=timeline,
        machine=machine,
        prediction=prediction,
        fit=args.fit,
        title=args.title,
        source_dirs=args.source_dir,
        top=args.top,
        depth=args.depth,
        scan_options=scan_options,
        explain=args.explain,
    )
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
    else:
        for section in result.sections:
            print(f"  {section.title:<10} {section.summary}")
        sys.stderr.write(
            f"parjava report: wrote {len(result.sections)} sections to {args.output}\n"
        )
    return 0
