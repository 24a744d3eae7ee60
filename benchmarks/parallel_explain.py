"""Serial POP metrics, critical path and root causes against `parallel.pop`,
`parallel.critical_path` and `parallel.root_causes` on K = 2 and 4 MPI ranks: wall time and
peak memory per rank, on a trace written by benchmarks/trace_generate (64 ranks by default),
and whether the results are identical.

    python3 benchmarks/parallel_explain.py --trace /tmp/gen/traces.otf2 [--parts 2,4]
    python3 benchmarks/parallel_explain.py --events 10000000 --repeat 2
    python3 benchmarks/parallel_explain.py --trace GEN --analyses root_causes --no-replay

Per analysis (`pop`: POP metrics without the ideal-network replay, as under MPI; `critical_path`;
`root_causes`: the delay costs) and per run: `seconds` from before reading the trace to the result
on rank 0 (each process reads the trace for itself: `open_part` for the parallel runs),
`analysis_seconds` the analysis alone (after reading), `rss_mib` each process's ru_maxrss, `digest`
a hash of the result's figures (the POP dict; the critical path's or the delay costs' C++ arrays)
to compare with the serial one, and for the critical path its segments and `token_hops`, the times
the walk went from one analysis rank to another; for the root causes per rank `propagation`: the
times it stopped for another rank's waiting side and the messages it sent and received.
`serial_replay` is the serial `pj.pop` with its ideal-network replay (transfer efficiency), which
MPI does not run: what it would cost rank 0. `baseline` is a process that imports parjava and loads
_core without a trace.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

PREFIX = """
import hashlib, json, resource, sys, time
import numpy as np
import parjava as pj
from parjava._core_loader import load_core
load_core()

def digest(analysis, result):
    h = hashlib.sha256()
    if analysis == "pop":
        d = result.to_dict()
        d.pop("transfer_note", None)
        h.update(json.dumps(d, sort_keys=True).encode())
    elif analysis == "root_causes":
        raw = result._raw
        for name in ("activities", "delay_costs"):
            for column, values in sorted(getattr(raw, name).items()):
                h.update(np.asarray(values).tobytes())
        h.update(np.asarray(list(dict(raw.delay_totals).values()), dtype=np.float64).tobytes())
    else:
        raw = result._raw
        for name in ("activities", "time", "waiting", "path_segments", "path_profile"):
            for column, values in sorted(getattr(raw, name).items()):
                h.update(np.asarray(values).tobytes())
        h.update(np.asarray(raw.path_imbalance).tobytes())
        h.update(json.dumps(dict(raw.path), sort_keys=True).encode())
    return h.hexdigest()[:16]

def hops(result, parts):
    segments = result.segments()
    owners = np.asarray(load_core().partition_owners(result.trace.core, parts))
    owner = owners[segments["location"].to_numpy()]
    return int((owner[1:] != owner[:-1]).sum())
"""

SERIAL = (
    PREFIX
    + """
analysis = sys.argv[2]
start = time.perf_counter()
t = pj.Trace.open(sys.argv[1])
opened = time.perf_counter()
if analysis == "pop":
    r = pj.pop(t, transfer=False)
elif analysis == "replay":
    r = pj.pop(t)
    r.metrics
elif analysis == "root_causes":
    r = pj.root_causes(t)
    r.wait_states
else:
    r = pj.critical_path(t)
end = time.perf_counter()
out = {"seconds": end - start, "analysis_seconds": end - opened,
       "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
       "trace_mib": t.memory_bytes / 2**20}
if analysis == "critical_path":
    out["segments"] = len(r.segments())
    out["token_hops_at_4"] = hops(r, 4)
if analysis == "root_causes":
    out["wait_states"] = r.wait_states
    out["cost_rows"] = len(r.table())
if analysis != "replay":
    out["digest"] = digest(analysis, r)
else:
    out["transfer_efficiency"] = r.transfer_efficiency
print(json.dumps(out))
"""
)

BASELINE = (
    PREFIX
    + """
print(json.dumps({"rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""
)

PARALLEL = (
    PREFIX
    + """
from mpi4py import MPI
from parjava import parallel
analysis = sys.argv[2]
comm = MPI.COMM_WORLD
comm.Barrier()
start = time.perf_counter()
part = parallel.open_part(sys.argv[1], comm)
comm.Barrier()
opened = time.perf_counter()
if analysis == "pop":
    r = parallel.pop(part, comm)
elif analysis == "root_causes":
    r = parallel.root_causes(part, comm)
else:
    r = parallel.critical_path(part, comm)
end = time.perf_counter()
rss = comm.gather(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, root=0)
from parjava._parallel_causes import last_propagation
propagation = comm.gather(dict(last_propagation), root=0)
trace_mib = comm.gather(part.trace.memory_bytes / 2**20, root=0)
if comm.rank == 0:
    out = {"seconds": end - start, "analysis_seconds": end - opened, "rss_mib": rss,
           "trace_mib": trace_mib, "digest": digest(analysis, r)}
    if analysis == "critical_path":
        out["segments"] = len(r.segments())
        out["token_hops"] = hops(r, comm.size)
    if analysis == "root_causes":
        out["propagation"] = propagation  # per rank: stops for a waiting side, messages
    print(json.dumps(out))
"""
)


def run(cmd: list[str]) -> dict:
    env = dict(os.environ, PARJAVA_NO_PROGRESS="1", OMPI_MCA_rmaps_base_oversubscribe="1")
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=10_000_000)
    parser.add_argument("--ranks", type=int, default=64, help="processes in the trace")
    parser.add_argument("--trace", help="an existing archive instead of a generated one")
    parser.add_argument("--parts", default="2,4", help="analysis ranks to try")
    parser.add_argument("--analyses", default="pop,critical_path")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each configuration")
    parser.add_argument("--no-replay", action="store_true", help="skip the serial replay run")
    args = parser.parse_args()
    build = Path(os.environ.get("PARJAVA_BUILD_DIR", REPO / "build/dev/package")).parent
    trace = args.trace
    if trace is None:
        directory = Path(tempfile.mkdtemp(prefix="parjava-explain-bench-")) / "gen"
        subprocess.run(
            [str(build / "benchmarks" / "trace_generate"), "-o", str(directory), "--ranks",
             str(args.ranks), "--events", str(args.events)],
            check=True,
        )  # fmt: skip
        trace = str(directory / "traces.otf2")
    results: dict = {"trace": trace, "events": args.events if args.trace is None else None}
    results["load_average_before"] = os.getloadavg()
    results["baseline"] = run([sys.executable, "-c", BASELINE])
    parts = [int(v) for v in args.parts.split(",")]
    for analysis in args.analyses.split(","):
        for _ in range(args.repeat):
            # Side by side in each round: serial, then each K.
            key = f"{analysis}_serial"
            results.setdefault(key, []).append(run([sys.executable, "-c", SERIAL, trace, analysis]))
            for k in parts:
                cmd = ["mpirun", "--oversubscribe", "-np", str(k), sys.executable, "-c", PARALLEL]
                got = run([*cmd, trace, analysis])
                got["identical_to_serial"] = got["digest"] == results[key][-1]["digest"]
                results.setdefault(f"{analysis}_mpi_{k}", []).append(got)
    if not args.no_replay:
        results["serial_replay"] = run([sys.executable, "-c", SERIAL, trace, "replay"])
    results["load_average_after"] = os.getloadavg()
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
