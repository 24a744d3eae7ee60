"""``parjava estimate``: build the model, run the estimation code, load the block times."""

from __future__ import annotations

import argparse
import shlex
import sys

from .model import add_build_arguments, print_diagnostics, split_flags, write_diagnostics

EPILOG = """examples:
  parjava estimate jacobi.c --run "./jacobi 256 50" -o jacobi.json -- -O2
  parjava estimate fft.c --run "./fft 64" --np 2 --keep est/ -o fft.json -- -O3

The estimation code is an instrumented copy of the sources, compiled with mpicc/mpicxx (or
--compiler) and the given flags, run as `mpirun --oversubscribe -np N <program> <args>` in the
current directory. Block times (mean, sigma, samples), branch probabilities and trip counts go
into the model; loops without communication become blocks whose time scales with their trip
counts, so a model estimated on a small input predicts a large one (predict with
`parjava predict model.json --params argv1=4096`).

Every run is listed with its time and the machine's load; the last lines say how trustworthy
the timings are (a run slowed by neighbours is flagged) and how well the model re-predicts its
own estimation run (the self-check: against the unmodified program, built from the same
sources and run once more unless --no-reference; the model JSON records it, `parjava predict
--fail-on self-check` refuses a model that failed it).
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``estimate`` verb."""
    p = subparsers.add_parser(
        "estimate",
        help="measure block times with the estimation code and load them into the model",
        description="Build the model of C/C++ MPI sources, run the estimation code (probed "
        "copy) on a test input under mpirun, and write the model with measured times.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_build_arguments(p)
    p.add_argument(
        "--run",
        required=True,
        help='the test command line, quoted: "./program arg1 arg2" (the program is replaced '
        "by the estimation code)",
    )
    p.add_argument("--np", type=int, default=1, help="processes of the estimation run (1)")
    p.add_argument("--compiler", help="compiler for the estimation code (default mpicc/mpicxx)")
    p.add_argument("--link", action="append", default=[], help="extra link flag (repeatable)")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds before giving up")
    p.add_argument("--keep", metavar="DIR", help="keep the estimation code and results in DIR")
    p.add_argument(
        "--alpha",
        type=float,
        default=0.1,
        help="balanced-loop tolerance D <= alpha * T_mean (seed 000 §3.7.3; default 0.1)",
    )
    p.add_argument(
        "--repeat",
        type=_repeat,
        default=1,
        help="estimation runs, combined as --combine says (default 1); 'auto' repeats until "
        "the per-block medians are stable to 3%% (3 to --max-repeat runs)",
    )
    p.add_argument(
        "--max-repeat", type=int, default=10, help="most runs with --repeat auto (default 10)"
    )
    p.add_argument(
        "--combine",
        choices=("mean", "median", "min"),
        default="mean",
        help="with --repeat: pool all runs, or keep each block's median or fastest run "
        "(default mean)",
    )
    p.add_argument("--no-reduce", action="store_true", help="keep loops instead of reducing them")
    p.add_argument(
        "--no-self-check",
        action="store_true",
        help="do not re-predict the estimation run with the model afterwards",
    )
    p.add_argument(
        "--no-reference",
        action="store_true",
        help="do not build and run the unmodified program for the self-check (it then compares "
        "with the estimation runs less their probes' estimated cost)",
    )
    p.add_argument(
        "--machine",
        help="machine JSON for the self-check's prediction (default: the shared-memory preset)",
    )
    p.add_argument("-o", "--output", help="write the model JSON here (default: standard output)")
    p.add_argument("--diagnostics", help="write the diagnostics as JSON to this file")
    p.add_argument("-q", "--quiet", action="store_true", help="do not print diagnostics")
    p.set_defaults(func=run)


def _repeat(text: str) -> int | str:
    if text == "auto":
        return text
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'auto', got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def run(args: argparse.Namespace) -> int:
    """Build, estimate, write."""
    from .. import frontend

    sources, flags = split_flags(args)
    command = shlex.split(args.run)
    model = frontend.build_model(
        sources,
        flags,
        compile_commands=args.compile_commands,
        entry=args.entry,
        name=args.name,
        argv=command,
    )
    machine = None
    if args.machine:
        from ..machine import Machine

        machine = Machine.load(args.machine)
    estimation = model.estimate(
        run=command,
        np=args.np,
        compiler=args.compiler,
        link_args=args.link,
        timeout=args.timeout,
        directory=args.keep,
        reduce_loops=not args.no_reduce,
        alpha=args.alpha,
        repeat=args.repeat,
        combine=args.combine,
        max_repeat=args.max_repeat,
        self_check=not args.no_self_check,
        reference=not args.no_reference,
        machine=machine,
        log=None if args.quiet else lambda line: sys.stderr.write(line + "\n"),
    )
    if args.output:
        model.save(args.output)
        sys.stderr.write(
            f"model written to {args.output} ({len(model)} nodes, {estimation.runs} estimation "
            f"run(s) in {estimation.seconds:.1f} s)\n"
        )
    else:
        sys.stdout.write(model.to_json() + "\n")
    if not args.quiet:
        print_diagnostics(model.diagnostics)
    # The two lines a user needs to judge the result, last so they stay on the screen.
    sys.stderr.write(estimation.trust + "\n")
    check = estimation.self_check
    if check is not None:
        state = "passed" if check.passed else "FAILED"
        sys.stderr.write(
            f"self-check {state}: coverage {100 * check.coverage:.0f}% of the measured run "
            f"({check.predicted:.3g} s predicted, {check.measured:.3g} s measured"
            + (" unmodified" if check.baseline == "unmodified" else "")
            + f", {100 * check.error:+.0f}%)"
            + (
                f"; the estimation code ran {check.overhead:.2f}x the program's time"
                if check.overhead is not None
                else ""
            )
            + "\n"
        )
    if args.diagnostics:
        write_diagnostics(model.diagnostics, args.diagnostics)
    return 0
