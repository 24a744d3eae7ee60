"""Our test programs: the line that holds a text in their source, and the median time they
report over three real runs under mpirun."""

from __future__ import annotations

import os
import re
import statistics
import subprocess
from collections.abc import Sequence
from pathlib import Path


def median_time(
    exe: Path,
    np: int,
    args: Sequence[str] = (),
    *,
    pattern: str = r"time ([0-9.]+)",
    launcher: Sequence[str] = (),
) -> float:
    """Run ``exe`` three times at ``np`` and return the median of the time it prints.

    ``pattern``'s last group is the time in seconds; ``launcher`` adds mpirun options
    (``--bind-to none`` for a program whose threads need cores of their own).
    """
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    times = []
    for _ in range(3):
        proc = subprocess.run(
            ["mpirun", "--oversubscribe", *launcher, "-np", str(np), str(exe), *args],
            capture_output=True,
            text=True,
            env=env,
            check=True,
            timeout=120,
        )
        match = re.search(pattern, proc.stdout)
        assert match, proc.stdout
        times.append(float(match.group(match.lastindex or 0)))
    return statistics.median(times)


def measured_near(exe: Path, np: int, args: Sequence[str], predicted: float, rel: float) -> float:
    """Return ``median_time(exe, np, args)``, measured a second time when the first lies more
    than ``rel`` from ``predicted``: timings on a shared VM, where one compile nearby can slow
    a run (a second measurement decides)."""
    real = median_time(exe, np, args)
    if abs(predicted - real) > rel * real:
        real = median_time(exe, np, args)
    return real


def source_line(program: Path, text: str) -> int:
    """Return the first line of ``program`` that contains ``text`` (1-based)."""
    for i, line in enumerate(program.read_text().splitlines(), start=1):
        if text in line:
            return i
    raise AssertionError(f"{text!r} not in {program}")
