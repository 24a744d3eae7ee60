"""What the explanation verbs (whatif, critical-path, root-causes, pop, compare) share.

The ``--format``/``-o``/``--fail-on`` options, writing the report, and checking thresholds.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import UsageError
from . import EXIT_FAILED_CHECK, EXIT_OK

FORMATS = ("text", "json", "csv")


@dataclass(frozen=True)
class Threshold:
    """A --fail-on check: NAME:VALUE."""

    name: str
    value: float


def threshold(text: str) -> Threshold:
    """Parse ``NAME:VALUE`` (argparse type)."""
    name, sep, value = text.rpartition(":")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME:VALUE, got {text!r}")
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number") from None
    return Threshold(name.strip().lower().replace("-", "_"), number)


def add_output_options(parser: argparse.ArgumentParser, checks: str) -> None:
    """``--format``, ``-o`` and ``--fail-on`` (``checks`` documents the names)."""
    parser.add_argument("--format", choices=FORMATS, default="text", help="report format")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the report here")
    parser.add_argument(
        "--fail-on",
        action="append",
        type=threshold,
        default=[],
        metavar="NAME:VALUE",
        help=f"exit 1 when a check fails (repeatable): {checks}",
    )


def emit(verb: str, args: argparse.Namespace, result: Any, text: str | None = None) -> None:
    """Write ``result``'s report in the chosen format (``text``: the text one) to ``-o``/stdout."""
    if args.format == "text" and text is not None:
        pass
    elif args.format == "json":
        text = result.to_json()
    elif args.format == "csv":
        text = result.to_csv()
    else:
        text = result.report()
    if not text.endswith("\n"):
        text += "\n"
    if args.output:
        with open(args.output, "w", encoding="utf-8", newline="") as out:
            out.write(text)
        sys.stderr.write(f"parjava {verb}: wrote the {args.format} report to {args.output}\n")
    else:
        sys.stdout.write(text)


def check(
    verb: str,
    thresholds: Sequence[Threshold],
    rules: dict[str, Callable[[float], str | None]],
) -> int:
    """Apply each --fail-on threshold with its rule (a message when it fails); exit status."""
    unknown = [t.name for t in thresholds if t.name not in rules]
    if unknown:
        raise UsageError(
            f"--fail-on: unknown check(s) {', '.join(unknown)}; choose from {', '.join(rules)}"
        )
    failed = [m for t in thresholds if (m := rules[t.name](t.value)) is not None]
    for message in failed:
        sys.stderr.write(f"parjava {verb}: check failed: {message}\n")
    return EXIT_FAILED_CHECK if failed else EXIT_OK
