"""``parjava model``: build a program model from C/C++ MPI sources with Clang."""

from __future__ import annotations

import argparse
import shlex
import sys
import types
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .. import frontend

EPILOG = """examples:
  parjava model jacobi.c -o jacobi.json -- -O2
  parjava model -p build/ src/solver.cpp -o solver.json
  parjava model jacobi.c --structure
  parjava model jacobi.c --argv ./jacobi 4096 100 -o jacobi.json
  parjava model *.cc --argv "./qs -N 10 -n 20000" -o qs.json -- -DHAVE_MPI

Compiler flags (-I, -D, -std=, -fopenmp) go after `--`. A command line with options of its own
(`-N 10`) is given quoted, as `parjava estimate --run` takes it. Diagnostics (what was reduced, what
became opaque and why, what was not understood) are printed to stderr; --diagnostics FILE also
writes them as JSON. The model is documented in docs/model-schema.md.
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``model`` verb."""
    p = subparsers.add_parser(
        "model",
        help="build a program model from C/C++ sources (Clang)",
        description="Build a parjava program model from C/C++ MPI sources with Clang: control "
        "trees of every function, MPI calls with their arguments as expressions, data that does "
        "not decide control flow reduced away.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_build_arguments(p)
    p.add_argument("-o", "--output", help="write the model JSON here (default: standard output)")
    p.add_argument("--diagnostics", help="write the diagnostics as JSON to this file")
    p.add_argument(
        "--structure",
        action="store_true",
        help="print the control structure and analysis results instead of the model",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="do not print diagnostics")
    p.set_defaults(func=run)


def _parse_with_flags(
    self: argparse.ArgumentParser,
    args: Sequence[str] | None = None,
    namespace: argparse.Namespace | None = None,
) -> tuple[argparse.Namespace, list[str]]:
    """Take everything after ``--`` as compiler flags, as clang tools do."""
    arg_list = list(args or [])
    flags: list[str] = []
    if "--" in arg_list:
        i = arg_list.index("--")
        flags = arg_list[i + 1 :]
        arg_list = arg_list[:i]
    ns, rest = argparse.ArgumentParser.parse_known_args(self, arg_list, namespace)
    ns.flags = flags
    return ns, rest


def add_build_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments shared by ``parjava model`` and ``parjava estimate``."""
    p.add_argument(
        "sources",
        nargs="*",
        metavar="SOURCE",
        help="C/C++ source files; compiler flags (-O2, -I DIR, -D, -std=) follow `--`",
    )
    p.parse_known_args = types.MethodType(_parse_with_flags, p)  # type: ignore[method-assign]
    p.add_argument(
        "-p", "--compile-commands", help="compile_commands.json or the directory holding it"
    )
    p.add_argument("--entry", default="main", help="function the program starts in")
    p.add_argument("--name", help="model name (default: the first source's stem)")
    p.add_argument(
        "--argv",
        nargs="+",
        metavar="ARG",
        help="the program's command line (argv[0] first): defaults of argc, argv1, ...; "
        'quoted when it has options: --argv "./app -n 10"',
    )


def command_line(values: Sequence[str] | None) -> list[str] | None:
    """Return the program's command line given to ``--argv``.

    Its words, or one quoted string split as a shell would: argparse cannot take words starting
    with ``-`` unquoted.
    """
    if values is None:
        return None
    if len(values) == 1 and any(c.isspace() for c in values[0]):
        return shlex.split(values[0])
    return list(values)


def split_flags(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """Return the source files and the compiler flags given after ``--``."""
    return list(args.sources), list(getattr(args, "flags", []) or [])


def print_diagnostics(diagnostics: list[frontend.Diagnostic]) -> None:
    """Print diagnostics to stderr, one per line, like a compiler."""
    for d in diagnostics:
        sys.stderr.write(f"{d}\n")


def run(args: argparse.Namespace) -> int:
    """Build the model and write it."""
    from .. import frontend

    sources, flags = split_flags(args)
    if args.structure:
        sys.stdout.write(
            frontend.structure(
                sources, flags, compile_commands=args.compile_commands, entry=args.entry
            )
        )
        return 0
    model = frontend.build_model(
        sources,
        flags,
        compile_commands=args.compile_commands,
        entry=args.entry,
        name=args.name,
        argv=command_line(args.argv),
    )
    write_model(model, args.output)
    if not args.quiet:
        print_diagnostics(model.diagnostics)
    if args.diagnostics:
        write_diagnostics(model.diagnostics, args.diagnostics)
    return 0


def write_model(model: frontend.SourceModel, output: str | None) -> None:
    """Write the model JSON to a file or standard output."""
    if output:
        model.save(output)
        sys.stderr.write(f"model written to {output} ({len(model)} nodes)\n")
    else:
        sys.stdout.write(model.to_json() + "\n")


def write_diagnostics(diagnostics: list[frontend.Diagnostic], path: str) -> None:
    """Write diagnostics as a JSON list."""
    import json
    from dataclasses import asdict

    Path(path).write_text(json.dumps([asdict(d) for d in diagnostics], indent=1) + "\n")
