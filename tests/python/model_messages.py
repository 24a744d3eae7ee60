"""What a model trace says each rank sent and received, to compare with the program's own count
of its sends and receives in a real run."""

from __future__ import annotations

import numpy as np

import parjava as pj


def messages(prediction: pj.Prediction, np_: int) -> dict[int, tuple[int, int]]:
    """Per rank, the sends and receives (blocking or posted) of the model trace at ``np_``."""
    ev = prediction.trace(np_).events
    out: dict[int, tuple[int, int]] = {}
    for rank in range(np_):
        mine = ev["location"] == rank
        sent = mine & np.isin(ev["kind"], [int(pj.EventKind.SEND), int(pj.EventKind.ISEND_POST)])
        got = mine & np.isin(ev["kind"], [int(pj.EventKind.RECV), int(pj.EventKind.IRECV_POST)])
        out[rank] = (int(sent.sum()), int(got.sum()))
    return out
