"""Per-node warnings alike in all but their node are said once, with the other places (issue
13). PENNANT predicted at np 1 from an estimation at np 2 gave 38 warnings: its exchange code,
a template instantiated for three types, said "argument 'source' was measured per rank at np 2"
at every copy, and the self-check's warning was lost among them."""

from __future__ import annotations

import parjava as pj
from interp_machines import hockney


def _exchanges(copies: int) -> pj.Model:
    """Rank 0 sends `copies` messages to a peer measured per rank at np 3; each is received."""
    m = pj.Model("halo", file="halo.cc")
    for k in range(copies):
        with m.if_("rank == 0", line=10 + 4 * k):
            m.send(dest=pj.measured_arg("1", [[2], [], []]), bytes=8, tag=k, line=11 + 4 * k)
        with m.if_("rank == 1", line=12 + 4 * k):
            m.recv(source=0, tag=k, line=13 + 4 * k)
    return m


def test_a_warning_at_many_nodes_is_said_once_with_their_places() -> None:
    pred = pj.interpret(_exchanges(4), hockney(1e-6, 1e9), np=2)
    said = [w for w in pred.warnings if "'dest' was measured per rank at np 3" in w]
    assert len(said) == 1, pred.warnings
    assert "(the same at 3 more node(s): halo.cc:15, halo.cc:19, halo.cc:23)" in said[0], said
    assert "halo.cc:11)" in said[0]  # the first keeps its own place and full text
    # The raw per-run warnings keep every node.
    raw = [w for w in pred.runs[0].warnings if "'dest' was measured per rank" in w]
    assert len(raw) == 4, raw


def test_two_alike_warnings_stay_as_they_are() -> None:
    pred = pj.interpret(_exchanges(2), hockney(1e-6, 1e9), np=2)
    said = [w for w in pred.warnings if "'dest' was measured per rank at np 3" in w]
    assert len(said) == 2 and not any("the same at" in w for w in said), said
