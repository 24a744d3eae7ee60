"""Serial scan against `parallel.scan` on K = 2 and 4 MPI ranks: wall time and peak memory per
rank, on a trace written by benchmarks/trace_generate (64 ranks by default); with
`--analysis intervals` the interval analysis against `parallel.intervals` instead.

    python3 benchmarks/parallel_scan.py --events 10000000 [--trace /tmp/gen/traces.otf2]
    python3 benchmarks/parallel_scan.py --analysis intervals --events 4000000
    python3 benchmarks/parallel_scan.py --trace GEN --collectives both   # reduced and whole
    python3 benchmarks/parallel_scan.py --trace GEN --cli text,json,html,csv --parts 4

`--cli FORMATS` runs `parjava scan --format F -o FILE` (serial) and `parjava scan --mpi
--format F -o FILE` (under mpirun) for each format instead of the Python API, records each
rank's peak RSS and whether the parallel report is byte for byte the serial one (the text and
HTML reports but for the scan's wall time).

`findings` is the number of findings (scan) or of intervals (intervals).

Peak RSS is each process's ru_maxrss; `baseline` is a process that imports parjava and loads
_core without a trace, so RSS minus baseline is what the trace and its analysis cost;
`trace_mib` is what the trace's columns hold (Trace.memory_bytes: own plus received events).
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
import json, resource, sys, time
import parjava as pj
from parjava._core_loader import load_core
load_core()
"""

SERIAL = (
    PREFIX
    + """
start = time.perf_counter()
t = pj.Trace.open(sys.argv[1])
f = pj.scan(t) if sys.argv[2] == "scan" else t.intervals(progress=False)
print(json.dumps({"seconds": time.perf_counter() - start, "findings": len(f),
                  "trace_mib": t.memory_bytes / 2**20,
                  "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
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
comm = MPI.COMM_WORLD
comm.Barrier()
start = time.perf_counter()
part = parallel.open_part(sys.argv[1], comm, reduce_collectives=sys.argv[3] == "reduced")
f = parallel.scan(part, comm) if sys.argv[2] == "scan" else parallel.intervals(part, comm)
seconds = time.perf_counter() - start
rss = comm.gather(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, root=0)
shares = comm.gather((part.owned_events, part.received_events), root=0)
trace_mib = comm.gather(part.trace.memory_bytes / 2**20, root=0)
if comm.rank == 0:
    print(json.dumps({"seconds": seconds, "findings": len(f), "rss_mib": rss,
                      "trace_mib": trace_mib,
                      "events_owned_received": shares}))
"""
)


CLI = (
    PREFIX
    + """
import os
from parjava.cli import main
mpi = sys.argv[3] == "mpi"
if mpi:
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    comm.Barrier()
start = time.perf_counter()
words = ["scan", sys.argv[1], "--format", sys.argv[2], "-o", sys.argv[4]]
status = main(words + (["--mpi"] if mpi else []))
seconds = time.perf_counter() - start
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
if mpi:
    rss = comm.gather(rss, root=0)
if not mpi or comm.rank == 0:
    print(json.dumps({"seconds": seconds, "status": status, "rss_mib": rss,
                      "output_mib": os.path.getsize(sys.argv[4]) / 2**20}))
"""
)


def _same_report(a: Path, b: Path) -> bool:
    """Whether two reports are the same bytes but for the scan's wall time."""
    import re

    def text(path: Path) -> bytes:
        return re.sub(rb"scanned in [-+.e0-9]+ [a-z]+", b"", path.read_bytes())

    return text(a) == text(b)


def cli_runs(trace: str, formats: list[str], parts: list[int], serial: bool) -> dict:
    """Run the command line per format: serial, then parallel on each K, side by side."""
    results: dict = {}
    out = Path(tempfile.mkdtemp(prefix="parjava-scan-cli-"))
    for fmt in formats:
        reference = out / f"serial.{fmt}"
        if serial:
            results[f"cli_{fmt}_serial"] = run(
                [sys.executable, "-c", CLI, trace, fmt, "-", str(reference)]
            )
        for k in parts:
            target = out / f"mpi{k}.{fmt}"
            cmd = ["mpirun", "--oversubscribe", "-np", str(k), sys.executable, "-c", CLI]
            got = run([*cmd, trace, fmt, "mpi", str(target)])
            if serial:
                got["identical_to_serial"] = _same_report(reference, target)
            results[f"cli_{fmt}_mpi_{k}"] = got
            target.unlink()
        if serial:
            reference.unlink()
    return results


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
    parser.add_argument("--analysis", choices=("scan", "intervals"), default="scan")
    parser.add_argument(
        "--no-serial", action="store_true", help="skip the serial run (a trace too large for it)"
    )
    parser.add_argument(
        "--collectives",
        default="reduced",
        help="reduced, whole or both: collective members replayed as the decisive ones only "
        "(the default) or all (reduce_collectives=False)",
    )
    parser.add_argument(
        "--cli",
        metavar="FORMATS",
        help="comma-separated report formats (text, json, html, csv): run the command line",
    )
    args = parser.parse_args()
    build = Path(os.environ.get("PARJAVA_BUILD_DIR", REPO / "build/dev/package")).parent
    trace = args.trace
    if trace is None:
        directory = Path(tempfile.mkdtemp(prefix="parjava-scan-bench-")) / "gen"
        subprocess.run(
            [str(build / "benchmarks" / "trace_generate"), "-o", str(directory), "--ranks",
             str(args.ranks), "--events", str(args.events)],
            check=True,
        )  # fmt: skip
        trace = str(directory / "traces.otf2")
    events = args.events if args.trace is None else "the given trace's"
    results = {"trace": trace, "events": events, "analysis": args.analysis}
    results["load_average"] = os.getloadavg()
    results["baseline"] = run([sys.executable, "-c", BASELINE])
    if args.cli:
        parts = [int(v) for v in args.parts.split(",")]
        results.update(cli_runs(trace, args.cli.split(","), parts, not args.no_serial))
        print(json.dumps(results, indent=1))
        return
    if not args.no_serial:
        results["serial"] = run([sys.executable, "-c", SERIAL, trace, args.analysis])
    modes = ["reduced", "whole"] if args.collectives == "both" else [args.collectives]
    for k in (int(v) for v in args.parts.split(",")):
        for mode in modes:
            cmd = ["mpirun", "--oversubscribe", "-np", str(k), sys.executable, "-c", PARALLEL]
            cmd += [trace, args.analysis, mode]
            results[f"mpi_{k}" + ("" if mode == "reduced" else "_whole")] = run(cmd)
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
