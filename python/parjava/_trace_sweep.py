"""Sweeps over a trace: replay it (:func:`parjava.replay`) on every machine x option values.

A helper of :mod:`parjava.sweeps`: which replay options can be swept, how a point is replayed
and what its row holds. A point's ``params`` are replay keywords (``balance``, ``power``,
``contention``, ``call_overhead``, ``network``) and computation factors named ``scale:KEY``
(``scale:*``, ``scale:solve``, ``scale:rank 3``: the keys of ``replay(scale=...)``). The trace
travels to the workers as the path of its archive (they must see it: one machine, or a shared
file system as on a cluster); a trace built in memory is written to a temporary archive first.
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Mapping
from typing import Any

from .errors import UsageError

# Replay keywords a sweep may vary, with the values each accepts.
OPTIONS: dict[str, tuple[Any, ...] | None] = {
    "balance": (False, True),
    "power": (False, True),
    "contention": (False, True),
    "call_overhead": ("minimum", "none"),
    "network": (None, "ideal"),
}
SCALE = "scale:"
_TEMPORARY: list[tempfile.TemporaryDirectory[str]] = []


def is_trace(value: Any) -> bool:
    """Tell a parjava.Trace or an OTF2 archive's path (``*.otf2``, a directory with one)."""
    from .trace import Trace

    if isinstance(value, Trace):
        return True
    if isinstance(value, (str, os.PathLike)):
        path = os.fspath(value)
        return path.endswith(".otf2") or os.path.isfile(os.path.join(path, "traces.otf2"))
    return False


def archive_of(value: Any) -> tuple[str, int, float]:
    """Return the archive's absolute path, the trace's rank count and run time (seconds)."""
    from .trace import Trace

    trace = value if isinstance(value, Trace) else Trace.open(value)
    path = trace.metadata.get("path") or ""
    if not path:
        # A trace built in memory: the workers read it from a temporary archive.
        directory = tempfile.TemporaryDirectory(prefix="parjava-sweep-")
        _TEMPORARY.append(directory)
        path = os.path.join(directory.name, "trace")
        trace.write(path)
    return os.path.abspath(path), max(int(trace.process_count), 1), float(trace.duration)


def check_params(trace: Any, names: list[str], combos: list[tuple[Any, ...]]) -> None:
    """Refuse names that are not sweepable replay options, and values they do not take."""
    from .replay import _factors
    from .trace import Trace

    for i, name in enumerate(names):
        if name.startswith(SCALE):
            key = name[len(SCALE) :].strip()
            if not key:
                raise UsageError(f"sweep: {name!r} names no region, site or rank after 'scale:'")
            opened = trace if isinstance(trace, Trace) else Trace.open(trace)
            _factors(opened, {key: 1.0})  # a key that matches nothing fails here, once
            for combo in combos:
                value = combo[i]
                if not isinstance(value, (int, float)) or not value > 0:
                    raise UsageError(f"sweep: {name} = {value!r} is not a factor > 0")
            continue
        if name not in OPTIONS:
            raise UsageError(
                f"sweep over a trace: {name!r} is not a replay option; sweep "
                f"{', '.join(OPTIONS)} or scale:KEY (a computation factor)"
            )
        allowed = OPTIONS[name] or ()
        for combo in combos:
            if combo[i] not in allowed:
                raise UsageError(
                    f"sweep: {name} = {combo[i]!r}; choose from {', '.join(map(repr, allowed))}"
                )


def replay_point(
    trace: Any, machine: Any, options: Mapping[str, Any], values: Mapping[str, Any]
) -> tuple[float, float, str, str, str]:
    """Replay one point: (time, error bound, warnings, status, error), as a model point."""
    from .errors import Error
    from .replay import replay

    keywords: dict[str, Any] = {"record_trace": False}
    algorithms = options.get("algorithms")
    if algorithms:
        keywords["algorithms"] = dict(algorithms)
    scale: dict[str, float] = {}
    for name, value in values.items():
        if name.startswith(SCALE):
            scale[name[len(SCALE) :]] = float(value)
        else:
            keywords[name] = value
    if scale:
        keywords["scale"] = scale
    try:
        result = replay(trace, machine, **keywords)
    except UsageError:
        raise
    except Error as exc:  # a deadlock or an analysis error at this point: a failed row
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return math.nan, math.nan, "", "failed", f"replay: {first}"
    return result.time, math.nan, "; ".join(result.warnings), "ok", ""
