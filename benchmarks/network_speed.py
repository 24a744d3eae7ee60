"""Interpretation speed with contention off and on, on the GOAL schedule families (issue 17).

The families of ``benchmarks/goal_bench.py`` (LogGOPSim's Schedgen patterns) as interpreter
models: a binomial-tree broadcast, a dissemination barrier, a recursive-doubling allreduce
(2^16 ranks) and a linear all-to-all (256 ranks), 8 B (``--bytes``), each the collective with that
algorithm forced, so the interpreter sends exactly those messages. Each runs on a Hockney
cluster (1.27 us, 12.4 GB/s, one rank per node) wired four ways:

* ``off``      crossbar, no endpoint contention (the textbook model);
* ``endpoint`` crossbar, the NICs serialise what crosses them (the default);
* ``fattree``  a 3-level fat tree of 64-port switches, flow-level max-min link sharing;
* ``torus``    a 3-D torus (64 x 32 x 32), dimension-order routing, flow-level sharing.

Printed per case: events, messages, engine wall seconds, events and messages per second
(engine time, best of ``--repeat``), flows and share recomputations.

    PYTHONPATH=python PARJAVA_BUILD_DIR=build/dev/package python3 benchmarks/network_speed.py
    python3 benchmarks/network_speed.py --ranks 4096 --repeat 1
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import parjava as pj

FAMILIES = [
    # (name, collective, algorithm, ranks: None = --ranks)
    ("binomial_tree_bcast", "bcast", "binomial", None),
    ("dissemination", "barrier", "dissemination", None),
    ("allreduce_recursive_doubling", "allreduce", "recursive_doubling", None),
    ("linear_alltoall", "alltoall", "linear", 256),
]


def family_model(collective: str, algorithm: str, nbytes: int) -> pj.Model:
    """One collective with its algorithm forced (the GOAL pattern's messages)."""
    m = pj.Model(f"{collective}-{algorithm}")
    if collective == "barrier":
        m.barrier(algorithm=algorithm, line=1)
    elif collective == "bcast":
        m.bcast(bytes=nbytes, algorithm=algorithm, line=1)
    elif collective == "allreduce":
        m.allreduce(bytes=nbytes, algorithm=algorithm, line=1)
    else:
        m.alltoall(bytes=nbytes, algorithm=algorithm, line=1)
    return m


def torus_dimensions(ranks: int) -> list[int]:
    """Three dimensions whose product is ``ranks`` (a power of two), as equal as possible."""
    dims = [1, 1, 1]
    i = 0
    while dims[0] * dims[1] * dims[2] < ranks:
        dims[i % 3] *= 2
        i += 1
    return sorted(dims, reverse=True)


def machine(wiring: str, ranks: int) -> pj.Machine:
    """The benchmark cluster with ``ranks`` nodes of one rank, wired as ``wiring`` says."""
    inter = pj.Network.hockney("1.27 us", "12.4 GB/s", 12288)
    base = pj.Machine(
        name="bench",
        nodes=ranks,
        cores_per_node=1,
        ranks_per_node=1,
        intra_node=inter,
        inter_node=inter,
        threads=pj.ThreadCosts.zero(),
    )
    if wiring == "off":
        return base.with_endpoint_contention(False)
    if wiring == "endpoint":
        return base
    if wiring == "fattree":
        levels = 2 if ranks <= 2048 else 3
        return base.with_topology(pj.Topology.fat_tree(radix=64, levels=levels))
    return base.with_topology(pj.Topology.torus(torus_dimensions(ranks)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ranks", type=int, default=1 << 16)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--bytes",
        type=int,
        default=8,
        help="message size (8 B as in goal_bench.py; above 1 KiB messages become flows)",
    )
    parser.add_argument("--wirings", default="off,endpoint,fattree,torus")
    parser.add_argument("--record", type=Path)
    args = parser.parse_args()
    rows = []
    print(
        f"{'family':30} {'ranks':>6} {'wiring':9} {'events':>10} {'messages':>9} "
        f"{'engine s':>9} {'M events/s':>10} {'M msgs/s':>9} {'flows':>9} {'recomputes':>10}"
    )
    for name, collective, algorithm, fixed in FAMILIES:
        ranks = fixed or args.ranks
        model = family_model(collective, algorithm, args.bytes)
        for wiring in args.wirings.split(","):
            m = machine(wiring, ranks)
            best = None
            for _ in range(args.repeat):
                prediction = pj.interpret(model, m, np=ranks, progress=False)
                engine = prediction.runs[0].engine
                if best is None or engine["wall_seconds"] < best[1]["wall_seconds"]:
                    best = (prediction, engine)
            assert best is not None
            prediction, engine = best
            seconds = engine["wall_seconds"]
            row = {
                "family": name,
                "ranks": ranks,
                "wiring": wiring,
                "predicted_seconds": prediction.time,
                "events": engine["events"],
                "messages": engine["messages"],
                "engine_seconds": seconds,
                "events_per_second": engine["events"] / seconds,
                "messages_per_second": engine["messages"] / seconds,
                "flows": engine["flows"],
                "flow_recomputations": engine["flow_recomputations"],
            }
            rows.append(row)
            print(
                f"{name:30} {ranks:>6} {wiring:9} {engine['events']:>10} "
                f"{engine['messages']:>9} {seconds:9.3f} {row['events_per_second'] / 1e6:10.2f} "
                f"{row['messages_per_second'] / 1e6:9.2f} {engine['flows']:>9} "
                f"{engine['flow_recomputations']:>10}",
                flush=True,
            )
    if args.record:
        args.record.parent.mkdir(parents=True, exist_ok=True)
        args.record.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
