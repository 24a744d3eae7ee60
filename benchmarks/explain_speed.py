"""Speed of the explanations of a run (issue 14) on the large benchmark trace.

Generates (once) the OTF2 archive of trace_generate: a 64-rank halo-exchange solver, 10 million
events by default. It opens the archive, then prints the best of ``--repeat`` runs of each:

- replay on the shared-memory preset without building the replayed trace, in events/s
  (target: at least 10 M events/s), and with it;
- critical path and delay costs, one analysis (target: under 2 s together);
- POP metrics without the ideal-network replay (target: under 1 s), and the replay they need
  for transfer efficiency;

and the peak RSS of the process.

    make build
    python3 benchmarks/explain_speed.py [--events 10000000] [--ranks 64] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


CPU: list[float] = []  # process CPU seconds of each call timed by best(), last call first


def best(repeat: int, work: Callable[[], Any]) -> tuple[float, Any]:
    """Return the best wall time of ``repeat`` calls of ``work`` and its last result.

    The CPU seconds of each call go to ``CPU`` (on a shared machine wall time mostly measures
    the neighbours; set OPENBLAS_NUM_THREADS=1 so that idle BLAS threads do not count)."""
    times = []
    result = None
    CPU.clear()
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        result = work()
        times.append(time.perf_counter() - start)
        CPU.append(time.process_time() - cpu)
    return min(times), result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000_000)
    parser.add_argument("--ranks", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--build", type=Path, default=REPO / "build" / "dev")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/parjava-explain-benchmark"))
    args = parser.parse_args()
    os.environ.setdefault("PARJAVA_BUILD_DIR", str(args.build / "package"))
    sys.path.insert(0, str(REPO / "python"))
    import parjava as pj

    archive = args.dir / f"r{args.ranks}-e{args.events}" / "traces.otf2"
    if not archive.exists():
        subprocess.run(
            [
                str(args.build / "benchmarks" / "trace_generate"),
                "-o",
                str(archive.parent),
                "--ranks",
                str(args.ranks),
                "--events",
                str(args.events),
            ],
            check=True,
            capture_output=True,
        )
    trace = pj.Trace.open(archive)
    events = len(trace)
    load = os.getloadavg()[0]
    print(f"trace: {events:,} events, {trace.process_count} ranks; load average {load:.1f}")

    seconds, replay = best(
        args.repeat, lambda: pj.replay(trace, "shared-memory", record_trace=False)
    )
    stats = replay.statistics
    cpu = sorted(CPU)
    print(
        f"replay (no trace): CPU min {cpu[0]:.3f} s, median {cpu[len(cpu) // 2]:.3f} s = "
        f"{events / cpu[0] / 1e6:.2f} M / {events / cpu[len(cpu) // 2] / 1e6:.2f} M events "
        f"per CPU-second"
    )
    print(
        f"replay (no trace): {seconds:.3f} s wall, {events / seconds / 1e6:.1f} M events/s "
        f"(build {stats['build_seconds']:.3f} s, engine {stats['run_seconds']:.3f} s); "
        f"time {replay.time:.6g} s vs original {replay.original_time:.6g} s"
    )
    seconds, _ = best(args.repeat, lambda: pj.replay(trace, "shared-memory"))
    print(f"replay (with trace): {seconds:.3f} s wall, {events / seconds / 1e6:.1f} M events/s")

    def causes() -> float:
        fresh = pj.Trace(trace.core)  # the analysis is cached per Trace object
        path = pj.critical_path(fresh)
        return path.seconds

    seconds, inner = best(args.repeat, causes)
    print(f"critical path + delay costs: {seconds:.3f} s wall ({inner:.3f} s in C++)")

    seconds, metrics = best(
        args.repeat,
        lambda: pj.pop(trace, transfer=False).metrics,  # type: ignore[union-attr]
    )
    print(
        f"POP metrics (no replay): {seconds:.3f} s; parallel efficiency "
        f"{metrics['parallel_efficiency']:.3f}"
    )
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(f"peak RSS {rss / 2**20:.0f} MiB = {rss / events:.0f} B/event (trace included)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
