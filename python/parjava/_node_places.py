"""Where a model node is in the sources, as the honesty checks of predictions name it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def where(files: Sequence[str], node: dict[str, Any]) -> str:
    """Return ``file.c:line`` of a node (the file's name only; ``?`` when it has none)."""
    src = node.get("source") or {}
    f = src.get("file", -1)
    name = files[f].rsplit("/", 1)[-1] if isinstance(f, int) and 0 <= f < len(files) else "?"
    return f"{name}:{src.get('line', 0)}"
