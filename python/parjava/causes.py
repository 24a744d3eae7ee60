"""Why a run took its time: the critical path and the root causes of waiting (issue 14).

* :func:`critical_path` (Böhme et al., IPDPS 2012): the chain of computation and
  communication that decides the run time, walking back from the end and jumping at every wait
  state to the process that caused it. Its length is the makespan; per activity and rank the
  time on the path; the critical-path imbalance says how much of the path is time that other
  processes did not need (a balanced program has none); :meth:`CriticalPath.segments` are the
  path's intervals for the timeline.
* :func:`root_causes` (Böhme et al., ICPP 2010): delay costs. A wait state is caused by what
  the process it waited for did *more* than the waiting one since they last synchronised;
  the waiting is charged to those excess activities (short-term), and waiting that itself
  delayed a process and so caused more waiting later is charged, propagated, to its own causes
  (long-term). A finding reads "rank 3's computation between solver.c:80 and MPI_Allreduce at
  solver.c:88 caused 1.2 s of waiting elsewhere".

Activities are what time is charged to: an MPI call by its function and call site, computation
by the user region it runs in and the call sites of the MPI calls around it, which names source
lines even for traces of MPI calls only. Both analyses run in C++ (``cpp/src/analysis/causes``)
on the wait states the scanner finds (Scalasca's definitions, ε = 0) and share one pass.
"""

from __future__ import annotations

import json
import os
from functools import cached_property
from typing import Any

import numpy as np

from ._core_loader import load_core
from ._scan_report import MetricTree, seconds_text
from .profile import as_trace, pandas
from .trace import Trace

_NO_REF = 0xFFFFFFFF


def _analysis(trace: Trace) -> Any:
    """Return the C++ analysis of ``trace``, computed once per trace object."""
    return trace._table("causes", lambda: load_core().analyze_causes(trace.core))


class _Activities:
    """Labels and source lines of the activities of one analysis."""

    def __init__(self, trace: Trace, raw: dict[str, np.ndarray]) -> None:
        regions = trace.regions
        sites = trace.callsites
        self.computation = raw["computation"].astype(bool)

        def region(i: int) -> str:
            return regions[i].name if i != _NO_REF and i < len(regions) else ""

        def site(i: int) -> str:
            return str(sites[i]) if i != _NO_REF and i < len(sites) else ""

        self.region = [region(int(r)) for r in raw["region"]]
        self.callsite = [site(int(s)) for s in raw["callsite"]]
        self.file = [
            sites[int(s)].file if s != _NO_REF and s < len(sites) else "" for s in raw["callsite"]
        ]
        self.line = [
            sites[int(s)].line if s != _NO_REF and s < len(sites) else 0 for s in raw["callsite"]
        ]
        self.call = [region(int(r)) for r in raw["next_call"]]
        self.previous = [site(int(s)) for s in raw["previous_callsite"]]
        labels = []
        for i in range(len(self.region)):
            if not self.computation[i]:
                where = f" at {self.callsite[i]}" if self.callsite[i] else ""
                labels.append(f"{self.region[i]}{where}")
                continue
            inside = f" in {self.region[i]}" if self.region[i] else ""
            after = f" after {self.previous[i]}" if self.previous[i] else ""
            if self.call[i]:
                before = f" before {self.call[i]}" + (
                    f" at {self.callsite[i]}" if self.callsite[i] else ""
                )
            else:
                before = " until the end"
            labels.append(f"computation{inside}{after}{before}")
        self.label = labels

    def frame(self, ids: np.ndarray) -> dict[str, Any]:
        """Return the activity columns of rows that name activities `ids`.

        Text columns are categorical (a code per row into the activity table), so a table of
        one row per rank and activity holds no string per row.
        """
        ids = np.asarray(ids, dtype=np.int64)
        pd = pandas()

        def column(values: list[str]) -> Any:
            categories, inverse = np.unique(np.array(values, dtype=str), return_inverse=True)
            return pd.Categorical.from_codes(inverse.reshape(-1)[ids], categories=categories)

        kinds = ["computation" if c else "MPI call" for c in self.computation]
        return {
            "activity": column(self.label),
            "kind": column(kinds),
            "region": column(self.region),
            "call": column(self.call),
            "callsite": column(self.callsite),
            "file": column(self.file),
            "line": np.asarray(self.line, dtype=np.int64)[ids],
        }


def _ranks(trace: Trace, locations: np.ndarray) -> np.ndarray:
    table = np.array([-1 if loc.rank is None else loc.rank for loc in trace.locations])
    return table[np.asarray(locations, dtype=np.int64)]


