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
        type=int,
        default=1,
        help="estimation runs, combined as --combine says (default 1)",
    )
    p.add_argument(
        "--combine",
        choices=("mean", "median", "min"),
        default="mean",
        help="with --repeat: pool all runs, or keep each block's median or fastest run "
        "(default mean)",
    )
    p.add_argument("--no-reduce", action="store_true", help="keep loops instead of reducing them")
    p.add_argument("-o", "--output", help="write the model JSON here (default: standard output)")
    p.add_argument("--diagnostics", help="write the diagnostics as JSON to this file")
    p.add_argument("-q", "--quiet", action="store_true", help="do not print diagnostics")
    p.set_defaults(func=run)


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
    if args.diagnostics:
        write_diagnostics(model.diagnostics, args.diagnostics)
    return 0
