"""Interval analysis on MPI (:func:`parjava.parallel.intervals`)."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ._core_loader import load_core
from ._parallel_part import PartTrace, _collective, _comm, _together, open_part


@_collective
def intervals(
    trace: str | os.PathLike[str] | PartTrace,
    comm: Any = None,
    root: int = 0,
    threads: int = 0,
    **options: Any,
) -> Any:
    """Interval analysis on every rank of ``comm`` together; ``root`` gets the tree.

    ``trace`` is the archive's path (read in parts by :func:`open_part`) or a
    :class:`PartTrace`; ``options`` are those of :func:`parjava.intervals` (``progress``
    aside). Each rank walks the processes of its own locations (partners' calls and collective
    members come from the replay) and sends its part of the tree to ``root``, which merges the
    parts (``cpp/include/parjava/analysis/intervals/interval_parts.hpp``). Returns the
    :class:`parjava.intervals.IntervalTree` of the whole trace on ``root``, identical to the
    serial one (every interval, every characteristic on every process, executions, warnings),
    and ``None`` on the other ranks.
    """
    from .intervals import IntervalTree, _options

    comm = _comm(comm)
    options.pop("progress", None)
    core = load_core()
    core_options, settings = _together(comm, "checking the options", lambda: _options(**options))
    part = trace if isinstance(trace, PartTrace) else open_part(trace, comm, threads)
    own = part.owned.astype(np.uint8)
    data = _together(
        comm,
        "the interval analysis",
        lambda: core.analyze_interval_part(part.trace.core, core_options, own),
    )
    gathered = comm.gather(data, root=root)
    del data
    if comm.rank != root:
        return None
    tree = core.merge_interval_parts(part.trace.core, core_options, gathered)
    return IntervalTree(tree, settings)
