"""``parjava compare``: two runs side by side, the largest changes first."""

from __future__ import annotations

import argparse

from ._output import add_output_options, check, emit

EPILOG = """\
examples:
  parjava compare before/traces.otf2 after/traces.otf2
  parjava compare np4/traces.otf2 np8/traces.otf2 --format csv -o diff.csv
  parjava compare before/traces.otf2 after/traces.otf2 --fail-on time:5   # exit 1 if 5 % slower
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``compare`` verb."""
    p = subparsers.add_parser(
        "compare",
        help="compare two runs: time per region, call site, pattern, interval, POP metric",
        description="Two traces (real, model or replayed) side by side: run time, time per "
        "region and per activity (MPI call by call site, computation between call sites), per "
        "pattern, per interval and per POP metric, largest changes first. Different process "
        "counts compare by totals over the ranks; call trees are matched by name and line.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("a", help="first OTF2 archive")
    p.add_argument("b", help="second OTF2 archive")
    p.add_argument("--top", type=int, default=8, metavar="N", help="rows per section")
    add_output_options(
        p,
        "time:PERCENT (b slower than a by more than PERCENT %%), "
        "METRIC:MIN (a POP metric of b below MIN)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Compare, report, check."""
    from ..compare import compare

    result = compare(args.a, args.b)
    emit("compare", args, result, result.report(top=args.top))
    slower = result.b.duration / result.a.duration - 1 if result.a.duration > 0 else 0.0
    rules = {
        "time": lambda v: (
            None if slower * 100 <= v else f"b is {slower:+.1%} against a, above {v:+g} %"
        ),
    }

    def pop_rule(metric: str):
        return lambda v: (
            None
            if result._pop[1].metrics[metric] >= v
            else f"{metric} of b {result._pop[1].metrics[metric]:.3f} < {v:g}"
        )

    for metric in ("parallel_efficiency", "load_balance", "communication_efficiency"):
        rules[metric] = pop_rule(metric)
    return check("compare", args.fail_on, rules)
