"""A machine description for the interpreter benchmarks (InfiniBand-like Hockney networks)."""

from __future__ import annotations

import json

import parjava as pj

# Thread primitives cost nothing here: the benchmarks time communication.
ZERO = pj.ThreadCosts.zero().to_dict()


def cluster(ranks_per_node: int = 32, nodes: int = 32768) -> str:
    """32 ranks per node; shared memory inside a node, an EDR-like network between nodes."""
    return json.dumps(
        {
            "schema_version": 1,
            "name": "benchmark-cluster",
            "nodes": nodes,
            "cores_per_node": ranks_per_node,
            "ranks_per_node": ranks_per_node,
            "power": 1.0,
            "intra_node": {
                "kind": "hockney",
                "latency": 0.4e-6,
                "bandwidth": 8e9,
                "eager_limit": 4096,
            },
            "inter_node": {
                "kind": "hockney",
                "latency": 1.2e-6,
                "bandwidth": 12e9,
                "eager_limit": 12288,
            },
            "threads": ZERO,
        }
    )
