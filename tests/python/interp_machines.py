"""Machine descriptions with known parameters for the interpreter tests (JSON text)."""

from __future__ import annotations

import json

import parjava as pj

ZERO_THREADS = pj.ThreadCosts.zero().to_dict()


def hockney(
    alpha: float, bandwidth: float, eager: int = 1 << 20, ranks_per_node: int = 4096
) -> str:
    """A Hockney machine: T(n) = alpha + n / bandwidth on both networks."""
    net = {"kind": "hockney", "latency": alpha, "bandwidth": bandwidth, "eager_limit": eager}
    return json.dumps(
        {
            "schema_version": 1,
            "name": "test-hockney",
            "nodes": 4096,
            "cores_per_node": ranks_per_node,
            "ranks_per_node": ranks_per_node,
            "power": 1.0,
            "intra_node": net,
            "inter_node": net,
            "threads": ZERO_THREADS,
        }
    )
