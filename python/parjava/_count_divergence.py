"""Where a model's execution counts part from its estimation run's (issue 13, self-check).

A fragment that runs 8 times in the model and 271 times in the run says that some loop, branch
or call above it decides differently, not which one: on LLNL/AMG the nearest opaque guard it
named was four calls below the place where the counts parted, and calls carry no measured
executions of their own. The probes do measure the blocks beside them, and every statement of
a sequence runs as often as its first one, so a sequence's count in the run is that of its
measured statements. Walking up from the fragment, through the callers when a function's own
statements already disagree, the first sequence whose count agrees with the model's bounds the
parting from above; the loops, branches and calls between it and the fragment's nearest
disagreeing level are where the counts part.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

_CONTROL = {"for", "while", "do-while", "if", "if-else", "switch", "ufc", "task_group"}
_AGREE = 0.05  # relative difference under which two counts are the same count


@dataclass
class Parting:
    """The place where a fragment's counts part, with the counts on either side."""

    nodes: list[int]  # control nodes between the agreeing level and the disagreeing one
    agree_node: int  # the innermost enclosing level whose counts agree (0: none found)
    agree_count: float  # its executions (run = model)
    below_node: int  # the level just under the parting (a sequence or the fragment)
    below_run: float  # its executions in the run
    below_model: float  # and in the model
    functions: list[str]  # functions crossed upward (callee first)


def children_of(node: Mapping[str, Any]) -> list[int]:
    """Return the ids of a model node's children (any of its child keys, switch cases too)."""
    out: list[int] = []
    for key in ("children", "body", "then", "else"):
        value = node.get(key)
        if isinstance(value, list):
            out.extend(int(c) for c in value)
        elif isinstance(value, int):
            out.append(value)
    for case in node.get("cases", []) or []:
        body = case.get("body")
        if isinstance(body, list):
            out.extend(int(c) for c in body)
    return out


