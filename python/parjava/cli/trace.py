"""``parjava trace``: run an MPI or OpenSHMEM program under the tracer and write its OTF2 trace."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .. import tracing
from ..errors import UsageError

EPILOG = """examples:
  parjava trace -np 4 ./stencil2d -n 64 -i 20
  parjava trace -o run1 -- mpirun -np 4 ./app input.dat
  parjava trace --groups coll,p2p-blocking -np 8 ./app
  oshrun programs: parjava trace -- oshrun -np 4 ./shmem_app
  assemble fragments of a batch job that preloaded libparjava_tracer.so itself:
    parjava trace --assemble $PARJAVA_TRACE_DIR -o run1

groups: coll, p2p-blocking, p2p-nonblocking, wait-test, other, shmem (default: all).
The program can pause recording with MPI_Pcontrol(0) and resume with MPI_Pcontrol(1)."""


def register(subparsers: Any) -> None:
    """Add the ``trace`` verb."""
    parser = subparsers.add_parser(
        "trace",
        help="run a program under the tracer and write its OTF2 trace",
        description="Run an MPI/OpenSHMEM program with libparjava_tracer.so preloaded into "
        "every rank and assemble one OTF2 archive (OUTPUT/traces.otf2). A program that fails "
        "or is interrupted still leaves the trace it recorded.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "-np", "--np", type=int, default=4, help="ranks when COMMAND has no launcher (4)"
    )
    parser.add_argument("--groups", help="comma-separated tracer groups to record (default: all)")
    parser.add_argument(
        "-o",
        "--output",
        help="archive directory (default: a new parjava-PROGRAM-npN in the current directory)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace the archive already in the output directory (refused without this)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        metavar="SECONDS",
        help="end the run after SECONDS; the ranks write what they recorded and the command "
        f"returns at most {tracing.TIMEOUT_GRACE_S:g} s later",
    )
    parser.add_argument("--keep-fragments", action="store_true", help="keep the per-rank raw files")
    parser.add_argument(
        "--assemble", metavar="FRAGMENTS", help="only assemble fragments from an earlier run"
    )
    parser.add_argument("--json", action="store_true", help="print the assembly report as JSON")
    parser.add_argument(
        "command", nargs=argparse.REMAINDER, help="the program and its arguments (after --)"
    )
    parser.set_defaults(func=run)


def _summary(report: dict[str, Any], warnings: list[str]) -> str:
    lines = [
        f"trace: {report['archive']}",
        f"  {report['ranks']} {'PEs' if report['paradigm'] == 'shmem' else 'ranks'}, "
        f"{report['events']} events, {report['callsites']} call sites, "
        f"clock correction {report['clock_correction']}, "
        f"tracer overhead {report['overhead_ns']} ns/call",
    ]
    calls = sorted(report["calls"].items(), key=lambda kv: (-kv[1], kv[0]))
    if calls:
        shown = ", ".join(f"{name} {count}" for name, count in calls[:8])
        more = f", ... ({len(calls) - 8} more)" if len(calls) > 8 else ""
        lines.append(f"  calls: {shown}{more}")
    lines += [f"  warning: {w}" for w in warnings]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Trace the command (or assemble fragments) and print a summary."""
    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    if args.assemble:
        if command:
            raise UsageError("--assemble takes no command")
        output = args.output or "."
        report = tracing.assemble(args.assemble, output, force=args.force)
        print(json.dumps(report, indent=2) if args.json else _summary(report, report["warnings"]))
        return 0
    if not command:
        raise UsageError("no command to trace: parjava trace [options] -- mpirun -np 4 ./app")
    try:
        result = tracing.run_traced(
            command,
            np=args.np,
            groups=args.groups,
            output=args.output,
            timeout=args.timeout,
            keep_fragments=args.keep_fragments,
            echo=True,
            force=args.force,
        )
    except KeyboardInterrupt as exc:
        sys.stderr.write(f"parjava trace: {exc}\n")
        return 130
    sys.stdout.flush()
    if args.json:
        print(json.dumps(result.report, indent=2))
    else:
        print(_summary(result.report, result.warnings), file=sys.stderr)
    return 0
