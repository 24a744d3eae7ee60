"""Honesty check of predictions away from the input that capped a loop (issue 13).

The estimation caps a loop its data test ended early (`_data_exits.py`: miniFE's CG stops after
100 of `max_iter` = 200 iterations at 30^3) at the count the run reached. That count belongs to
the estimation's input and process count; a prediction at another one keeps it and says so.
So does a loop left by a `break` under a test whose outcomes the model replays in the run's
order (`taken_cycle`: miniVite's Louvain loop ends after the 14th round, when the modularity
stops improving): it ends where the estimation run's did. And so does a loop left by a `break`
or `return` under a test decided by its measured frequency (UoB-HPC/hot's CG, `for (ii = 0; ii <
max_inners; ++ii) { ... if (fabs(global_new_r2) < EPS) break; }`: 152 iterations per solve on
average at 256^2; at 512^2 the run needs 239-444 and the prediction, keeping 152, was 62-68 %
too fast without a word).
"""

from __future__ import annotations

from typing import Any

from ._node_places import where

_SHARE = 0.02  # warn when capped loops carry at least this share of the predicted time


def capped_loops_warning(prediction: Any, np: int) -> str | None:
    """Return the warning for a run away from the input whose count capped a loop, or None.

    A cap is the count the estimation input's data test ended the loop at. At another np or
    with other inputs (a larger grid, a tighter tolerance) a convergence test may end it after
    more or fewer iterations, and the prediction keeps the estimation's count: say so, with the
    loops, their lines and their share of the predicted time (issue 13, never silently wrong).
    """
    model = prediction.model
    if model is None:
        return None
    nodes = {n["id"]: n for n in model.nodes()}
    capped = [n for n in nodes.values() if "trips_cap" in n]
    counts = {n["id"]: int(n["trips_cap"]) for n in capped}
    for loop, count in _replayed_exits(nodes).items():
        if loop not in counts:
            capped.append(nodes[loop])
            counts[loop] = count
    rows = {r["id"]: r for r in prediction.nodes(np)}
    for loop in _frequency_exits(nodes):
        if loop not in counts:
            capped.append(nodes[loop])
            counts[loop] = _per_entry(nodes[loop], rows)
    if not capped:
        return None
    check = model.self_check or {}
    changed = []
    if "np" in check and int(check["np"]) != np:
        changed.append(f"np={np} (estimated at np={check['np']})")
    given = prediction._options.get("params") or {}
    for name, raw in model._doc.get("parameters", {}).items():
        value = raw.get("value") if isinstance(raw, dict) else raw
        if name in given and given[name] != value:
            changed.append(f"{name}={given[name]} (estimated at {value})")
    if not changed:
        return None
    bodies = {f["body"] for f in model._doc["functions"]}
    total = max((r["time"] for i, r in rows.items() if i in bodies), default=0.0)
    share = _outermost_share(capped, nodes, rows)
    if total <= 0 or share / total < _SHARE:
        return None
    files = model.files

    # The loops that take the time, largest first (a parameter file's search loop is one too).
    timed = sorted(capped, key=lambda n: -float(rows.get(n["id"], {}).get("time", 0.0)))
    shown = [n for n in timed if float(rows.get(n["id"], {}).get("time", 0.0)) >= 0.01 * total]
    shown = shown[:3] or timed[:1]
    loops = ", ".join(
        f"'{n.get('label', '')}' ({where(files, n)}) at {counts[n['id']]}" for n in shown
    )
    more = f" and {len(capped) - len(shown)} more" if len(capped) > len(shown) else ""
    return (
        f"{100 * min(share / total, 1.0):.0f}% of the predicted time at np={np} is in loop(s) "
        f"ended after the iterations per entry their data test ended them at in the estimation "
        f"run ({loops}{more}); this prediction differs from that run in {', '.join(changed[:4])}"
        f"{' and more' if len(changed) > 4 else ''}, where the test (a convergence check) may "
        "end them after more or fewer iterations: estimate at this input to measure them"
    )


