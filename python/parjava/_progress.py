"""A small progress bar for long work that stays quiet when stderr is not a terminal."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


def _enabled(requested: bool | None) -> bool:
    if requested is not None:
        return requested
    if os.environ.get("CI") or os.environ.get("PARJAVA_NO_PROGRESS"):
        return False
    return sys.stderr.isatty()


class Progress:
    """Report ``done/total`` with a bar on stderr, at most ten times a second.

    Use as a context manager and call :meth:`advance`; ``enabled=None`` decides from the
    terminal (quiet under CI, in pipes and in notebooks).
    """

    def __init__(self, total: int, label: str, enabled: bool | None = None) -> None:
        self.total = max(int(total), 1)
        self.label = label
        self.done = 0
        self.enabled = _enabled(enabled)
        self._last = 0.0
        self._start = time.monotonic()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            self._draw(force=True)
            sys.stderr.write("\n")
            sys.stderr.flush()

    def advance(self, n: int = 1, note: str = "") -> None:
        """Count ``n`` more units of work done; ``note`` is shown after the bar."""
        self.done += n
        if self.enabled:
            self._draw(note=note)

    def _draw(self, force: bool = False, note: str = "") -> None:
        now = time.monotonic()
        if not force and now - self._last < 0.1:
            return
        self._last = now
        frac = min(self.done / self.total, 1.0)
        width = 30
        bar = "#" * int(frac * width)
        elapsed = now - self._start
        sys.stderr.write(
            f"\r{self.label} [{bar:<{width}}] {self.done}/{self.total} {elapsed:6.1f}s {note}"
        )
        sys.stderr.flush()


def progress(
    items: Iterable[T], total: int, label: str, enabled: bool | None = None
) -> Iterator[T]:
    """Iterate over ``items`` while showing a progress bar (see :class:`Progress`)."""
    with Progress(total, label, enabled) as bar:
        for item in items:
            yield item
            bar.advance()
