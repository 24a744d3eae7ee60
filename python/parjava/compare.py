"""Run comparison: ``parjava.compare(a, b)`` (issue 14 item 5).

Two traces, two predictions, a replay, or any mix side by side: run time, time per region,
per activity (MPI call by call site, computation between call sites), per pattern, per
interval and per POP metric, with the largest changes first. Runs at different process counts
compare by totals over the ranks (and the mean per rank); different call trees are matched by
region name and source line (file name without its directory, so two checkouts match).
"""

from __future__ import annotations

import json
import os
from functools import cached_property
from typing import Any

import numpy as np

from .causes import _Activities, _analysis
from .errors import UsageError
from .pop import PopMetrics
from .profile import Profile, as_trace, pandas
from .scan import scan
from .trace import Trace

SECTIONS = ("run", "region", "activity", "pattern", "interval", "pop")


def _trace_of(run: Any, name: str) -> Trace:
    """Return a trace from a Trace, a path, a Prediction (its model trace) or a Replay."""
    if isinstance(run, Trace) or isinstance(run, (str, os.PathLike)):
        return as_trace(run, "compare")
    inner = getattr(run, "trace", None)
    if callable(inner):
        runs = getattr(run, "runs", None)
        if runs is not None and len(runs) > 1:
            raise UsageError(
                f"compare: {name} is a prediction of {len(runs)} runs; pass "
                f"prediction.trace(np=...) for the one to compare"
            )
        inner = inner()
    if isinstance(inner, Trace):
        return inner
    raise UsageError(
        f"compare: {name} must be a parjava.Trace, an OTF2 path, a Prediction or a Replay, got "
        f"{type(run).__name__}"
    )


def _label_key(label: str) -> str:
    """Drop the directories from every file:line in an activity label."""
    words = []
    for word in label.split(" "):
        head, sep, tail = word.rpartition(":")
        if sep and tail.isdigit() and "/" in head:
            word = f"{os.path.basename(head)}:{tail}"
        words.append(word)
    return " ".join(words)


def _side_by_side(a: Any, b: Any, key: str, value: str) -> Any:
    pd = pandas()
    left = a.groupby(key)[value].sum().rename("a")
    right = b.groupby(key)[value].sum().rename("b")
    frame = pd.concat([left, right], axis=1).fillna(0.0)
    frame = frame[(frame["a"] != 0) | (frame["b"] != 0)]
    frame["change"] = frame["b"] - frame["a"]
    frame["ratio"] = np.where(
        frame["a"] > 0, frame["b"] / frame["a"].where(frame["a"] > 0, 1), np.inf
    )
    frame.loc[(frame["a"] == 0) & (frame["b"] == 0), "ratio"] = 1.0
    frame.index.name = key
    return frame.reindex(frame["change"].abs().sort_values(ascending=False, kind="stable").index)


