"""What the scan's reports read of the findings, gathered a block of rows at a time.

The text and HTML reports, the metric tree, the JSON report's per-pattern totals and
``--fail-on`` read aggregates over every finding, not the findings themselves: per pattern,
call site, call and location the lost time and the occurrences, and the few worst
occurrences. :class:`FindingsSummary` gathers them from blocks of rows given in the findings'
order, and :class:`JsonWriter` writes the JSON report a block at a time, so a parallel scan's
rank 0 makes every report from the merged blocks as they come, without holding the findings
(``parallel.scan_write``), and a serial report comes from the same code.

Lost time is summed as integer nanoseconds, which is exact: the sums do not depend on how the
rows are split into blocks or ranks (sums of seconds as floats would, in their last bits).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, TextIO

import numpy as np

if TYPE_CHECKING:
    from .scan import Findings, PatternInfo

# Rows a serial report reads at a time (the report's columns of a block, ~60 B a row).
SUMMARY_BLOCK = 1 << 16


def seconds(ns: int) -> float:
    """Seconds of a sum of nanoseconds, correctly rounded (``ns * 1e-9`` rounds twice)."""
    return int(ns) / 1e9


def plain(value: Any) -> Any:
    """Return a row's value as JSON and CSV write it: a Python scalar, NaN as None."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def chosen_patterns(
    table: Sequence[PatternInfo], pattern: str | None, inclusive: bool = False
) -> list[int]:
    """Ids of the patterns `pattern` selects (key, code or family; None: all).

    ``inclusive`` leaves out a pattern whose time is part of another selected one (Scalasca's
    Wrong Order inside Late Sender), so a total does not count it twice.
    """
    from ._core_loader import load_core

    ids = [p.id for p in table] if pattern is None else load_core().select_patterns([pattern])
    selected = [table[i] for i in ids]
    names = {p.name for p in selected}
    return [
        p.id
        for p in selected
        if not (inclusive and p.part_of_parent and _parent_pattern(table, p) in names)
    ]


def _parent_pattern(table: Sequence[PatternInfo], p: PatternInfo) -> str:
    """Name the pattern whose time includes `p`'s (the deepest tree group that is one)."""
    for segment in reversed(p.tree_group.split("/")):
        if segment and segment != p.name:
            if any(q.name == segment for q in table):
                return segment
    return ""


class PatternTotals:
    """Occurrences and lost nanoseconds per pattern id: what ``count`` and ``total`` read.

    Sums over the ranks' rows add up exactly (integers), so a parallel scan reduces them
    before its rows are merged.
    """

    def __init__(self, table: Sequence[PatternInfo], counts: np.ndarray, ns: np.ndarray) -> None:
        self.table = table
        self.counts = np.asarray(counts, dtype=np.int64)
        self.ns = np.asarray(ns, dtype=np.int64)

    @classmethod
    def of_rows(cls, table: Sequence[PatternInfo], raw: np.ndarray) -> PatternTotals:
        """Count and sum the finding rows `raw` (the structured rows of ``Findings.raw``)."""
        ids = raw["pattern"].astype(np.intp)
        counts = np.bincount(ids, minlength=len(table)).astype(np.int64)
        ns = np.zeros(len(table), dtype=np.int64)
        np.add.at(ns, ids, raw["idle"].astype(np.int64))
        return cls(table, counts, ns)

    def __len__(self) -> int:
        return int(self.counts.sum())

    def present(self) -> list[int]:
        """Ids of the patterns that occur."""
        return [int(i) for i in np.flatnonzero(self.counts)]

    def count(self, pattern: str | None = None) -> int:
        """Occurrences of `pattern` (key, code or family; None: all)."""
        return int(self.counts[chosen_patterns(self.table, pattern)].sum())

    def total(self, pattern: str | None = None) -> float:
        """Seconds lost in `pattern` (as :meth:`parjava.Findings.total`)."""
        return seconds(int(self.ns[chosen_patterns(self.table, pattern, True)].sum()))