class _Result:
    def __init__(self, trace: Trace, raw: Any = None) -> None:
        self.trace = trace
        # `raw`: the C++ analysis when it was made elsewhere (merged from a parallel analysis'
        # parts, parjava.parallel.critical_path).
        self._raw = _analysis(trace) if raw is None else raw

    @cached_property
    def _activities(self) -> _Activities:
        return _Activities(self.trace, self._raw.activities)

    @property
    def seconds(self) -> float:
        """Wall time of the C++ analysis (both analyses share it)."""
        return float(self._raw.seconds)

    def to_json(self, path: str | os.PathLike[str] | None = None) -> str:
        """Return the result as JSON (written to ``path`` when given)."""
        text = json.dumps(self.to_dict(), indent=1, default=float)
        if path is not None:
            with open(path, "w", encoding="utf-8") as out:
                out.write(text)
        return text

    def to_dict(self) -> dict[str, Any]:  # pragma: no cover - overridden
        raise NotImplementedError

    def to_csv(self, path: str | os.PathLike[str] | None = None) -> str:
        """Return the main table (:meth:`to_pandas`) as CSV."""
        text = self.to_pandas().to_csv(index=False)
        if path is not None:
            with open(path, "w", encoding="utf-8") as out:
                out.write(text)
        return text

    def to_pandas(self) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError


class CriticalPath(_Result):
    """The critical path of a run: length, segments, profile and imbalance (seconds)."""

    @property
    def length(self) -> float:
        """Seconds: the sum of the path's segments (the makespan of the analysed processes)."""
        return float(self._raw.path["length"]) * 1e-9

    @property
    def begin(self) -> float:
        """Seconds since the trace's origin: where the path starts."""
        return float(self._raw.path["begin"]) * 1e-9

    @property
    def end(self) -> float:
        """Seconds since the trace's origin: the end of the run."""
        return float(self._raw.path["end"]) * 1e-9

    @property
    def imbalance(self) -> float:
        """Critical-path imbalance in seconds: path time beyond each activity's mean."""
        return float(self._raw.path["imbalance"]) * 1e-9

    @property
    def imbalance_ratio(self) -> float:
        """Imbalance as a share of the path (0: balanced, toward 1: one process decides)."""
        return self.imbalance / self.length if self.length > 0 else 0.0

    def segments(self) -> Any:
        """Return the path's intervals in time order: rank, location, begin, end, duration (s)."""
        pd = pandas()
        s = self._raw.path_segments
        begin = s["begin"].astype(np.float64) * 1e-9
        end = s["end"].astype(np.float64) * 1e-9
        return pd.DataFrame(
            {
                "rank": _ranks(self.trace, s["location"]),
                "location": s["location"].astype(np.int64),
                "begin": begin,
                "end": end,
                "duration": end - begin,
            }
        )

    def intervals(self) -> list[tuple[int, float, float]]:
        """Return the segments as ``(rank, begin, end)`` tuples for a timeline (seconds)."""
        frame = self.segments()
        return list(zip(frame["rank"].tolist(), frame["begin"].tolist(), frame["end"].tolist()))

    def profile(self) -> Any:
        """Time on the path per activity and rank (s), largest first."""
        pd = pandas()
        p = self._raw.path_profile
        frame = pd.DataFrame(
            {"rank": _ranks(self.trace, p["location"]), **self._activities.frame(p["activity"])}
        )
        frame["seconds"] = p["ns"] * 1e-9
        return frame.sort_values("seconds", ascending=False, kind="stable").reset_index(drop=True)

    def by_rank(self) -> Any:
        """Seconds of the path on each rank."""
        frame = self.segments()
        return frame.groupby("rank")["duration"].sum()

    def by_activity(self) -> Any:
        """Per activity: time on the path, mean time per process (waiting excluded), imbalance."""
        pd = pandas()
        n = max(len(self._raw.locations), 1)
        acts = len(self._activities.label)
        on_path = np.zeros(acts)
        total = np.zeros(acts)
        waiting = np.zeros(acts)
        p = self._raw.path_profile
        np.add.at(on_path, p["activity"].astype(np.int64), p["ns"])
        t = self._raw.time
        np.add.at(total, t["activity"].astype(np.int64), t["ns"])
        w = self._raw.waiting
        np.add.at(waiting, w["activity"].astype(np.int64), w["ns"])
        ids = np.nonzero(on_path > 0)[0]
        frame = pd.DataFrame(self._activities.frame(ids))
        frame["on_path"] = on_path[ids] * 1e-9
        frame["share"] = frame["on_path"] / self.length if self.length > 0 else 0.0
        frame["mean"] = (total[ids] - waiting[ids]) / n * 1e-9
        frame["imbalance"] = np.asarray(self._raw.path_imbalance)[ids] * 1e-9
        return frame.sort_values("on_path", ascending=False, kind="stable").reset_index(drop=True)

    def to_pandas(self) -> Any:
        """Return the per-activity table (:meth:`by_activity`)."""
        return self.by_activity()

    def to_dict(self) -> dict[str, Any]:
        """Length, begin, end, imbalance, segments and the per-activity table as plain data."""
        return {
            "length": self.length,
            "begin": self.begin,
            "end": self.end,
            "imbalance": self.imbalance,
            "imbalance_ratio": self.imbalance_ratio,
            "segments": self.segments().to_dict(orient="records"),
            "activities": self.by_activity().to_dict(orient="records"),
        }

    def report(self, top: int = 10) -> str:
        """Text: length, imbalance, the activities that make up the path, its segments."""
        lines = [
            f"critical path: {seconds_text(self.length)} over {len(self.segments())} segment(s); "
            f"imbalance {seconds_text(self.imbalance)} ({self.imbalance_ratio:.1%} of the path)",
            "",
            f"  {'on path':>10} {'share':>6} {'mean/rank':>10} {'imbalance':>10}  activity",
        ]
        for _, row in self.by_activity().head(top).iterrows():
            lines.append(
                f"  {seconds_text(row['on_path']):>10} {row['share']:>6.1%} "
                f"{seconds_text(row['mean']):>10} {seconds_text(row['imbalance']):>10}  "
                f"{row['activity']}"
            )
        ranks = self.by_rank()
        lines += [
            "",
            "  on the path per rank: "
            + ", ".join(
                f"rank {r} {seconds_text(v)}"
                for r, v in ranks.sort_values(ascending=False).head(top).items()
            ),
        ]
        return "\n".join(lines)

    def plot(self, ax: Any = None, top: int = 10) -> Any:
        """Horizontal bars: the activities with the most time on the path; returns the figure."""
        import matplotlib.pyplot as plt

        frame = self.by_activity().head(top).iloc[::-1]
        if ax is None:
            fig, ax = plt.subplots(figsize=(8, 0.4 * len(frame) + 1.2))
        else:
            fig = ax.figure
        ax.barh(range(len(frame)), frame["on_path"], label="on the path")
        ax.barh(range(len(frame)), frame["imbalance"], label="imbalance", alpha=0.7)
        ax.set_yticks(range(len(frame)))
        ax.set_yticklabels([label[:70] for label in frame["activity"]], fontsize=7)
        ax.set_xlabel("seconds")
        ax.set_title(f"critical path {seconds_text(self.length)}")
        ax.legend(loc="lower right")
        fig.tight_layout()
        return fig

    def __repr__(self) -> str:
        return (
            f"<CriticalPath {seconds_text(self.length)}, {len(self._raw.path_segments['begin'])} "
            f"segments, imbalance {self.imbalance_ratio:.1%}>"
        )