class CountWalk:
    """The model's structure with measured and predicted executions per node."""

    def __init__(
        self,
        doc: Mapping[str, Any],
        measured: Mapping[int, float],
        predicted: Mapping[int, float],
        parents: Mapping[int, int],
        counters: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        self.nodes = {int(n["id"]): n for n in doc.get("nodes", [])}
        # Timed probes' executions, and what the counters say: a loop's entries and its body's
        # iterations, a branch's evaluations and each side's outcomes.
        self.measured = dict(measured)
        for c in counters:
            node = int(c["node"])
            n = self.nodes.get(node)
            if n is None or node in self.measured:
                continue
            runs, outcomes = float(c["executions"]), float(c["outcomes"])
            self.measured[node] = runs
            kids = children_of(n)
            if c.get("kind") == "trips" and kids:
                self.measured.setdefault(kids[0], outcomes)
            elif c.get("kind") == "branch" and kids:
                self.measured.setdefault(kids[0], outcomes)
                if len(kids) > 1:
                    self.measured.setdefault(kids[1], max(0.0, runs - outcomes))
        self.predicted = predicted
        self.parents = parents
        self.root_of: dict[int, str] = {}
        self.body_of: dict[str, int] = {}
        for f in doc.get("functions", []):
            self.root_of[int(f["body"])] = str(f["name"])
            self.body_of[str(f["name"])] = int(f["body"])
        self._memo: dict[int, float | None] = {}
        self.callers: dict[str, list[int]] = {}
        for n in self.nodes.values():
            if n.get("kind") == "ufc" and n.get("callee"):
                self.callers.setdefault(str(n["callee"]), []).append(int(n["id"]))

    def run_count(self, node: int) -> float | None:
        """Return the executions of ``node`` in the run, or None when nothing measured says.

        Its own probe's; a sequence's are those of its measured statements; a statement's are
        its sequence's; a call's are its callee's when the model calls that function from
        nowhere else (the callee's own statements measured its entries).
        """
        if node in self._memo:
            return self._memo[node]
        self._memo[node] = None  # a cycle (recursion) measures nothing
        found = self._run_count(node)
        self._memo[node] = found
        return found

    def _run_count(self, node: int) -> float | None:
        if node in self.measured:
            return self.measured[node]
        n = self.nodes.get(node)
        if n is None:
            return None
        kind = n.get("kind")
        if kind == "seq":
            level = [
                m
                for c in children_of(n)
                if (c in self.measured or self.nodes.get(c, {}).get("kind") == "ufc")
                and (m := self._own_count(c)) is not None
            ]
            return max(level) if level else None
        own = self._own_count(node) if kind == "ufc" else None
        if own is not None:
            return own
        parent = self.parents.get(node)
        if parent is not None and self.nodes.get(parent, {}).get("kind") == "seq":
            return self.run_count(parent)
        return None

    def _own_count(self, node: int) -> float | None:
        """Return what ``node`` itself measured (a call: its only callee's entries)."""
        if node in self.measured:
            return self.measured[node]
        n = self.nodes.get(node, {})
        callee = str(n.get("callee") or "")
        if n.get("kind") != "ufc" or len(self.callers.get(callee, [])) != 1:
            return None
        root = self.body_of.get(callee)
        return self.run_count(root) if root is not None else None

    def model_count(self, node: int) -> float:
        return float(self.predicted.get(node, 0.0))

    def parting(self, fragment: int, limit: int = 400) -> Parting | None:
        """Where the counts of ``fragment`` part from the run's, or None when they do not."""
        m0, p0 = self.run_count(fragment), self.model_count(fragment)
        if m0 is None or _same(m0, p0):
            return None
        below, below_m, below_p = fragment, m0, p0
        between: list[int] = []
        functions: list[str] = []
        cur = fragment
        for _ in range(limit):
            parent = self.parents.get(cur)
            if parent is None:
                name = self.root_of.get(cur)
                caller = self._caller(name) if name else None
                if caller is None:
                    break
                functions.append(str(name))
                parent = caller
            cur = parent
            kind = self.nodes.get(cur, {}).get("kind")
            m, p = self.run_count(cur), self.model_count(cur)
            if m is not None and m > 0 and _same(m, p):
                # A loop or branch entered as often in both decides itself: its trips or its
                # outcome are where the counts part.
                if kind in _CONTROL and kind != "ufc":
                    between.append(cur)
                return Parting(between, cur, m, below, below_m, below_p, functions)
            if kind in _CONTROL:
                between.append(cur)
            if m is not None:  # still disagreeing: the parting is higher up
                below, below_m, below_p = cur, m, p
                between = []
        return Parting(between, 0, 0.0, below, below_m, below_p, functions)

    def _caller(self, name: str) -> int | None:
        """Return the call of ``name`` the run took whose counts differ most from the model's.

        A call beside measured statements has their count; one the run never took (0) cannot
        be where the counts part, and one with no measured neighbour is taken only when no
        measured one is left, from the function whose own statements ran most.
        """
        best, key = None, (-1, -1.0)
        for c in self.callers.get(name, []):
            m, p = self.run_count(c), self.model_count(c)
            if m is not None:
                rank = (2, abs(m - p)) if m > 0 else (0, 0.0)
            else:
                entries = self.run_count(self._root(c))
                rank = (1, entries if entries is not None else 0.0)
            if rank > key:
                best, key = c, rank
        return best if key[0] > 0 else None

    def _root(self, node: int) -> int:
        while node in self.parents:
            node = self.parents[node]
        return node

    def describe(self, part: Parting, files: Sequence[str]) -> str:
        """One sentence: where the counts part and what decides there."""

        def where(node: int) -> str:
            n = self.nodes.get(node, {})
            src = n.get("source", {}) or {}
            f = src.get("file")
            name = files[f] if isinstance(f, int) and 0 <= f < len(files) else ""
            line = src.get("line")
            place = f"{name.rsplit('/', 1)[-1]}:{line}" if name and line else f"line {line}"
            return f"'{_label(n)}' ({place})"

        def decides(node: int) -> str:
            n = self.nodes.get(node, {})
            opaque = n.get("opaque")
            if isinstance(opaque, dict) and "probability" in opaque:
                return f"opaque, taken with the measured probability {opaque['probability']:.2g}"
            if isinstance(opaque, dict) and "trips" in opaque:
                return "opaque, its measured trip counts"
            if opaque:
                return "opaque: measured statistics"
            if n.get("kind") == "ufc":
                return f"calls {n.get('callee')}"
            cond = n.get("cond")
            return f"condition '{str(cond)[:60]}'" if cond else str(n.get("kind"))

        counts = (
            f"{part.below_model:.0f} times in the model against {part.below_run:.0f} in the run"
        )
        via = f" (through {', '.join(part.functions[:3])})" if part.functions else ""
        if part.agree_node == 0:
            return f"counts differ up to the program's entry: {counts}{via}"
        suspects = [n for n in part.nodes if self.nodes.get(n, {}).get("kind") != "ufc"]
        suspects = suspects or part.nodes
        if suspects and suspects[-1] == part.agree_node:
            # The loop or branch reached as often in both decides differently itself.
            inner = "".join(f"; then {where(n)}, {decides(n)}" for n in suspects[:-1][:2])
            return (
                f"counts part at {where(part.agree_node)}, reached {part.agree_count:.0f} times "
                f"in both, {decides(part.agree_node)}{inner}: {counts}{via}"
            )
        named = "; ".join(f"{where(n)}, {decides(n)}" for n in suspects[:3])
        return (
            f"counts part below {where(part.agree_node)}, which runs {part.agree_count:.0f} "
            f"times in both, at {named or 'a statement the model does not show'}: {counts}{via}"
        )


def _label(node: Mapping[str, Any]) -> str:
    label = str(node.get("label") or node.get("callee") or node.get("kind") or "")
    return label if len(label) <= 50 else label[:47] + "..."


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= _AGREE * max(abs(a), abs(b), 1.0)
