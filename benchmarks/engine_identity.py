"""Whether an engine change keeps every result: replays and interpretations, hashed.

An engine change that is meant to be exact (a faster data structure, fewer records) must give
the same replay and prediction times, end times, node times and counts, replayed traces and
engine statistics. This script runs a fixed set of cases with the build it is given and prints
one JSON line per case; run it with the build before and the build after, then compare:

    PARJAVA_BUILD_DIR=/tmp/before/package python3 benchmarks/engine_identity.py > before.jsonl
    PARJAVA_BUILD_DIR=build/dev/package python3 benchmarks/engine_identity.py > after.jsonl
    python3 benchmarks/engine_identity.py --compare before.jsonl after.jsonl

Cases: replays of the MPI archives of tests/data/otf2, of trace_generate's halo exchange at
64, 12, 8 and 6 ranks (generated once into --dir) and of the model traces of the
interp_events.py models, each on shared-memory, ethernet-10g, infiniband-edr, a two-level
Hockney cluster and a LogGP machine, as recorded and with network="ideal",
call_overhead="none" and balance=True; and the interpretations of those models on four
machines. ``--ignore events,peak_queue`` leaves fields out of the comparison (for a change
that is exact only up to the engine's event count).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "benchmarks"))

LOGGP = {
    "schema_version": 1,
    "name": "loggp",
    "nodes": 64,
    "cores_per_node": 4,
    "ranks_per_node": 4,
    "power": 1.0,
    "intra_node": {
        "kind": "loggp",
        "L": 0.5e-6,
        "o": 0.2e-6,
        "g": 0.3e-6,
        "G": 1e-10,
        "O": 1e-11,
        "S": 4096,
    },
    "inter_node": {
        "kind": "loggp",
        "L": 1.5e-6,
        "o": 0.4e-6,
        "g": 0.5e-6,
        "G": 2e-10,
        "O": 1e-11,
        "S": 8192,
    },
}
ARCHIVES = [
    "pipit-ping-pong",
    "pipit-ping-pong-papi",
    "sstmacro-mpi-coverage",
    "sst-ember-otf2",
    "tracer-stencil4d-64",
]
GENERATED = [(64, 1_000_000), (12, 200_000), (8, 100_000), (6, 60_000)]
WHAT_IFS: dict[str, dict[str, Any]] = {
    "rec": {},
    "ideal": {"network": "ideal"},
    "none": {"call_overhead": "none"},
    "bal": {"balance": True},
}


def digest(*arrays: Any) -> str:
    """A short hash of the arrays' bytes."""
    import numpy as np

    h = hashlib.sha1()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def summary(core: Any) -> dict[str, Any]:
    """What must not change in a core Prediction."""
    import numpy as np

    import parjava as pj

    engine = core.engine
    out: dict[str, Any] = {
        "time": repr(float(core.program_time)),
        "ends": digest(np.asarray(core.end_times, dtype=np.float64)),
        "warnings": digest(np.frombuffer("\n".join(core.warnings).encode(), dtype=np.uint8)),
        "nodes": digest(*[np.asarray(v) for _, v in sorted(dict(core.node_columns()).items())]),
    }
    for key in ("events", "messages", "instructions", "peak_queue"):
        out[key] = int(engine[key])
    if core.has_trace:
        e = pj.Trace(core.trace()).events
        out["trace"] = digest(e.time, e.kind, e.location, e.region, e.peer, e.tag, e.bytes)
    return out


def run(trace_dir: Path, build: Path) -> None:
    """Prints one JSON line per case."""
    import interp_events as ie
    import parjava as pj
    from interp_machine import cluster

    machines = {
        "shm": pj.Machine.preset("shared-memory"),
        "eth": pj.Machine.preset("ethernet-10g"),
        "ib": pj.Machine.preset("infiniband-edr"),
        "cluster": pj.Machine.from_json(cluster(4, 64)),
        "loggp": pj.Machine.from_json(
            json.dumps(LOGGP | {"threads": pj.ThreadCosts.zero().to_dict()})
        ),
    }
    traces: dict[str, Any] = {}
    for name in ARCHIVES:
        traces[name] = pj.Trace.open(REPO / "tests" / "data" / "otf2" / name / "traces.otf2")
    for ranks, events in GENERATED:
        archive = trace_dir / f"r{ranks}-e{events}" / "traces.otf2"
        if not archive.exists():
            subprocess.run(
                [
                    str(build / "benchmarks" / "trace_generate"),
                    "-o",
                    str(archive.parent),
                    "--ranks",
                    str(ranks),
                    "--events",
                    str(events),
                ],
                check=True,
                capture_output=True,
            )
        traces[f"gen{ranks}"] = pj.Trace.open(archive)
    models = [
        (ie.stencil, 8),
        (ie.stencil, 64),
        (ie.ring, 8),
        (ie.master_worker, 8),
        (ie.collectives, 8),
        (ie.collectives, 13),
        (ie.calls, 8),
        (ie.recursive, 8),
    ]
    for make, np_ in models:
        model = make()
        prediction = None
        for name in ("cluster", "shm", "eth", "loggp"):
            prediction = pj.interpret(model, machines[name], np=np_, progress=False, trace=True)
            case = f"model {model.name} np{np_} {name}"
            print(json.dumps({"case": case, **summary(prediction.runs[0]._core)}), flush=True)
        assert prediction is not None
        traces[f"model-{model.name}-{np_}"] = prediction.trace(np_)
    for trace_name, trace in traces.items():
        for machine_name, machine in machines.items():
            for what_if, options in WHAT_IFS.items():
                case = f"{trace_name} {machine_name} {what_if}"
                try:
                    replayed = pj.replay(trace, machine, record_trace=True, **options)
                    row = {"case": case, **summary(replayed._prediction)}
                except Exception as error:  # an error is a result too
                    row = {"case": case, "error": f"{type(error).__name__}: {error}"[:300]}
                print(json.dumps(row), flush=True)


def compare(before: Path, after: Path, ignore: set[str]) -> int:
    """Prints the cases that differ; returns 1 when any does (or is missing)."""
    a = {row["case"]: row for row in map(json.loads, before.read_text().splitlines())}
    b = {row["case"]: row for row in map(json.loads, after.read_text().splitlines())}
    differ = 0
    for case in sorted(set(a) | set(b)):
        x = {k: v for k, v in a.get(case, {}).items() if k not in ignore}
        y = {k: v for k, v in b.get(case, {}).items() if k not in ignore}
        if x != y:
            differ += 1
            fields = {k: (x.get(k), y.get(k)) for k in set(x) | set(y) if x.get(k) != y.get(k)}
            print(f"DIFF {case}: {fields}")
    print(f"{len(set(a) | set(b)) - differ} identical, {differ} different")
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    parser.add_argument("--ignore", default="", help="comma-separated fields not compared")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/parjava-explain-benchmark"))
    parser.add_argument("--build", type=Path, default=REPO / "build" / "dev")
    args = parser.parse_args()
    if args.compare:
        ignore = {f for f in args.ignore.split(",") if f}
        return compare(args.compare[0], args.compare[1], ignore)
    os.environ.setdefault("PARJAVA_BUILD_DIR", str(args.build / "package"))
    run(args.dir, args.build)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