class Comparison:
    """Two runs side by side; every table has columns a, b, change (b - a), ratio (b / a)."""

    def __init__(self, a: Trace, b: Trace, names: tuple[str, str], pop_transfer: bool) -> None:
        self.a = a
        self.b = b
        self.names = names
        self._pop_transfer = pop_transfer

    @cached_property
    def _profiles(self) -> tuple[Profile, Profile]:
        return Profile(self.a), Profile(self.b)

    def run(self) -> Any:
        """Return processes, run time, total computation and MPI time of each run."""
        pd = pandas()
        rows = {}
        for label, trace, prof in (
            ("a", self.a, self._profiles[0]),
            ("b", self.b, self._profiles[1]),
        ):
            procs = prof.process_rows
            rows[label] = {
                "processes": float(trace.process_count),
                "time": float(trace.duration),
                "computation": float(prof.computation()[procs].sum()),
                "mpi": float(prof.communication()[procs].sum()),
                "computation per rank": float(prof.computation()[procs].mean())
                if len(procs)
                else 0.0,
                "mpi per rank": float(prof.communication()[procs].mean()) if len(procs) else 0.0,
            }
        frame = pd.DataFrame(rows)
        frame["change"] = frame["b"] - frame["a"]
        frame["ratio"] = np.where(
            frame["a"] != 0, frame["b"] / frame["a"].where(frame["a"] != 0, 1), np.nan
        )
        frame.index.name = "quantity"
        return frame

    def regions(self) -> Any:
        """Exclusive seconds per region (summed over ranks), matched by name and source line."""
        pd = pandas()

        def rows(prof: Profile) -> Any:
            procs = prof.process_rows
            excl = prof.exclusive[procs].sum(axis=0) if len(procs) else prof.exclusive.sum(0)
            regions = prof.trace.regions
            keys = []
            for i, name in enumerate(prof.region_names):
                r = regions[i] if i < len(regions) else None
                where = (
                    f" ({os.path.basename(r.file)}:{r.line_begin})"
                    if r is not None and r.file and r.function is None
                    else ""
                )
                keys.append(f"{name}{where}")
            return pd.DataFrame({"region": keys, "seconds": excl})

        a, b = (rows(p) for p in self._profiles)
        return _side_by_side(a, b, "region", "seconds")

    def activities(self) -> Any:
        """Exclusive seconds per activity (MPI call by call site, computation between sites)."""
        pd = pandas()

        def rows(trace: Trace) -> Any:
            raw = _analysis(trace)
            labels = _Activities(trace, raw.activities).label
            t = raw.time
            return pd.DataFrame(
                {
                    "activity": [_label_key(labels[int(i)]) for i in t["activity"]],
                    "seconds": t["ns"] * 1e-9,
                }
            )

        return _side_by_side(rows(self.a), rows(self.b), "activity", "seconds")

    def patterns(self) -> Any:
        """Seconds lost per pattern (the scanner's defaults), largest changes first."""
        pd = pandas()

        def rows(trace: Trace) -> Any:
            table = scan(trace).by_pattern()
            return pd.DataFrame({"pattern": table["pattern"], "seconds": table["total"]})

        return _side_by_side(rows(self.a), rows(self.b), "pattern", "seconds")

    def intervals(self) -> Any:
        """Return execution time per interval (markers, Pcontrol phases, user regions), by path."""
        pd = pandas()

        def rows(trace: Trace) -> Any:
            tree = trace.intervals(record_executions=False)
            items = [(iv.path, iv.execution_time) for iv in tree if iv.level > 0]
            return pd.DataFrame(items or [("", 0.0)], columns=["interval", "seconds"])

        frame = _side_by_side(rows(self.a), rows(self.b), "interval", "seconds")
        return frame.drop(index="", errors="ignore")

    @cached_property
    def _pop(self) -> tuple[PopMetrics, PopMetrics]:
        return (
            PopMetrics(self.a, transfer=self._pop_transfer),
            PopMetrics(self.b, transfer=self._pop_transfer),
        )

    def pop(self) -> Any:
        """POP metrics of both runs (transfer and serialisation only with pop_transfer=True)."""
        pd = pandas()
        a, b = self._pop
        keys = [k for k in a.metrics if not np.isnan(a.metrics[k]) or not np.isnan(b.metrics[k])]
        frame = pd.DataFrame(
            {"a": [a.metrics[k] for k in keys], "b": [b.metrics[k] for k in keys]},
            index=pd.Index(keys, name="metric"),
        )
        frame["change"] = frame["b"] - frame["a"]
        frame["ratio"] = frame["b"] / frame["a"]
        return frame.reindex(
            frame["change"].abs().sort_values(ascending=False, kind="stable").index
        )

    def table(self, sections: tuple[str, ...] = SECTIONS) -> Any:
        """Every section in one long table: section, item, a, b, change, ratio."""
        pd = pandas()
        unknown = [s for s in sections if s not in SECTIONS]
        if unknown:
            raise UsageError(f"compare: unknown section(s) {unknown}; choose from {SECTIONS}")
        parts = []
        tables = {
            "run": self.run,
            "region": self.regions,
            "activity": self.activities,
            "pattern": self.patterns,
            "interval": self.intervals,
            "pop": self.pop,
        }
        for section in sections:
            frame = tables[section]()[["a", "b", "change", "ratio"]].copy()
            frame.insert(0, "item", frame.index.astype(str))
            frame.insert(0, "section", section)
            parts.append(frame.reset_index(drop=True))
        return pd.concat(parts, ignore_index=True)

    def to_pandas(self) -> Any:
        """Return the long table (:meth:`table`)."""
        return self.table()

    def to_dict(self, top: int = 20) -> dict[str, Any]:
        """Return the sections as plain data (each limited to its `top` largest changes)."""
        out: dict[str, Any] = {"a": self.names[0], "b": self.names[1]}
        for section in SECTIONS:
            frame = self.table((section,)).head(top)
            out[section] = [
                {
                    k: (None if isinstance(v, float) and not np.isfinite(v) else v)
                    for k, v in row.items()
                    if k != "section"
                }
                for row in frame.to_dict(orient="records")
            ]
        return out

    def to_json(self, path: str | os.PathLike[str] | None = None, top: int = 20) -> str:
        """:meth:`to_dict` as JSON (written to ``path`` when given)."""
        text = json.dumps(self.to_dict(top), indent=1, default=float)
        if path is not None:
            with open(path, "w", encoding="utf-8") as out:
                out.write(text)
        return text

    def to_csv(self, path: str | os.PathLike[str] | None = None) -> str:
        """Return the long table as CSV."""
        text = self.table().to_csv(index=False)
        if path is not None:
            with open(path, "w", encoding="utf-8") as out:
                out.write(text)
        return text

    def report(self, top: int = 8) -> str:
        """Text: the run figures, then the largest changes of each section."""
        lines = [f"compare a = {self.names[0]}", f"        b = {self.names[1]}", ""]
        for section in SECTIONS:
            frame = self.table((section,)).head(top if section != "run" else 20)
            if frame.empty:
                continue
            lines.append(f"{section}:")
            for _, row in frame.iterrows():
                ratio = "" if not np.isfinite(row["ratio"]) else f"x{row['ratio']:.3g}"
                lines.append(
                    f"  {str(row['item'])[:64]:<64} {row['a']:>11.4g} {row['b']:>11.4g} "
                    f"{row['change']:>+11.4g} {ratio:>8}"
                )
            lines.append("")
        return "\n".join(lines).rstrip()

    def plot(self, section: str = "activity", top: int = 10, ax: Any = None) -> Any:
        """Bars of a section's largest changes (b - a); returns the figure."""
        import matplotlib.pyplot as plt

        frame = self.table((section,)).head(top).iloc[::-1]
        if ax is None:
            fig, ax = plt.subplots(figsize=(8, 0.4 * len(frame) + 1.2))
        else:
            fig = ax.figure
        ax.barh(range(len(frame)), frame["change"])
        ax.set_yticks(range(len(frame)))
        ax.set_yticklabels([str(s)[:60] for s in frame["item"]], fontsize=7)
        ax.axvline(0, color="black", lw=0.8)
        ax.set_xlabel("b - a")
        ax.set_title(f"largest changes per {section}")
        fig.tight_layout()
        return fig

    def __repr__(self) -> str:
        ta, tb = self.a.duration, self.b.duration
        change = f"{tb / ta - 1:+.1%}" if ta > 0 else ""
        return f"<Comparison a {ta:.6g} s, b {tb:.6g} s ({change})>"


def compare(a: Any, b: Any, *, pop_transfer: bool = False) -> Comparison:
    """Compare two runs (traces, OTF2 paths, predictions or replays); returns a :class:`Comparison`.

    ``pop_transfer=True`` adds transfer and serialisation efficiency (two ideal replays).
    """
    ta = _trace_of(a, "a")
    tb = _trace_of(b, "b")
    names = tuple(
        str(t.metadata.get("path") or "") or type(x).__name__ for t, x in ((ta, a), (tb, b))
    )
    return Comparison(ta, tb, (names[0], names[1]), pop_transfer)


__all__ = ["SECTIONS", "Comparison", "compare"]
