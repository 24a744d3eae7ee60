"""Import the C++ extension with an actionable message when it is missing."""

from __future__ import annotations

from types import ModuleType

from .errors import MissingDependencyError


def load_core() -> ModuleType:
    """Return ``parjava._core`` or raise :class:`MissingDependencyError` saying how to build it."""
    try:
        from . import _core
    except ImportError as exc:  # pragma: no cover - only without a build
        raise MissingDependencyError(
            "the parjava C++ extension (parjava._core) is not built: run `make build` in the "
            f"source tree or `pip install .` ({exc})"
        ) from exc
    return _core
