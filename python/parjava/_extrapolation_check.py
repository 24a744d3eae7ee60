"""Honesty check of trip counts measured over a shorter run than the one predicted.

A loop whose trip count the model cannot compute keeps the counts the estimation measured. When
its bound reads data the program rewrites inside an enclosing loop (the model's
``rewritten_bounds``, docs/model-schema.md) -- miniAMR's loops over blocks read
``sorted_index``, which ``refine()`` rebuilds in the time-step loop -- and a prediction runs the
loop many times as often per process as the estimation did, the model assumes the counts stay
as measured. That is borne out for counts that varied without drifting (atoms per cell); it is
a guess for counts that drifted during the estimation, or that never moved while their data was
being rewritten (a mesh that had not refined yet: miniAMR, 97 % too fast at ten times the
steps). The prediction then says so, by loop and line (never silently wrong; issue 13).
"""

from __future__ import annotations

from typing import Any

RATIO = 2.0  # warn when a loop runs at least this many times as often per process
DRIFT = 0.1  # a significant change of the expected count over the estimation run
SHOWN = 3


def _where(files: list[str], src: dict[str, Any]) -> str:
    f = int(src.get("file", -1))
    name = files[f].rsplit("/", 1)[-1] if 0 <= f < len(files) else "?"
    return f"{name}:{src.get('line', 0)}"


def rewritten_bounds_warning(prediction: Any, np: int) -> str | None:
    """Return the warning for the run at ``np``, or None when there is nothing to say."""
    model = prediction.model
    bounds = model._doc.get("rewritten_bounds") if model is not None else None
    if not bounds:
        return None
    check = model.self_check or {}
    before_by_node = check.get("executions", {})
    rows = {r["id"]: r for r in prediction.nodes(np)}
    bodies = {f["body"] for f in model._doc["functions"]}
    total = max((r["time"] for r in rows.values() if r["id"] in bodies), default=0.0)
    files = model.files
    # One group per datum, its write and the loop rewriting it: miniAMR's sorted_index bounds
    # eight loops, all for one reason.
    groups: dict[tuple[str, str, str], list[tuple[float, float, str]]] = {}
    for b in bounds:
        measured = b.get("measured")
        row = rows.get(int(b["node"]))
        if not measured or row is None or row["freq"] == 0:
            continue  # never ran in the estimation (a note said so), or not in this run
        before = float(before_by_node.get(str(b["node"]), measured["executions"]))
        ratio = row["freq"] / np / before if before > 0 else float("inf")
        if ratio < RATIO:
            continue
        low, high, drift = float(measured["min"]), float(measured["max"]), float(measured["drift"])
        if low == high:
            seen = f"always {low:.0f} iteration(s)"
        elif abs(drift) >= DRIFT:
            seen = f"drifted {100 * drift:+.0f}% ({low:.0f} to {high:.0f} iterations)"
        else:
            continue  # varied without drifting: the measured distribution is evidence
        share = row["time"] / total if total > 0 else 0.0
        key = (
            str(b.get("data", "")),
            _where(files, b.get("written", {})),
            _where(files, b.get("enclosing", {})),
        )
        groups.setdefault(key, []).append(
            (
                share,
                ratio,
                f"'{b.get('label', '')}' ({_where(files, b.get('source', {}))}: {seen}, "
                f"{100 * share:.0f}% of the predicted time)",
            )
        )
    if not groups:
        return None
    texts = []
    for (data, written, enclosing), loops in sorted(
        groups.items(), key=lambda g: sum(s for s, _, _ in g[1]), reverse=True
    ):
        loops.sort(key=lambda item: item[0], reverse=True)
        more = len(loops) - SHOWN
        texts.append(
            f"'{data}', rewritten at {written} inside the loop at {enclosing}, bounds "
            f"{len(loops)} loop(s) that run up to {max(r for _, r, _ in loops):.0f}x as often "
            "per process as in the estimation run: "
            + ", ".join(text for _, _, text in loops[:SHOWN])
            + (f" and {more} more" if more > 0 else "")
        )
    return (
        f"trip counts extrapolated at np={np}: "
        + "; ".join(texts)
        + " -- the prediction keeps the counts the estimation measured; if that data grows or "
        "shrinks as the run goes on (a refining mesh, moving particles), it is off by however "
        "much they change: estimate with an input that runs as long as the one predicted"
    )