class RootCauses(_Result):
    """Delay costs: which activity on which rank caused how much waiting (seconds)."""

    @property
    def total_wait(self) -> float:
        """Seconds of waiting in all wait states analysed."""
        return float(self._raw.delay_totals["total_wait"]) * 1e-9

    @property
    def unattributed(self) -> float:
        """Seconds of waiting whose partner did nothing more in the interval (clock skew, ...)."""
        return float(self._raw.delay_totals["unattributed"]) * 1e-9

    @property
    def wait_states(self) -> int:
        """Number of wait states analysed."""
        return int(self._raw.delay_totals["wait_states"])

    def table(self) -> Any:
        """One row per (rank, activity): short-term, long-term and total cost (s), worst first."""
        pd = pandas()
        d = self._raw.delay_costs
        frame = pd.DataFrame(
            {"rank": _ranks(self.trace, d["location"]), **self._activities.frame(d["activity"])}
        )
        frame["short_term"] = d["short_term"] * 1e-9
        frame["long_term"] = d["long_term"] * 1e-9
        frame["total"] = frame["short_term"] + frame["long_term"]
        frame["share"] = frame["total"] / self.total_wait if self.total_wait > 0 else 0.0
        return frame.sort_values("total", ascending=False, kind="stable").reset_index(drop=True)

    def by_activity(self) -> Any:
        """Costs summed over ranks, per activity, worst first."""
        frame = self.table()
        keys = ["activity", "kind", "region", "call", "callsite", "file", "line"]
        out = frame.groupby(keys, as_index=False, sort=False)[
            ["short_term", "long_term", "total", "share"]
        ].sum()
        return out.sort_values("total", ascending=False, kind="stable").reset_index(drop=True)

    def to_pandas(self) -> Any:
        """Return the per-(rank, activity) table (:meth:`table`)."""
        return self.table()

    def diagnoses(self, top: int = 10) -> list[str]:
        """One sentence per worst cause: who, what, where, how much waiting it caused."""
        out = []
        for _, row in self.table().head(top).iterrows():
            if row["total"] <= 0:
                break
            long = (
                f" ({seconds_text(row['long_term'])} of it propagated through other waits)"
                if row["long_term"] > 0
                else ""
            )
            out.append(
                f"rank {row['rank']}'s {row['activity']} caused {seconds_text(row['total'])} of "
                f"waiting elsewhere ({row['share']:.0%} of all waiting){long}"
            )
        return out

    def tree(self) -> MetricTree:
        """Return the "Root causes" branch of the metric tree: term > activity > rank."""
        root = MetricTree("Root causes (delay costs)", "family")
        frame = self.table()
        for term, column in (("Short-term", "short_term"), ("Long-term", "long_term")):
            node = root.child(term, "group")
            rows = frame[frame[column] > 0]
            for activity, group in rows.groupby("activity", sort=False):
                leaf = node.child(str(activity), "callsite")
                leaf.value = float(group[column].sum())
                leaf.count = len(group)
                for _, row in group.iterrows():
                    loc = leaf.child(f"rank {row['rank']}", "location")
                    loc.value = float(row[column])
            node.value = float(rows[column].sum())
            node.count = sum(c.count for c in node.children)
        root.value = sum(c.value for c in root.children)
        root.count = sum(c.count for c in root.children)
        return root

    def to_dict(self) -> dict[str, Any]:
        """Totals and every (rank, activity) cost as plain data."""
        return {
            "wait_states": self.wait_states,
            "total_wait": self.total_wait,
            "unattributed": self.unattributed,
            "costs": self.table().to_dict(orient="records"),
        }

    def report(self, top: int = 10) -> str:
        """Text: waiting analysed, the worst causes as sentences, the cost table."""
        attributed = self.total_wait - self.unattributed
        lines = [
            f"root causes of {seconds_text(self.total_wait)} of waiting in {self.wait_states} wait "
            f"state(s); {seconds_text(attributed)} attributed to a cause"
            + (f", {seconds_text(self.unattributed)} without one" if self.unattributed > 0 else ""),
            "",
        ]
        lines += [f"  {d}" for d in self.diagnoses(top)] or ["  (no waiting to explain)"]
        return "\n".join(lines)

    def plot(self, ax: Any = None, top: int = 10) -> Any:
        """Stacked bars: short- and long-term cost of the worst causes; returns the figure."""
        import matplotlib.pyplot as plt

        frame = self.table().head(top).iloc[::-1]
        if ax is None:
            fig, ax = plt.subplots(figsize=(8, 0.4 * len(frame) + 1.2))
        else:
            fig = ax.figure
        y = np.arange(len(frame))
        ax.barh(y, frame["short_term"], label="short-term")
        ax.barh(y, frame["long_term"], left=frame["short_term"], label="long-term")
        ax.set_yticks(y)
        ax.set_yticklabels(
            [f"rank {r}: {a[:60]}" for r, a in zip(frame["rank"], frame["activity"])], fontsize=7
        )
        ax.set_xlabel("waiting caused [s]")
        ax.set_title("root causes of waiting")
        ax.legend(loc="lower right")
        fig.tight_layout()
        return fig

    def __repr__(self) -> str:
        top = self.table().head(1)
        worst = (
            f"; worst: rank {top['rank'][0]} {top['activity'][0]} ({seconds_text(top['total'][0])})"
            if len(top) and top["total"][0] > 0
            else ""
        )
        return f"<RootCauses {seconds_text(self.total_wait)} of waiting{worst}>"


def critical_path(trace: Trace | str | os.PathLike[str]) -> CriticalPath:
    """Return the :class:`CriticalPath` of a trace (object or OTF2 path; real, model, replayed)."""
    return CriticalPath(as_trace(trace, "critical_path"))


def root_causes(trace: Trace | str | os.PathLike[str]) -> RootCauses:
    """Return the delay costs (:class:`RootCauses`) of a trace (object or OTF2 path)."""
    return RootCauses(as_trace(trace, "root_causes"))


__all__ = ["CriticalPath", "RootCauses", "critical_path", "root_causes"]
