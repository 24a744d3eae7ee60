"""Honesty check of predictions at a process count or input other than the estimation's.

A loop whose trip count the model could not compute (it depends on data, e.g. a domain
decomposition held in arrays passed by pointer), or a call through a function pointer, is timed
by the estimation run as a block of *constant* time: the time it took at the estimation's
process count and input. Predicted at another np, that block keeps its time, whether or not the
real work is divided among the ranks; predicted at another input (HPGMG-FV's boxes of 32^3
cells instead of 16^3: its operators loop over blocks and cells held in data), it keeps its
time whatever the input does to the work. When such blocks carry a large share of a
prediction, the prediction says so, with the loops and their source lines (never silently
wrong; issue 13).
OpenSHMEM calls, which the builder keeps as external calls timed at the estimation's PE count,
are named likewise at any other PE count.
"""

from __future__ import annotations

import re
from typing import Any

from ._node_places import where

# Names in a time expression that are functions, not variables.
_FUNCTIONS = {"max", "min", "float", "int", "pow", "sqrt", "log", "log2", "exp", "ceil", "floor"}
_FUNCTIONS |= {"abs", "dims_create", "e", "E"}
_NAME = re.compile(r"(?<![0-9.])[A-Za-z_][A-Za-z0-9_]*")
_LOOP = re.compile(r"^(for|while|do)\b")
SHARE = 0.2  # warn from this share of the predicted time on
SHOWN = 3


def _constant(time: Any) -> bool:
    """Return whether a node's time is a constant (no variable of the model in it)."""
    if isinstance(time, (int, float, dict)):
        return True
    if not isinstance(time, str):
        return False
    return not any(n not in _FUNCTIONS for n in _NAME.findall(time))


def changed_parameters(prediction: Any) -> list[str]:
    """Return 'name=value (estimated at value)' for each parameter the prediction changed."""
    given = prediction._options.get("params") or {}
    changed = []
    for name, raw in prediction.model._doc.get("parameters", {}).items():
        value = raw.get("value") if isinstance(raw, dict) else raw
        if name in given and given[name] != value:
            changed.append(f"{name}={given[name]} (estimated at {value})")
    return changed


def _shares(prediction: Any, np: int) -> tuple[dict[int, Any], list[Any], float]:
    """Return the model's nodes by id, the prediction's rows at ``np`` and its total time."""
    nodes = {n["id"]: n for n in prediction.model.nodes()}
    rows = prediction.nodes(np)
    bodies = {f["body"] for f in prediction.model._doc["functions"]}
    total = max((r["time"] for r in rows if r["id"] in bodies), default=0.0)
    return nodes, rows, total


def fixed_loops_warning(prediction: Any, np: int) -> str | None:
    """Return the warning for the run at ``np``, or None when there is nothing to say."""
    model = prediction.model
    check = model.self_check if model is not None else None
    if check is None:
        return None
    same_np = int(check.get("np", np)) == np
    changed = changed_parameters(prediction) if same_np else []
    if same_np and not changed:
        return None
    nodes, rows, total = _shares(prediction, np)
    if total <= 0:
        return None
    fixed = []
    for r in rows:
        node = nodes.get(r["id"], {})
        label = str(node.get("label", ""))
        loop = node.get("kind") == "rb" and _LOOP.match(label) is not None
        # A call through a function pointer is timed as a whole, whatever it does inside.
        indirect = node.get("kind") == "efc" and label == "(indirect call)"
        if not (loop or indirect):
            continue
        if r["time"] > 0 and _constant(node.get("time")):
            fixed.append((r["time"] / total, node))
    share = sum(s for s, _ in fixed)
    if share < SHARE:
        return None
    fixed.sort(key=lambda item: item[0], reverse=True)
    files = model.files

    shown = ", ".join(
        f"'{n.get('label', '')}' ({where(files, n)}, {100 * s:.0f}%)" for s, n in fixed[:SHOWN]
    )
    if same_np:
        return (
            f"{100 * min(share, 1.0):.0f}% of the predicted time with {', '.join(changed)} is "
            f"in {len(fixed)} loop(s) or indirect call(s) whose work the model could not "
            f"compute, timed as constants at the estimation input: {shown}; they keep the "
            f"estimation's time whatever this input does to their work, so if their work depends "
            f"on what changed the prediction does not follow it there; estimate at this input to "
            f"measure them, or make their bounds computable (see the builder's [opaque] warnings)"
        )
    return (
        f"{100 * min(share, 1.0):.0f}% of the predicted time at np={np} is in {len(fixed)} "
        f"loop(s) or indirect call(s) whose work the model could not compute, timed as "
        f"constants at np={check.get('np')}: "
        f"{shown}; if their work is divided among the ranks (a domain decomposition), the "
        f"prediction is too slow by up to that share; estimate at np={np} to measure them per "
        f"rank, or make their bounds computable (see the builder's [opaque] warnings)"
    )


