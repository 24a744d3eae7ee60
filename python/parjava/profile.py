"""The flat profile of a trace: time per region and location (``parjava.profile(trace)``).

One pass in C++ (``cpp/src/analysis/profile``) gives, per location and region, the exclusive
and inclusive time and the number of visits, plus the time outside every region. Replay's
side-by-side table, run comparison and the POP metrics read it. Times are seconds.
"""

from __future__ import annotations

import os
from functools import cached_property
from typing import Any

import numpy as np

from ._core_loader import load_core
from .errors import MissingDependencyError, UsageError
from .trace import Trace

#: Name of the pseudo-region holding the time outside every region (user code in a trace of
#: MPI calls only).
OUTSIDE = "(outside any region)"


def as_trace(trace: Any, verb: str) -> Trace:
    """Accept a trace object or the path of an OTF2 archive (a helper of the analyses)."""
    if isinstance(trace, Trace):
        return trace
    if isinstance(trace, (str, os.PathLike)):
        return Trace.open(trace)
    if type(trace).__name__ == "Trace" and hasattr(trace, "column"):  # a parjava._core.Trace
        return Trace(trace)
    raise UsageError(
        f"{verb}: expected a parjava.Trace or the path of an OTF2 archive, got "
        f"{type(trace).__name__}"
    )


def pandas() -> Any:
    """Import pandas or say how to get it."""
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - pandas is a test dependency
        raise MissingDependencyError("this needs pandas: pip install pandas") from exc
    return pd


class Profile:
    """Exclusive/inclusive seconds and visits per (location, region) of one trace.

    :attr:`exclusive`, :attr:`inclusive` and :attr:`visits` are arrays of shape
    ``(locations, regions + 1)``; the last column is the time outside every region.
    """

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        raw = load_core().profile(trace.core)
        self.exclusive = raw["exclusive"].astype(np.float64) * 1e-9
        self.inclusive = raw["inclusive"].astype(np.float64) * 1e-9
        self.visits = raw["visits"]
        self.begin = raw["begin"].astype(np.float64) * 1e-9
        self.end = raw["end"].astype(np.float64) * 1e-9

    @cached_property
    def region_names(self) -> list[str]:
        """Column names: the region names, then :data:`OUTSIDE`."""
        return [r.name for r in self.trace.regions] + [OUTSIDE]

    @cached_property
    def runtime_columns(self) -> np.ndarray:
        """Boolean per column: an MPI/SHMEM (runtime) call."""
        flags = [
            r.function is not None or r.paradigm in ("mpi", "shmem") for r in self.trace.regions
        ]
        return np.array([*flags, False], dtype=bool)

    @cached_property
    def process_rows(self) -> np.ndarray:
        """Locations that are the main thread of an MPI process, in rank order."""
        rows = sorted(
            (loc.rank, loc.index)
            for loc in self.trace.locations
            if loc.rank is not None and loc.thread == 0 and loc.type == "cpu thread"
        )
        return np.array([index for _, index in rows], dtype=np.int64)

    def computation(self) -> np.ndarray:
        """Seconds outside MPI/SHMEM calls per location (user code, the rest of the runtime)."""
        return self.exclusive[:, ~self.runtime_columns].sum(axis=1)

    def communication(self) -> np.ndarray:
        """Seconds inside MPI/SHMEM calls per location."""
        return self.exclusive[:, self.runtime_columns].sum(axis=1)

    def by_region(self) -> Any:
        """Per region name: exclusive and inclusive seconds summed over locations, visits."""
        pd = pandas()
        frame = pd.DataFrame(
            {
                "region": self.region_names,
                "runtime": self.runtime_columns,
                "exclusive": self.exclusive.sum(axis=0),
                "inclusive": self.inclusive.sum(axis=0),
                "visits": self.visits.sum(axis=0),
            }
        )
        frame = frame.groupby(["region", "runtime"], as_index=False, sort=False).sum()
        return frame[frame["visits"].gt(0) | frame["exclusive"].gt(0)].sort_values(
            "exclusive", ascending=False, kind="stable"
        )

    def to_pandas(self) -> Any:
        """One row per (location, region) with time: location label, rank, region, seconds."""
        pd = pandas()
        locations = self.trace.locations
        rows, cols = np.nonzero((self.exclusive > 0) | (self.visits > 0))
        return pd.DataFrame(
            {
                "location": [locations[r].label for r in rows],
                "rank": [-1 if locations[r].rank is None else locations[r].rank for r in rows],
                "region": [self.region_names[c] for c in cols],
                "runtime": self.runtime_columns[cols],
                "exclusive": self.exclusive[rows, cols],
                "inclusive": self.inclusive[rows, cols],
                "visits": self.visits[rows, cols],
            }
        )

    def __repr__(self) -> str:
        return f"<Profile {self.exclusive.shape[0]} locations x {len(self.region_names)} regions>"


def profile(trace: Any) -> Profile:
    """Return the flat :class:`Profile` of a trace (object or OTF2 path)."""
    return Profile(as_trace(trace, "profile"))


__all__ = ["OUTSIDE", "Profile", "as_trace", "pandas", "profile"]
