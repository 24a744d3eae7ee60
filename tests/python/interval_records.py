"""The interval analyses the parallel tests run (mpi_scan_worker.py) and compare with the
serial ones (test_parallel_scan.py), and the record of a tree they compare."""

from __future__ import annotations

from typing import Any

# The defaults, and every other choice of each option at once.
INTERVAL_VARIANTS: list[dict[str, Any]] = [
    {},
    {
        "productive": "cpu+one-mpi",
        "attribution": "waiting",
        "sendrecv": "messages",
        "execution": "per-execution",
        "load": "cpu+mpi",
        "sequential": ["*"],
    },
    {"sources": ["regions"], "max_depth": 1},
]


def interval_record(tree: Any) -> dict[str, Any]:
    """What the tests compare: to_dict, executions, exclusive parts, the text report ({} for
    None, the result on the ranks that do not gather)."""
    if tree is None:
        return {}
    record = tree.to_dict()
    core = tree._core
    record["executions"] = {k: v.tolist() for k, v in core.executions().items()}
    record["exclusive"] = [core.exclusive(i).tolist() for i in range(core.node_count)]
    record["report"] = tree.report()
    return record