def measured_counts_warning(prediction: Any, np: int) -> str | None:
    """Return the warning for interpreted loops that keep their measured trip counts at ``np``.

    A loop the model interprets (its body communicates or calls functions with loops) but whose
    trip count depends on data runs the counts the estimation measured. ORNL minisweep's cell
    loops are bounded by a width each rank receives from the others: estimated at np 1 and
    predicted at np 2 with ``nproc_x=2``, every rank ran the whole grid's cells, 40 % too slow,
    and only the fragments np 1 never ran were mentioned. The share is the largest inclusive
    share of one such loop (nested ones overlap).
    """
    model = prediction.model
    check = model.self_check if model is not None else None
    if check is None or int(check.get("np", np)) == np:
        return None
    nodes, rows, total = _shares(prediction, np)
    if total <= 0:
        return None
    measured = []
    for r in rows:
        node = nodes.get(r["id"], {})
        opaque = node.get("opaque")
        if (
            node.get("kind") in ("for", "while", "do")
            and isinstance(opaque, dict)
            and "trips" in opaque
            and r["time"] > 0
        ):
            measured.append((r["time"] / total, node))
    if not measured:
        return None
    measured.sort(key=lambda item: item[0], reverse=True)
    share = measured[0][0]
    if share < SHARE:
        return None
    shown = ", ".join(
        f"'{n.get('label', '')}' ({where(model.files, n)}, {100 * s:.0f}%)"
        for s, n in measured[:SHOWN]
    )
    return (
        f"up to {100 * min(share, 1.0):.0f}% of the predicted time at np={np} is in "
        f"{len(measured)} loop(s) whose trip counts the model could not compute, run with the "
        f"counts measured at np={check.get('np')}: {shown}; if the ranks divide those iterations "
        f"(a domain decomposition), the prediction is too slow by up to that share; estimate at "
        f"np={np} to measure them per rank, or make their bounds computable (see the builder's "
        f"[opaque] warnings)"
    )


# OpenSHMEM's API (1.0-1.5 names and the SGI-era ones Ember and GUPS still call): calls the
# model builder keeps as external calls, timed at the estimation's PE count.
_SHMEM = re.compile(
    r"^(p?shmem_\w+|start_pes|shmalloc|shfree|shrealloc|shmemalign|_?my_pe|_?num_pes)$"
)


_SETUP = re.compile(r"^(p?shmem_(init\w*|finalize|my_pe|n_pes)|start_pes|_?my_pe|_?num_pes)$")


def unmodelled_pgas_warning(prediction: Any, np: int) -> str | None:
    """Return a warning when the model's OpenSHMEM calls are predicted at another PE count.

    The builder models MPI; an OpenSHMEM call (`shmem_longlong_inc(&data[addr], pe)` on a hot
    PE, `shmem_barrier_all()`) is an external call whose time the estimation run measured at its
    own PE count, and `shmem_n_pes()` is data. At another np the model keeps those times, so its
    prediction is not the program's: say so, with the calls and their lines.
    """
    model = prediction.model
    check = model.self_check if model is not None else None
    if model is None or (check is not None and int(check.get("np", np)) == np):
        return None
    calls = [
        n
        for n in model.nodes()
        if n.get("kind") == "efc" and _SHMEM.match(str(n.get("callee", "")))
    ]
    if not calls:
        return None
    files = model.files

    # The calls that take the time first, then communication before set-up and queries.
    times = {r["id"]: r["time"] for r in prediction.nodes(np)}
    calls.sort(key=lambda n: (-times.get(n["id"], 0.0), _SETUP.match(str(n["callee"])) is not None))
    names = list(dict.fromkeys(f"{n['callee']} ({where(files, n)})" for n in calls))
    shown = ", ".join(names[:SHOWN]) + (
        f" and {len(names) - SHOWN} more" if len(names) > SHOWN else ""
    )
    measured = f"np={check.get('np')}" if check is not None else "the estimation's PE count"
    return (
        f"OpenSHMEM is not modelled: {len(calls)} call(s) ({shown}) are external calls timed as "
        f"the estimation run measured them at {measured}; at np={np} their communication (the "
        f"target PEs, contention on a hot PE, barriers) and shmem_n_pes() are not the "
        f"program's, so this prediction does not follow them; trace the run at np={np} "
        f"(parjava trace -- oshrun -np {np} ...) to see them"
    )
