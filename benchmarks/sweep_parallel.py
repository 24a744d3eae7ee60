"""A 1000-point sweep (2 machines x 10 problem sizes x 5 halo sizes x 10 process counts) with
parjava.sweep, in this process and on a local pool of 2 workers; prints both wall times, the
speedup and whether the frames are identical.

    PYTHONPATH=python PARJAVA_BUILD_DIR=build/dev/package python3 benchmarks/sweep_parallel.py
"""

from __future__ import annotations

import argparse
import json
import os
import time

import parjava as pj


def model() -> pj.Model:
    m = pj.Model("halo-solver", params={"N": 1000, "halo": 8, "steps": 20})
    with m.loop("s", 0, "steps", line=2):
        m.compute("N * 2e-7 / size", line=3)
        m.sendrecv(dest="(rank + 1) % size", sendbytes="halo", source="(rank + size - 1) % size")
        m.allreduce(bytes=8, line=5)
    return m


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    machines = [pj.Machine.preset("infiniband-edr"), pj.Machine.preset("ethernet-10g")]
    grid = dict(
        np=[1, 2, 4, 8, 16, 32, 48, 64, 96, 128],
        params={"N": [1000 * k for k in range(1, 11)], "halo": [8, 512, 4096, 32768, 262144]},
    )
    os.environ["PARJAVA_NO_PROGRESS"] = "1"
    times: dict[str, list[float]] = {"serial": [], "pool": []}
    frames = {}
    for _ in range(args.repeat):
        for name, executor in (("serial", "serial"), ("pool", None)):
            start = time.perf_counter()
            frames[name] = pj.sweep(
                model(), machines, executor=executor, workers=args.workers, **grid
            )
            times[name].append(time.perf_counter() - start)
    serial, pool = min(times["serial"]), min(times["pool"])
    result = {
        "points": len(frames["serial"]),
        "serial_s": {"min": serial, "all": times["serial"]},
        f"pool_{args.workers}_s": {"min": pool, "all": times["pool"]},
        "speedup": serial / pool,
        "identical": bool(frames["serial"].equals(frames["pool"])),
        "load_average": os.getloadavg(),
        "cores": os.cpu_count(),
    }
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
