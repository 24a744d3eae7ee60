"""Loops ended by a data test the model drops (issue 13, predictions that are right or say why).

`for (k = 1; k <= max_iter && normr > tolerance; ++k)`: the builder keeps the computed part of
the condition so that the loop scales with its inputs (`cycle < its` of a time step loop), and
warns that it assumes the data test (`normr > tolerance`) does not end the loop earlier. A CG
solve that converges does: miniFE at 30^3 stops after 100 of 200 iterations, and its model
predicted +71 % on its own estimation run. After the estimation, the model re-predicts that run
and compares the executions of the loop's measured fragments with the run's; where the run did
fewer, the data test ended the loop, and the model caps the loop at the count the run reached
(`trips_cap`: every entry at most that many, the computed condition still applying). A time
step loop that its count ended keeps scaling with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_SHORTER = 0.95  # the run did fewer than this share of the model's iterations
_ASSUMED = "is assumed not to end it earlier"


def _loop_nodes(model: Any) -> list[dict[str, Any]]:
    """Return the loops whose dropped data test the builder warned about (by file and line)."""
    files = model.files
    wanted = {
        (d.file, d.line)
        for d in model.diagnostics
        if d.kind == "approximation" and _ASSUMED in d.message and d.line
    }
    out = []
    for n in model.nodes():
        src = n.get("source") or {}
        if n.get("kind") not in ("for", "while"):
            continue
        index = src.get("file")
        if isinstance(index, int) and 0 <= index < len(files):
            if (files[index], int(src.get("line", 0))) in wanted and "trips_cap" not in n:
                out.append(n)
    return out


def _descendants(nodes: Mapping[int, dict[str, Any]], root: dict[str, Any]) -> list[int]:
    out: list[int] = []
    stack = list(root.get("children", []))
    while stack:
        c = stack.pop()
        out.append(c)
        stack.extend(nodes.get(c, {}).get("children", []))
    return out


def cap_data_exits(
    model: Any,
    np: int,
    params: Mapping[str, int | float],
    summary: Mapping[str, Any],
    machine: Any,
) -> list[str]:
    """Cap the loops the run ended by their data test; return one message per capped loop."""
    loops = _loop_nodes(model)
    if not loops:
        return []
    from .machine import Machine
    from .prediction import interpret

    machine = machine if machine is not None else Machine.preset("shared-memory")
    try:
        pred = interpret(model, machine, np=np, params=dict(params))
    except Exception:  # the self-check that follows reports a model that cannot run
        return []
    rows = {r["id"]: r for r in pred.nodes(np)}
    measured = {int(n["node"]): float(n["executions"]) for n in summary.get("nodes", [])}
    nodes = {n["id"]: n for n in model.nodes()}
    messages = []
    for loop in loops:
        entries = float(rows.get(loop["id"], {}).get("freq", 0.0))
        body = loop.get("children", [])
        if entries <= 0 or not body:
            continue
        run = model_count = 0.0
        for d in _descendants(nodes, loop):
            if d in measured and d in rows and rows[d]["freq"] > 0:
                run += measured[d]
                model_count += float(rows[d]["freq"])
        if model_count <= 0 or run >= _SHORTER * model_count:
            continue
        per_entry = float(rows.get(body[0], {}).get("freq", 0.0)) / entries
        trips = max(1, round(per_entry * run / model_count))
        for n in model._doc["nodes"]:
            if n["id"] == loop["id"]:
                n["trips_cap"] = int(trips)
        src = loop.get("source") or {}
        messages.append(
            f"loop '{loop.get('label', '')}' (line {src.get('line', '?')}) ended by its data "
            f"test in the estimation run after about {trips} iterations where its computed "
            f"bound allows {per_entry:.0f}: the model caps it at {trips} per entry (at another "
            "input the data test may end it elsewhere)"
        )
    if messages:
        model._changed()
    return messages
