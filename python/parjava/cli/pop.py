"""``parjava pop``: POP efficiency metrics of one run, or of several at different np."""

from __future__ import annotations

import argparse
import sys

from ..errors import UsageError
from ._output import add_output_options, check, emit

EPILOG = """\
examples:
  parjava pop run/traces.otf2                                 # one run: PE, LB, CommE, SerE, TE
  parjava pop np2/traces.otf2 np4/traces.otf2 np8/traces.otf2 # scaling table with CompScal, GE
  parjava pop run/traces.otf2 --intervals                     # also per interval and region
  parjava pop run/traces.otf2 --fail-on parallel_efficiency:0.8
  mpirun -np 4 parjava pop big/traces.otf2 --mpi --format json -o pop.json
      4 analysis ranks share the trace (no ideal-network replay: no SerE, TE)
"""

_METRICS = (
    "global_efficiency",
    "parallel_efficiency",
    "load_balance",
    "communication_efficiency",
    "serialisation_efficiency",
    "transfer_efficiency",
    "computation_scalability",
)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``pop`` verb."""
    p = subparsers.add_parser(
        "pop",
        help="POP efficiency metrics (load balance, communication, transfer, scalability)",
        description="The POP Centre of Excellence's metrics from traces: load balance, "
        "communication efficiency = serialisation x transfer (an ideal-network replay), "
        "parallel efficiency; with several runs computation scalability and global efficiency.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("traces", nargs="+", help="OTF2 archive(s); several runs: a scaling table")
    p.add_argument("--machine", help="machine JSON or preset whose eager limit the replay keeps")
    p.add_argument(
        "--window",
        choices=("main", "all"),
        default="main",
        help="MPI_Init..MPI_Finalize (main, default) or the whole trace",
    )
    p.add_argument("--scaling", choices=("strong", "weak"), default="strong")
    p.add_argument(
        "--no-transfer",
        dest="transfer",
        action="store_false",
        help="skip the ideal-network replay (no transfer/serialisation efficiency)",
    )
    p.add_argument(
        "--intervals",
        action="store_true",
        help="one run: also the metrics per interval and per user region",
    )
    p.add_argument(
        "--mpi",
        action="store_true",
        help="analyse in parallel: run under mpirun -np K; each rank reads its share of the "
        "processes, rank 0 writes the report; transfer and serialisation efficiency (a serial "
        "replay) are not computed (needs mpi4py; docs/running-at-scale.md)",
    )
    add_output_options(
        p, "METRIC:MIN, exit 1 when a run's metric is below MIN (e.g. parallel_efficiency:0.8)"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Compute, report, check."""
    from ..pop import pop

    traces = args.traces if len(args.traces) > 1 else args.traces[0]
    tables = args.intervals and args.format == "text" and len(args.traces) == 1
    if args.mpi:
        if args.machine:
            raise UsageError(
                "--machine sets the ideal-network replay, which does not run with --mpi; "
                "leave it out (or run serially for transfer and serialisation efficiency)"
            )
        from .._parallel_explain import TRANSFER_NOTE
        from ..parallel import pop as parallel_pop

        gathered = parallel_pop(
            traces, window=args.window, tables=tables, transfer=args.transfer, scaling=args.scaling
        )
        if gathered is None:
            return 0  # not rank 0: rank 0 reports
        result = gathered
        if args.transfer:
            sys.stderr.write(f"parjava pop: note: {TRANSFER_NOTE}\n")
    else:
        result = pop(
            traces,
            machine=args.machine,
            window=args.window,
            transfer=args.transfer,
            scaling=args.scaling,
        )
    text = result.report()
    if tables:
        for title, frame in (
            ("per interval", result.intervals()),
            ("per region", result.regions()),
        ):
            if len(frame):
                text += f"\n\n{title}:\n" + frame.to_string(index=False, float_format="%.3f")
    emit("pop", args, result, text)
    runs = result.metrics if isinstance(result.metrics, list) else [result.metrics]

    def rule(metric: str):
        def failed(minimum: float) -> str | None:
            low = [m for m in runs if m.get(metric, float("nan")) < minimum]
            return None if not low else f"{metric} {low[0][metric]:.3f} < {minimum:g}"

        return failed

    return check("pop", args.fail_on, {m: rule(m) for m in _METRICS})
