"""``parjava whatif``: replay a trace on a machine, with what-ifs (network, scaling, balance)."""

from __future__ import annotations

import argparse
import sys

from ..errors import UsageError
from ._output import add_output_options, check, emit

EPILOG = """\
examples:
  parjava whatif run/traces.otf2 --machine vm.json              # replay as recorded
  parjava whatif run/traces.otf2 --machine vm.json --network ideal
  parjava whatif run/traces.otf2 --machine infiniband-edr       # another machine (preset)
  parjava whatif run/traces.otf2 --machine vm.json --scale solver=0.5 --scale "rank 3=0.8"
  parjava whatif run/traces.otf2 --machine vm.json --balance --fail-on change:-5
  parjava whatif run/traces.otf2 --machine vm.json --write-trace replayed/

--scale KEY=FACTOR: KEY is a user region (glob), FILE:LINE (the computation ending at a call
from that line), "rank N" or "*". Rules and limits of the replay: docs/replay.md.
"""


#: Why ``--mpi`` is refused (docs/running-at-scale.md, "Replays and transfer efficiency").
MPI_REFUSED = (
    "whatif --mpi: a replay cannot run in parts. It is one discrete-event simulation of every "
    "rank's MPI calls in global time order (when a message arrives decides when its receiver "
    "goes on, and that changes the times of every later call on every rank), the same reason "
    "`parjava pop --mpi` has no transfer efficiency; a rank holding only its processes' calls "
    "cannot know when its messages arrive. Run `parjava whatif` serially (on a smaller run of "
    "the program if the trace does not fit in memory); docs/running-at-scale.md"
)


def _scale(text: str) -> tuple[str, float]:
    key, sep, value = text.rpartition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=FACTOR, got {text!r}")
    try:
        return key.strip(), float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number") from None


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``whatif`` verb."""
    p = subparsers.add_parser(
        "whatif",
        help="replay a trace on a machine, with what-ifs (ideal network, faster code, balance)",
        description="Re-simulate a recorded run (any OTF2 trace with MPI events) on a machine: "
        "computation as measured (optionally scaled), every MPI call again through the "
        "interpreter's engine; print the run time beside the original, per rank and region.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("trace", help="OTF2 archive (traces.otf2 or its directory)")
    p.add_argument("--machine", required=True, help="machine JSON file or preset name")
    p.add_argument("--network", choices=("ideal",), help="replace the network: ideal")
    p.add_argument("--scale", action="append", type=_scale, default=[], metavar="KEY=FACTOR")
    p.add_argument("--balance", action="store_true", help="balance computation in every phase")
    p.add_argument("--power", action="store_true", help="scale computation by the machine's power")
    p.add_argument("--call-overhead", choices=("minimum", "none"), default="minimum")
    p.add_argument(
        "--recorded-on",
        metavar="MACHINE",
        help="the machine the trace ran on (JSON or preset), whose network time the call "
        "overheads leave out; default --machine",
    )
    p.add_argument("--write-trace", metavar="DIR", help="write the replayed trace (OTF2) here")
    p.add_argument("--chrome", metavar="JSON", help="write the replayed trace as Perfetto JSON")
    p.add_argument(
        "--mpi",
        action="store_true",
        help="refused: a replay is one simulation of the whole run, not parallel "
        "(docs/running-at-scale.md)",
    )
    add_output_options(
        p,
        "time:SECONDS (replayed run time above), change:PERCENT (replay slower than the "
        "original by more than PERCENT %%)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Replay, report, check."""
    from ..replay import replay

    if args.mpi:
        raise UsageError(MPI_REFUSED)
    scale = dict(args.scale)
    if len(scale) != len(args.scale):
        raise UsageError("--scale: a key is given twice")
    result = replay(
        args.trace,
        args.machine,
        network=args.network,
        scale=scale or None,
        balance=args.balance,
        power=args.power,
        call_overhead=args.call_overhead,
        recorded_on=args.recorded_on,
        record_trace=bool(args.write_trace or args.chrome) or args.format != "json",
    )
    emit("whatif", args, result)
    if args.write_trace:
        result.trace.write(args.write_trace)
        sys.stderr.write(f"parjava whatif: wrote the replayed trace to {args.write_trace}\n")
    if args.chrome:
        result.trace.to_chrome_trace(args.chrome)
        sys.stderr.write(f"parjava whatif: wrote {args.chrome} (open in ui.perfetto.dev)\n")
    return check(
        "whatif",
        args.fail_on,
        {
            "time": lambda v: (
                None if result.time <= v else f"replayed run time {result.time:.6g} s > {v:g} s"
            ),
            "change": lambda v: (
                None
                if result.change * 100 <= v
                else f"replay {result.change:+.1%} against the original, above {v:+g} %"
            ),
        },
    )
