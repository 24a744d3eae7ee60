"""A small progress bar for long work: on stderr in a terminal, as an updated output in Jupyter.

It stays quiet when stderr is not a terminal (pipes, files), under ``CI`` and with
``PARJAVA_NO_PROGRESS`` set, unless asked for with ``enabled=True``.
"""

from __future__ import annotations

import html
import os
import sys
import time
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")


def _in_jupyter() -> bool:
    """Tell whether this runs in a Jupyter kernel (IPython's ZMQ shell: stderr is no terminal)."""
    if "ipykernel" not in sys.modules:
        return False
    try:
        from IPython import get_ipython  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover - ipykernel always brings IPython
        return False
    shell = get_ipython()
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


def _truthy(name: str) -> bool:
    value = os.environ.get(name, "")
    return value not in ("", "0", "false", "False", "no")


def _enabled(requested: bool | None) -> bool:
    if requested is not None:
        return requested
    if _truthy("CI") or _truthy("PARJAVA_NO_PROGRESS"):
        return False
    return sys.stderr.isatty() or _in_jupyter()


class Progress:
    """Report ``done/total`` with a bar, at most ten times a second.

    Use as a context manager and call :meth:`advance` (a unit of work done) or :meth:`update`
    (news about the unit in progress, e.g. events simulated so far). ``enabled=None`` decides
    from the environment: a terminal on stderr or a Jupyter kernel, not under ``CI``. With
    ``delay`` seconds, nothing is shown until the work has taken that long, so quick calls stay
    silent.
    """

    def __init__(
        self, total: int, label: str, enabled: bool | None = None, delay: float = 0.0
    ) -> None:
        self.total = max(int(total), 1)
        self.label = label
        self.done = 0
        self.enabled = _enabled(enabled)
        self.delay = float(delay)
        self._last = 0.0
        self._start = time.monotonic()
        self._note = ""
        self._shown = False
        self._jupyter = self.enabled and not sys.stderr.isatty() and _in_jupyter()
        self._handle: Any = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            self._draw(force=True)
            if self._shown and not self._jupyter:
                sys.stderr.write("\n")
                sys.stderr.flush()

    def advance(self, n: int = 1, note: str = "") -> None:
        """Count ``n`` more units of work done; ``note`` is shown after the bar."""
        self.done += n
        self._note = note
        if self.enabled:
            self._draw()

    def update(self, note: str) -> None:
        """Show ``note`` about the unit of work in progress without counting it done."""
        self._note = note
        if self.enabled:
            self._draw()

    def _draw(self, force: bool = False) -> None:
        now = time.monotonic()
        elapsed = now - self._start
        # In Jupyter a bar is a cell output: work done within half a second leaves none.
        if not self._shown and elapsed < (max(self.delay, 0.5) if self._jupyter else self.delay):
            return
        if not force and self._shown and now - self._last < 0.1:
            return
        self._last = now
        self._shown = True
        frac = min(self.done / self.total, 1.0)
        width = 30
        bar = "#" * int(frac * width)
        text = (
            f"{self.label} [{bar:<{width}}] {self.done}/{self.total} {elapsed:6.1f}s {self._note}"
        )
        if self._jupyter:
            self._draw_jupyter(text, frac)
            return
        # Pad to overwrite a longer previous note on the same line.
        sys.stderr.write(f"\r{text:<100}")
        sys.stderr.flush()

    def _draw_jupyter(self, text: str, frac: float) -> None:
        from IPython.display import HTML, display  # type: ignore[import-not-found]

        label, _, rest = text.partition(" [")
        note = rest.partition("] ")[2]
        body = HTML(
            f"<div style='font-family:monospace'>{html.escape(label)} "
            f"<progress value='{frac:.4f}' max='1' style='width:14em'></progress> "
            f"{html.escape(note)}</div>"
        )
        if self._handle is None:
            self._handle = display(body, display_id=True)
        else:
            self._handle.update(body)


def progress(
    items: Iterable[T], total: int, label: str, enabled: bool | None = None
) -> Iterator[T]:
    """Iterate over ``items`` while showing a progress bar (see :class:`Progress`)."""
    with Progress(total, label, enabled) as bar:
        for item in items:
            yield item
            bar.advance()
