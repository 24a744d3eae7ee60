"""The ``parjava`` command line: one module per verb under ``parjava.cli``.

Each verb module defines ``register(subparsers)`` that adds its parser and sets
``func=run`` where ``run(args) -> int`` returns the exit status. Exit codes: 0 success,
1 findings or expectations failed (``--fail-on``, ``--expect-speedup``), 2 usage or input
errors (every :class:`parjava.Error`).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from ..errors import Error, UsageError

# Verb modules in the order `parjava --help` lists them. A verb whose module is absent (a part
# not yet built into this version) is simply not offered.
VERBS = (
    "demo",
    "netbench",
    "model",
    "estimate",
    "predict",
    "sweep",
    "trace",
    "scan",
    "intervals",
    "whatif",
    "critical-path",
    "root-causes",
    "pop",
    "compare",
    "report",
)

EXIT_OK = 0
EXIT_FAILED_CHECK = 1
EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors with our exit code and without a traceback."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(EXIT_USAGE)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """Return the top-level parser with every available verb registered.

    ``only`` registers that verb alone (when it is one): a command line naming its verb needs
    no other verb's module or arguments, which keeps start-up short (issue 18).
    """
    from .. import __version__

    parser = _Parser(
        prog="parjava",
        description="Predict and explain the performance of parallel programs "
        "(MPI, threads, OpenSHMEM) without the target cluster.",
        epilog="Run `parjava VERB --help` for the options and examples of each verb.",
    )
    parser.add_argument("--version", action="version", version=f"parjava {__version__}")
    subparsers = parser.add_subparsers(dest="verb", metavar="VERB", parser_class=_Parser)
    for verb in (only,) if only in VERBS else VERBS:
        name = f"{__name__}.{verb.replace('-', '_')}"  # critical-path -> critical_path.py
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue
            raise
        module.register(subparsers)
    return parser


def _end_mpi_job(args: argparse.Namespace, status: int) -> int:
    """Under ``--mpi``, end the whole MPI job of a failed command by MPI_Abort(status).

    A rank that finalizes MPI and then exits non-zero makes Open MPI's mpirun kill the job's
    other ranks, and under load mpirun once never exited after that (Open MPI issues #3380,
    #4543 describe such hangs); MPI_Abort is its way to end a job with an error code, which
    mpirun returns. The error message is flushed before.
    """
    if status == EXIT_OK or not getattr(args, "mpi", False):
        return status
    mpi = sys.modules.get("mpi4py.MPI")
    if mpi is None or not mpi.Is_initialized() or mpi.Is_finalized():
        return status  # MPI never started (mpi4py missing, bad arguments): a plain exit
    sys.stdout.flush()
    sys.stderr.flush()
    mpi.COMM_WORLD.Abort(status)
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (also used by ``python -m parjava``)."""
    words = list(sys.argv[1:] if argv is None else argv)
    # Top-level options take no values, so the first word that is not an option is the verb.
    verb = next((w for w in words if not w.startswith("-")), None)
    parser = build_parser(verb)
    args = parser.parse_args(words)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE if args.verb is None and argv else EXIT_OK
    try:
        return int(args.func(args) or EXIT_OK)
    except UsageError as exc:
        sys.stderr.write(f"parjava {args.verb}: error: {exc}\n")
        return _end_mpi_job(args, EXIT_USAGE)
    except Error as exc:
        sys.stderr.write(f"parjava {args.verb}: {type(exc).__name__}: {exc}\n")
        return _end_mpi_job(args, EXIT_USAGE)
    except KeyboardInterrupt:
        sys.stderr.write("parjava: interrupted\n")
        return 130
