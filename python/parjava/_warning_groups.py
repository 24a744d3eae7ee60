"""One line per kind of per-node warning (issue 13, predictions that are right or say why).

The interpreter warns per model node: "model 'main', node 1419 (cfc MPI_Irecv, Mesh.cc:622):
argument 'source' was measured per rank at np 2; at np 1 every rank uses its fallback ...". A
program whose exchange code is a template instantiated for several types, or copied for each
direction, says the same thing at a dozen nodes: PENNANT predicted at np 1 from an estimation
at np 2 gave 38 warnings, in which the self-check and the unscaled loops were hard to find.
Warnings that differ only in their node and in the quoted names they carry are kept once, with
the places of the others.
"""

from __future__ import annotations

import os
import re

_NODE = re.compile(r"^model '[^']*', node \d+ \((?P<what>[^()]*?)(?:, (?P<place>[^(),]*:\d+))?\): ")
_QUOTED = re.compile(r"'[^']*'")
_LISTED = 8  # places named in a grouped warning
_GROUP = 3  # fewer alike than this stay as they are


def _key(message: str) -> str | None:
    head = _NODE.match(message)
    if head is None:
        return None
    return _QUOTED.sub("'…'", message[head.end() :])


def _place(message: str) -> str:
    head = _NODE.match(message)
    if head is None or not head.group("place"):
        return head.group("what") if head is not None else "?"
    path, _, line = head.group("place").rpartition(":")
    return f"{os.path.basename(path)}:{line}"


def group_node_warnings(warnings: list[str]) -> list[str]:
    """Return ``warnings`` with per-node warnings alike in all but node and names merged.

    The first of each group keeps its full text and gains "(the same at N more nodes: file:line,
    ...)"; other warnings and groups smaller than three are unchanged, in their first order.
    """
    groups: dict[str, list[str]] = {}
    for w in warnings:
        k = _key(w)
        if k is not None:
            groups.setdefault(k, []).append(w)
    out: list[str] = []
    done: set[str] = set()
    for w in warnings:
        k = _key(w)
        if k is None or len(groups[k]) < _GROUP:
            out.append(w)
            continue
        if k in done:
            continue
        done.add(k)
        rest = groups[k][1:]
        places: list[str] = []
        for other in rest:
            p = _place(other)
            if p not in places:
                places.append(p)
        named = ", ".join(places[:_LISTED])
        more = f" and {len(places) - _LISTED} more" if len(places) > _LISTED else ""
        out.append(f"{w} (the same at {len(rest)} more node(s): {named}{more})")
    return out