class FindingsSummary:
    """The aggregates the reports read, gathered from blocks of rows in the findings' order.

    Per (pattern, call site, call, rank, thread): lost nanoseconds, occurrences, the first
    row's index and its file and line (the groups are few next to the rows); and the ``top``
    worst occurrences by lost time (ties: the earlier row), their diagnoses formatted when
    they enter the list.
    """

    def __init__(self, table: Sequence[PatternInfo], top: int) -> None:
        self.table = table
        self.top = max(int(top), 0)
        self.rows = 0
        # key -> [ns, occurrences, first row, file, line]
        self.groups: dict[tuple[int, str, str, int, int], list[Any]] = {}
        self._worst = np.zeros(0, dtype=[(n, np.int64) for n in _WORST_FIELDS])
        self._worst_texts: list[str] = []

    @classmethod
    def of(cls, findings: Findings, top: int) -> FindingsSummary:
        """Summarize every row of `findings`, a block at a time."""
        summary = cls(findings._patterns, top)
        for start in range(0, len(findings), SUMMARY_BLOCK):
            summary.add(findings, start, min(start + SUMMARY_BLOCK, len(findings)))
        return summary

    def add(self, findings: Findings, start: int = 0, stop: int | None = None) -> None:
        """Add the rows ``start:stop`` of `findings`, the next ones in the findings' order."""
        raw = findings.raw[start:stop]
        n = len(raw)
        if n == 0:
            return
        columns = dict(
            findings._columns(["callsite", "file", "line", "call", "rank", "thread"], start, stop)
        )
        site_texts, sites = columns["callsite"]
        file_texts, files = columns["file"]
        call_texts, calls = columns["call"]
        lines = columns["line"]
        ns = raw["idle"].astype(np.int64)
        # Grouped by sorting the keys (NumPy only: pandas would add 40 MB to the process).
        keys = np.stack([raw["pattern"], sites, calls, columns["rank"], columns["thread"]]).astype(
            np.int64
        )
        order = np.lexsort(keys[::-1])
        ordered = keys[:, order]
        starts = np.flatnonzero(np.concatenate([[True], (np.diff(ordered, axis=1) != 0).any(0)]))
        sums = np.add.reduceat(ns[order], starts).tolist()
        counts = np.diff(np.append(starts, n)).tolist()
        firsts = np.minimum.reduceat(order, starts).tolist()
        for at, total, count, first in zip(starts.tolist(), sums, counts, firsts):
            pid, site, call, rank, thread = ordered[:, at].tolist()
            name = (pid, str(site_texts[site]), str(call_texts[call]), rank, thread)
            entry = self.groups.get(name)
            if entry is None:
                where = str(file_texts[files[first]]), int(lines[first])
                self.groups[name] = [total, count, self.rows + first, *where]
            else:
                entry[0] += total
                entry[1] += count
        if self.top:
            self._add_worst(findings, raw, start, ns)
        self.rows += n

    def _add_worst(self, findings: Findings, raw: np.ndarray, start: int, ns: np.ndarray) -> None:
        key = -np.abs(ns)
        order = np.argsort(key, kind="stable")[: self.top]  # ties: the earlier row first
        candidates = np.zeros(len(order), dtype=self._worst.dtype)
        candidates["key"] = key[order]
        candidates["row"] = self.rows + order
        candidates["time"] = raw["time"][order]
        candidates["idle"] = ns[order]
        candidates["distance"] = raw["optimal_distance"][order]
        both = np.concatenate([self._worst, candidates])
        # Stable: the kept rows come before this block's, and were earlier rows.
        keep = np.argsort(both["key"], kind="stable")[: self.top]
        old = len(self._worst)
        new_rows = [int(start + order[i - old]) for i in keep if i >= old]
        texts = iter(findings.diagnoses.rows(new_rows))
        self._worst_texts = [self._worst_texts[i] if i < old else next(texts) for i in keep]
        self._worst = both[keep]

    def totals(self) -> PatternTotals:
        """Occurrences and lost time per pattern."""
        counts = np.zeros(len(self.table), dtype=np.int64)
        ns = np.zeros(len(self.table), dtype=np.int64)
        for (pid, *_), (total, count, *_) in self.groups.items():
            counts[pid] += count
            ns[pid] += total
        return PatternTotals(self.table, counts, ns)

    def call_sites(self) -> list[dict[str, Any]]:
        """Per pattern, call site and call: lost time, occurrences and ranks, worst first.

        Ties keep the order in which the call sites first occur.
        """
        sites: dict[tuple[int, str, str], dict[str, Any]] = {}
        for (pid, site, call, rank, _), (total, count, _, file, line) in sorted(
            self.groups.items(), key=lambda item: item[1][2]
        ):
            entry = sites.get((pid, site, call))
            if entry is None:
                p = self.table[pid]
                entry = sites[(pid, site, call)] = {
                    "pattern": p.key,
                    "code": p.code,
                    "name": p.name,
                    "callsite": site,
                    "call": call,
                    "file": file,
                    "line": line,
                    "ns": 0,
                    "occurrences": 0,
                    "ranks": set(),
                }
            entry["ns"] += total
            entry["occurrences"] += count
            entry["ranks"].add(rank)
        out = sorted(sites.values(), key=lambda g: -g["ns"])
        for g in out:
            g["total"] = seconds(g.pop("ns"))
        return out

    def worst(self) -> list[tuple[float, float, int, str]]:
        """Return the worst occurrences: (time s, lost s, O_D ns (< 0: none), diagnosis)."""
        return [
            (int(w["time"]) * 1e-9, int(w["idle"]) * 1e-9, int(w["distance"]), text)
            for w, text in zip(self._worst, self._worst_texts)
        ]


_WORST_FIELDS = ("key", "row", "time", "idle", "distance")


class JsonWriter:
    """Write :meth:`parjava.Findings.to_json`'s text a block of findings at a time.

    The document is ``json.dumps(head + {"findings": [...]}, indent=1)``; each block's
    occurrences are dumped alike and indented one level deeper, which gives the same bytes.
    """

    _OPTIONS: ClassVar[dict[str, Any]] = {"indent": 1, "allow_nan": False, "default": str}
    BLOCK = 1024

    def __init__(self, out: TextIO, head: dict[str, Any]) -> None:
        self._out = out
        self._written = 0
        text = json.dumps({**head, "findings": []}, **self._OPTIONS)
        end = "[]\n}"
        assert text.endswith(end)
        out.write(text[: -len(end)] + "[")

    def add(self, findings: Findings, start: int, stop: int) -> None:
        """Write the occurrences ``start:stop`` of `findings`, the next ones in order."""
        # A few rows at a time: a row is about 1.5 KB as Python objects and text.
        for first in range(start, stop, self.BLOCK):
            last = min(first + self.BLOCK, stop)
            a = findings._array(first, last)
            names = list(a.dtype.names or ())
            rows = [
                {**{n: plain(row[n]) for n in names}, "diagnosis": diagnosis}
                for row, diagnosis in zip(a, findings.diagnoses.rows(range(first, last)))
            ]
            text = json.dumps(rows, **self._OPTIONS)  # "[\n {...},\n {...}\n]"
            self._out.write(("," if self._written else "") + text[1:-2].replace("\n", "\n "))
            self._written += len(rows)

    def close(self) -> None:
        """End the list and the document."""
        self._out.write("\n ]\n}" if self._written else "]\n}")