def _replayed_exits(nodes: dict[int, dict[str, Any]]) -> dict[int, int]:
    """Return the loops left by a break under an `if` whose outcomes are replayed.

    With each, the iterations after which the replayed outcomes first take the break.
    """
    out: dict[int, int] = {}
    for n in nodes.values():
        cycle = n.get("taken_cycle")
        if n.get("kind") not in ("if", "if-else") or not cycle or 1 not in cycle:
            continue
        # The if's own branch only (its first child): a break there leaves the loop.
        stack = list(n.get("children", [])[:1])
        while stack:
            c = nodes.get(stack.pop(), {})
            if c.get("kind") == "break" and c.get("target") in nodes:
                target = nodes[c["target"]]
                if target.get("kind") in ("for", "while", "do-while"):
                    out.setdefault(target["id"], cycle.index(1) + 1)
            elif c.get("kind") not in ("for", "while", "do-while"):
                stack.extend(c.get("children", []))
    return out


def _frequency_exits(nodes: dict[int, dict[str, Any]]) -> list[int]:
    """Return the loops a `break` or `return` leaves under an opaque test of measured frequency.

    The test took the exit in the estimation run (probability > 0), so the data decided how
    many iterations each entry ran; the model keeps that count on average at any input.
    """
    parents = {c: n["id"] for n in nodes.values() for c in n.get("children", [])}
    out: list[int] = []
    for n in nodes.values():
        opaque = n.get("opaque")
        if n.get("kind") not in ("if", "if-else") or not isinstance(opaque, dict):
            continue
        if float(opaque.get("probability", 0.0)) <= 0.0 or n.get("taken_cycle"):
            continue
        for kind, target in _exits(nodes, n):
            loop = target if kind == "break" else _enclosing_loop(nodes, parents, n["id"])
            if loop is not None and loop not in out:
                out.append(loop)
    return out


def _exits(nodes: dict[int, dict[str, Any]], test: dict[str, Any]) -> list[tuple[str, int]]:
    """Return the `break`s (with the loop they leave) and `ret`s in a test's taken branch."""
    out = []
    stack = list(test.get("children", [])[:1])
    while stack:
        c = nodes.get(stack.pop(), {})
        kind = c.get("kind")
        if kind == "break" and nodes.get(c.get("target"), {}).get("kind") in _LOOPS:
            out.append(("break", int(c["target"])))
        elif kind == "ret":
            out.append(("ret", -1))
        elif kind not in _LOOPS:
            stack.extend(c.get("children", []))
    return out


_LOOPS = ("for", "while", "do-while")


def _enclosing_loop(
    nodes: dict[int, dict[str, Any]], parents: dict[int, int], node: int
) -> int | None:
    """Return the innermost loop of the function around ``node``, or None."""
    while node in parents:
        node = parents[node]
        if nodes.get(node, {}).get("kind") in _LOOPS:
            return node
    return None


def _per_entry(loop: dict[str, Any], rows: dict[int, Any]) -> str:
    """Return the iterations per entry the prediction ran a loop, as text ('about 152')."""
    body = (loop.get("children") or [None])[0]
    entries = float(rows.get(loop["id"], {}).get("freq", 0.0))
    iterations = float(rows.get(body, {}).get("freq", 0.0)) if body is not None else 0.0
    if entries <= 0:
        return "the estimation run's count"
    return f"about {iterations / entries:.0f}"


def _outermost_share(
    loops: list[dict[str, Any]], nodes: dict[int, dict[str, Any]], rows: dict[int, Any]
) -> float:
    """Return the predicted time of the loops, a loop nested in another counted once."""
    ids = {n["id"] for n in loops}
    parents = {c: n["id"] for n in nodes.values() for c in n.get("children", [])}
    total = 0.0
    for n in loops:
        node, nested = n["id"], False
        while node in parents and not nested:
            node = parents[node]
            nested = node in ids
        if not nested:
            total += float(rows.get(n["id"], {}).get("time", 0.0))
    return total
