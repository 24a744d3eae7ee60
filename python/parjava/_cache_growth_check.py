"""Honesty check of loop nests priced at the estimation's cost per iteration.

The estimation scales a measured loop nest across cache levels when it knows the nest's working
set (the heap the program held while it ran, docs/frontend.md "cache levels"). A nest whose
working set it does not know -- static arrays, a program's own allocator --
or whose working set was too small to place on the machine's curve keeps its cost per iteration
at every size (the model's ``unscaled_nests``, docs/model-schema.md). When a prediction gives
such a nest several times the work per execution, its data may have outgrown a cache level its
estimation fitted in, and the program then runs slower than predicted: mrnorman/miniWeather at
4x the cells, -10 % without a word. The prediction says so, by loop and line (issue 13: never
silently wrong).
"""

from __future__ import annotations

from typing import Any

GROWTH = 2.0  # warn when a nest does at least this many times the work per execution
SHARE = 0.10  # ... and such nests hold at least this share of the predicted time
SHOWN = 3
# Nests scaled by the machine's sweep cost: say so when their working set grows this much and
# they hold this share of the predicted time.
SCALED_GROWTH = 2.0
SCALED_SHARE = 0.5


def _bytes(n: float) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.0f} B"


def _nests_and_rows(
    prediction: Any, np: int, key: str
) -> tuple[list[dict[str, Any]], dict[int, dict[str, Any]], float] | None:
    """Return the nests under ``key``, the run's node rows by id and its predicted time."""
    model = prediction.model
    nests = model._doc.get(key) if model is not None else None
    if not nests:
        return None
    rows = {r["id"]: r for r in prediction.nodes(np)}
    bodies = {f["body"] for f in model._doc["functions"]}
    total = max((r["time"] for r in rows.values() if r["id"] in bodies), default=0.0)
    return (nests, rows, total) if total > 0 else None


def _largest_first(found: list[tuple[float, str]]) -> str:
    """Join the nests' texts, the largest shares first, the rest counted."""
    found.sort(reverse=True)
    more = len(found) - SHOWN
    return ", ".join(text for _, text in found[:SHOWN]) + (f" and {more} more" if more > 0 else "")


def unscaled_growth_warning(prediction: Any, np: int) -> str | None:
    """Return the warning for the run at ``np``, or None when there is nothing to say."""
    got = _nests_and_rows(prediction, np, "unscaled_nests")
    if got is None:
        return None
    nests, rows, total = got
    found: list[tuple[float, str]] = []
    for nest in nests:
        row = rows.get(int(nest["node"]))
        seconds = float(nest.get("seconds", 0.0))
        if row is None or row["freq"] == 0 or seconds <= 0:
            continue
        growth = row["time"] / row["freq"] / seconds
        if growth < GROWTH:
            continue
        working_set = float(nest.get("working_set", 0.0))
        holds_to = float(nest.get("holds_to", 0.0))
        if working_set > 0 and holds_to > 0:
            if working_set * growth <= holds_to:
                continue  # still where the measured cost per byte holds
            why = f"working set {_bytes(working_set)} there, ~{_bytes(working_set * growth)} here"
        else:
            why = "working set unknown"
        found.append(
            (
                row["time"] / total,
                f"'{row['label']}' (line {row['line']}, x{growth:.1f} the work per execution, "
                f"{why})",
            )
        )
    share = sum(s for s, _ in found)
    if share < SHARE:
        return None
    return (
        f"{100 * share:.0f}% of the predicted time at np={np} is in {len(found)} loop nest(s) "
        "priced at the estimation run's cost per iteration although they do more work per "
        "execution here: "
        + _largest_first(found)
        + "; if their data outgrows a cache level the estimation's fitted in, the program runs "
        "slower than predicted: estimate at an input closer to this one"
    )


def scaled_growth_warning(prediction: Any, np: int) -> str | None:
    """Return the caveat for nests scaled across cache levels far beyond their working set.

    The estimation scales a nest's time by the machine's cost per byte of a sweep; a nest that
    reads its arrays with a stride (UoB-HPC/CloverLeaf's serial kernels walk columns of
    row-major fields: 4x the cost per cell from 240^2 to 480^2, where the sweep curve gave
    1.1x; -39 % at np 2 without a word) or through indices slows down more than a sweep, and
    an estimation on less data cannot tell. When such nests hold most of the predicted time at
    twice their time per execution or more, the prediction says which and how far it
    extrapolates.
    """
    got = _nests_and_rows(prediction, np, "scaled_nests")
    if got is None:
        return None
    nests, rows, total = got
    found: list[tuple[float, str]] = []
    for nest in nests:
        row = rows.get(int(nest["node"]))
        seconds = float(nest.get("seconds", 0.0))
        working_set = float(nest.get("working_set", 0.0))
        if row is None or row["freq"] == 0 or seconds <= 0 or working_set <= 0:
            continue
        growth = row["time"] / row["freq"] / seconds
        if growth < SCALED_GROWTH:
            continue
        found.append(
            (
                row["time"] / total,
                f"'{row['label']}' (line {row['line']}, working set {_bytes(working_set)} there, "
                f"x{growth:.0f} its time per execution here)",
            )
        )
    share = sum(s for s, _ in found)
    if share < SCALED_SHARE:
        return None
    return (
        f"{100 * share:.0f}% of the predicted time at np={np} is in {len(found)} loop nest(s) "
        "whose time per execution grows 2x or more from the estimation's, across cache levels "
        "by this machine's cost per byte of a sweep: "
        + _largest_first(found)
        + "; a nest that reads its arrays with a stride or through indices can slow down more "
        "than a sweep: estimate at an input closer to this one to confirm"
    )
