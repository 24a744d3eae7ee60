"""1,048,576 logical processes running a recursive-doubling Allreduce (issue 6: under 8 GB
and under a minute on this machine). Prints the predicted time, wall time, events per second
and the peak resident memory of the whole Python process.

    make build && PYTHONPATH=python PARJAVA_BUILD_DIR=build/dev/package \
        python3 benchmarks/interp_allreduce_1m.py [NP]
"""

from __future__ import annotations

import resource
import sys
import time

import parjava as pj
from interp_machine import cluster


def main() -> None:
    np_ = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 20
    model = pj.Model("allreduce-1m")
    model.allreduce(bytes=8, algorithm="recursive_doubling", line=1)
    machine = cluster()
    start = time.perf_counter()
    cpu_start = time.process_time()
    pred = pj.interpret(model, machine, np=np_, progress=False)
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    engine = pred.runs[0].engine
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"processes           {np_}")
    print(f"predicted time      {pred.time * 1e6:.3f} us")
    # The machine is shared: CPU time is what the engine needs, wall time what it got.
    print(f"wall time           {wall:.2f} s (engine {engine['wall_seconds']:.2f} s)")
    print(f"CPU time            {cpu:.2f} s")
    rate = engine["events"] / engine["wall_seconds"]
    print(f"events              {engine['events']} ({rate:.3g}/s)")
    print(f"messages            {engine['messages']}")
    print(f"engine state        {engine['state_bytes'] / 2**20:.0f} MiB")
    print(f"peak RSS            {rss_mb:.0f} MiB")


if __name__ == "__main__":
    main()
