"""Honesty check of predictions that run fragments the estimation run never executed (issue 13).

A timed fragment (a block, a loop measured as a whole, a function) that the estimation run never
reached has no measured time: the model counts it as 0. At another np or input it may run, and
then the prediction leaves its work out. At the estimation's own np and input the model runs it
only where a decision it takes by frequency, not in the run's order, leads there. miniVite's
graph generator pairs each rank's vertices with its neighbours' only when there are neighbours:
estimated at np 1, its prediction at np 2 ran those 50 million pair tests at 0 s each and said
nothing.

Calls that end the process (`exit`, `abort`, `MPI_Abort`) are never counted as executed: no
probe after them runs. They have no work to leave out, so they are not reported (every ParRes
kernel ends in `exit(EXIT_SUCCESS)` after MPI_Finalize, and each of its predictions warned).
"""

from __future__ import annotations

from typing import Any

from ._node_places import where
from ._scaling_check import changed_parameters

SHOWN = 3

# External calls that never return: the model notes each ("ends the process here").
PROCESS_ENDS = frozenset({"exit", "_exit", "_Exit", "quick_exit", "abort", "MPI_Abort"})


def unmeasured_warning(prediction: Any, np: int) -> str | None:
    """Return the warning for the run at ``np``, or None when it runs only measured fragments."""
    model = prediction.model
    check = model.self_check if model is not None else None
    unmeasured = set((check or {}).get("unmeasured") or [])
    if not unmeasured:
        return None
    rows = {r["id"]: r for r in prediction.nodes(np)}
    ran = {i for i in unmeasured if rows.get(i, {}).get("freq", 0) > 0}
    if not ran:
        return None
    nodes = {n["id"]: n for n in model.nodes()}
    ran = {i for i in ran if nodes.get(i, {}).get("callee") not in PROCESS_ENDS}
    if not ran:
        return None
    parent: dict[int, int] = {}
    for n in nodes.values():
        for c in n.get("children", []):
            parent[c] = n["id"]

    def outermost(i: int) -> bool:
        p = parent.get(i)
        while p is not None:
            if p in ran:
                return False
            p = parent.get(p)
        return True

    def work(i: int) -> float:
        # Executions of everything under the fragment: a loop entered once that runs 50
        # million bodies comes before a call made 28 times.
        total, stack = 0.0, [i]
        while stack:
            n = stack.pop()
            total += float(rows.get(n, {}).get("freq", 0))
            stack.extend(nodes.get(n, {}).get("children", []))
        return total

    top = sorted((i for i in ran if outermost(i)), key=lambda i: -work(i))
    files = model.files

    shown = ", ".join(
        f"'{nodes[i].get('label') or nodes[i].get('kind')}' ({where(files, nodes[i])}, "
        f"{rows[i]['freq']:.0f} times)"
        for i in top[:SHOWN]
    )
    more = f" and {len(top) - SHOWN} more" if len(top) > SHOWN else ""
    estimated = (check or {}).get("np")
    head = (
        f"{len(top)} fragment(s) the estimation run (np={estimated}) never executed run in this "
        f"prediction at np={np} with no measured time, counted as 0 s: {shown}{more}; "
    )
    if estimated is not None and int(estimated) == np and not changed_parameters(prediction):
        # The run's own np and input: what leads there is a decision the model takes by its
        # measured frequency, not in the run's order (UoB-HPC/hot: one parameter lookup of 17
        # found no line, in another call than the one the model chose).
        return head + (
            "the run's own np and input reach them through data decisions the model takes by "
            "their measured frequency rather than in the run's order (a lookup that failed "
            "once, in another call), so the prediction leaves their work out"
        )
    return head + (
        f"they are reached only at other process counts or inputs, so the prediction leaves "
        f"their work out: estimate at np={np} (or at this input) to measure them"
    )
