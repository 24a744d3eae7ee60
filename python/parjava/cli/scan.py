"""``parjava scan``: find the communication patterns that lose time in a trace."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._scan_defaults import DEFAULT_EPS, DEFAULT_SEND_RECV_DELTA
from ..errors import UsageError
from . import EXIT_FAILED_CHECK, EXIT_OK

if TYPE_CHECKING:
    from .._scan_summary import PatternTotals
    from ..scan import Findings

EPILOG = """\
examples:
  parjava scan run/traces.otf2                          # every pattern, text report
  parjava scan run/traces.otf2 --patterns scalasca      # only Scalasca's wait states
  parjava scan run/traces.otf2 --patterns B1,B2,N1,N2 --eager-limit 65536
  parjava scan run/traces.otf2 --eps 1e-4 --format html -o scan.html
  parjava scan run/traces.otf2 --machine cluster.json   # T_send for O_D from a machine
  parjava scan run/traces.otf2 --fail-on late_sender:0.5 --fail-on pgas:1
                                                        # exit 1 above 0.5 s / 1 s
  parjava scan --list                                   # the patterns and their codes
  mpirun -np 4 parjava scan run/traces.otf2 --mpi --format csv -o scan.csv
                                                        # 4 analysis ranks share the trace

Patterns: keys (late_sender), codes (B1..B10, N1..N8, SR, mpi_latesender, P1..P12) or
families (parjava, scalasca, pgas). Families overlap: ParJava's late send and Scalasca's Late
Sender measure the same waiting. Thresholds and defaults: docs/guide/scanner.md.
"""


@dataclass(frozen=True)
class FailOn:
    """A --fail-on check: total lost seconds of `pattern` must not exceed `seconds`."""

    pattern: str
    seconds: float


def _fail_on(text: str) -> FailOn:
    pattern, sep, seconds = text.rpartition(":")
    if not sep or not pattern:
        raise argparse.ArgumentTypeError(
            f"expected PATTERN:SECONDS (e.g. late_sender:0.5), got {text!r}"
        )
    try:
        value = float(seconds)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{seconds!r} is not a number of seconds") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"the threshold must be >= 0 seconds, got {value}")
    return FailOn(pattern, value)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``scan`` verb."""
    parser = subparsers.add_parser(
        "scan",
        help="find the communication patterns that lose time (ParJava, Scalasca, PGAS)",
        description="Scan an OTF2 trace (parjava's tracer or Score-P) for the ParJava "
        "point-to-point patterns, Scalasca's MPI wait states and the PGAS patterns; report each "
        "occurrence with its lost time, call site and the fix to try.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("trace", nargs="?", help="the OTF2 archive (…/traces.otf2)")
    parser.add_argument("--list", action="store_true", help="list the patterns and exit")
    parser.add_argument(
        "--eps",
        type=float,
        default=DEFAULT_EPS,
        metavar="SECONDS",
        help=f"smallest lost time reported (default {DEFAULT_EPS:g} s)",
    )
    parser.add_argument(
        "--send-recv-delta",
        type=float,
        default=DEFAULT_SEND_RECV_DELTA,
        metavar="SECONDS",
        help=f"largest send-end to receive-start gap of a close pair (default "
        f"{DEFAULT_SEND_RECV_DELTA:g} s)",
    )
    parser.add_argument(
        "--eager-limit",
        metavar="BYTES|PRESET",
        help="eager limit in bytes or openmpi, mpich, mvapich2 (default: the machine's, else "
        "openmpi)",
    )
    parser.add_argument(
        "--patterns", metavar="LIST", help="comma-separated keys, codes or families (default all)"
    )
    parser.add_argument("--machine", metavar="FILE", help="machine JSON (parjava netbench)")
    parser.add_argument(
        "--correct-clocks",
        action="store_true",
        help="remove clock-condition violations (a receive before its send, ...) with the "
        "controlled logical clock before analysing",
    )
    parser.add_argument(
        "--mpi",
        action="store_true",
        help="analyse in parallel: run under mpirun -np K; each rank reads its share of the "
        "processes, rank 0 writes the report (needs mpi4py; docs/running-at-scale.md)",
    )
    parser.add_argument(
        "--format",
        choices=("text", "html", "csv", "json"),
        default="text",
        help="report format (default text)",
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write the report here")
    parser.add_argument(
        "--top", type=int, default=10, metavar="N", help="call sites and occurrences listed"
    )
    parser.add_argument(
        "--source-dir",
        action="append",
        default=[],
        metavar="DIR",
        help="where to look for sources in the HTML report (repeatable)",
    )
    parser.add_argument(
        "--fail-on",
        action="append",
        type=_fail_on,
        default=[],
        metavar="PATTERN:SECONDS",
        help="exit 1 when the pattern's total lost time exceeds SECONDS (repeatable; PATTERN "
        "may be a family or 'all')",
    )
    pgas = parser.add_argument_group("PGAS switches (seed 001; defaults: the literal reading)")
    pgas.add_argument("--pgas-entry-sync", default="my", choices=("all", "my", "no"))
    pgas.add_argument("--pgas-exit-sync", default="my", choices=("all", "my", "no"))
    pgas.add_argument(
        "--pgas-completion", default="literal", choices=("literal", "from_first_exit")
    )
    pgas.add_argument("--pgas-gather-root", default="late", choices=("late", "early"))
    pgas.add_argument("--pgas-prefix-clamp", action="store_true")
    pgas.add_argument("--pgas-alone", default="root", choices=("root", "every"))
    pgas.add_argument("--pgas-allocation-root", type=int, default=0, metavar="PE")
    pgas.add_argument(
        "--pgas-mpi-collectives", action="store_true", help="apply P2-P12 to MPI collectives too"
    )
    parser.set_defaults(func=run)


def _list_patterns() -> str:
    from ..scan import patterns

    lines = []
    family = ""
    for p in patterns():
        if p.family != family:
            family = p.family
            lines.append(f"\n{p.family_title} [{p.family}]")
        lines.append(f"  {p.code:<20} {p.key:<36} {p.name}")
    return "\n".join(lines).lstrip("\n") + "\n"


def _check(findings: Findings | PatternTotals, checks: list[FailOn]) -> list[str]:
    failed = []
    for check in checks:
        pattern = None if check.pattern.lower() == "all" else check.pattern
        total = findings.total(pattern)
        if total > check.seconds:
            failed.append(
                f"{check.pattern}: {total:.6g} s lost in {findings.count(pattern)} occurrences "
                f"> {check.seconds:g} s"
            )
    return failed


def run(args: argparse.Namespace) -> int:
    """Scan, report, check."""
    if args.list:
        sys.stdout.write(_list_patterns())
        return EXIT_OK
    if not args.trace:
        raise UsageError("give the trace to scan (an OTF2 archive), or --list")
    if args.top < 1:
        raise UsageError("--top must be >= 1")
    from .._scan_summary import chosen_patterns
    from ..machine import Machine
    from ..scan import patterns, scan
    from ..trace import Trace

    machine = Machine.load(args.machine) if args.machine else None
    eager: int | str | None = args.eager_limit
    if isinstance(eager, str) and eager.isdigit():
        eager = int(eager)
    options = dict(
        eps=args.eps,
        send_recv_delta=args.send_recv_delta,
        eager_limit=eager,
        patterns=args.patterns,
        machine=machine,
        pgas_entry_sync=args.pgas_entry_sync,
        pgas_exit_sync=args.pgas_exit_sync,
        pgas_completion=args.pgas_completion,
        pgas_gather_root=args.pgas_gather_root,
        pgas_prefix_clamp=args.pgas_prefix_clamp,
        pgas_alone=args.pgas_alone,
        pgas_allocation_root=args.pgas_allocation_root,
        pgas_mpi_collectives=args.pgas_mpi_collectives,
    )
    # Validate the --fail-on patterns before writing anything (an unknown name is exit 2).
    for check in args.fail_on:
        if check.pattern.lower() != "all":
            chosen_patterns(patterns(), check.pattern)
    if args.mpi:
        if args.correct_clocks:
            raise UsageError("--correct-clocks is not available with --mpi; scan serially")
        from ..parallel import scan_write

        # Rank 0 writes the report as the ranks' rows are merged: it never holds the findings.
        totals = scan_write(
            args.trace,
            args.output or sys.stdout,
            args.format,
            top=args.top,
            source_dirs=args.source_dir,
            **options,
        )
        if totals is None:
            return EXIT_OK  # not rank 0: rank 0 reports
        findings: Findings | PatternTotals = totals
    else:
        findings = scan(Trace.open(args.trace, correct_clocks=args.correct_clocks), **options)
        if args.format == "csv":
            # Written a block of rows at a time: the CSV of millions of findings is never held.
            findings.write_csv(args.output or sys.stdout)
        elif args.format == "json":
            findings.write_json(args.output or sys.stdout)
        else:
            if args.format == "html":
                text = findings.to_html(top=args.top, source_dirs=args.source_dir)
            else:
                text = findings.report(top=args.top)
            if args.output:
                with open(args.output, "w", encoding="utf-8", newline="") as out:
                    out.write(text)
            else:
                sys.stdout.write(text)
    if args.output:
        sys.stderr.write(f"parjava scan: {len(findings)} findings written to {args.output}\n")
    failed = _check(findings, args.fail_on)
    for line in failed:
        sys.stderr.write(f"parjava scan: check failed: {line}\n")
    return EXIT_FAILED_CHECK if failed else EXIT_OK
