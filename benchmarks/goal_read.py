"""Reading GOAL text against the disk, and the memory it takes (issue 18, item 2).

Issue 18 asks that a GOAL text file be parsed at disk speed without holding both the text and
the schedule in memory, and that the engine take at most 200 bytes per rank plus 16 per op.
For each case the schedule is written once as GOAL text (``goal_simulate pattern ... write``)
into ``--workdir``; then every round measures

- the disk: the file read with O_DIRECT in 4 MiB blocks (nothing cached), MB/s;
- each engine binary (``goal_simulate file PATH``), twice: "cold", the file evicted from the page
  cache first (posix_fadvise DONTNEED, this file's pages only), so the read waits for the disk;
  and "warm", the file cached, so the read is the parser's CPU alone.

The read time is the process's time less the event loop's (``loop cpu`` / ``wall`` lines), so
old binaries that print no read line compare the same way. Peak RSS is the child's maximum
resident set (its VmHWM); "B/rank" is (peak - 16 B x ops) / ranks, the issue's bound being 200 (at
2^16 ranks the binary's fixed ~4 MB alone is 60 B per rank). Event count, maximum end time and
its host must be identical for every engine in every round.

    python3 benchmarks/goal_read.py --engine before=/tmp/goal_simulate_old \\
        --engine after=build/dev/benchmarks/goal_simulate --rounds 3 \\
        --workdir /tmp/goal_texts --record benchmarks/results/goal_read.json

``--cases`` takes goal_bench.py's case sets (default issue18), ``--only REGEX`` keeps matching
labels; 2^20-rank cases run ``--big-rounds`` rounds (default 1: a chained recursive doubling's
text is 4 GB).
"""

from __future__ import annotations

import argparse
import json
import mmap
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from goal_bench import CASES

BLOCK = 4 << 20


def load() -> float:
    return os.getloadavg()[0]


def evict(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def direct_read_mb_s(path: Path) -> float:
    """The disk's rate on this file: O_DIRECT bypasses the page cache."""
    buf = mmap.mmap(-1, BLOCK)  # page-aligned, as O_DIRECT needs
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    total = 0
    start = time.perf_counter()
    try:
        while True:
            n = os.readv(fd, [buf])
            total += n
            if n < BLOCK:
                break
    finally:
        os.close(fd)
    return total / (time.perf_counter() - start) / 1e6


def run_engine(binary: str, path: Path) -> dict[str, float | int]:
    start = time.perf_counter()
    proc = subprocess.Popen(
        [binary, "file", str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    out = proc.stdout.read() if proc.stdout else ""
    if status != 0:
        raise RuntimeError(f"{binary} file {path}: status {status}: {out}")
    m = re.search(r"events (\d+) max (\d+) host (\d+) complete (\d)", out)
    loop = re.search(r"loop cpu min ([0-9.]+) median [0-9.]+ s \(\d+ runs\), wall ([0-9.]+) s", out)
    shape = re.search(r"ranks (\d+) ops (\d+)", out)
    assert m and loop and shape, out
    ranks, ops = int(shape.group(1)), int(shape.group(2))
    # The binary's own VmHWM: wait4's ru_maxrss would count the forked Python before exec.
    hwm = re.search(r"process peak rss (\d+)", out)
    assert hwm, out
    peak = int(hwm.group(1))
    read_cpu = usage.ru_utime + usage.ru_stime - float(loop.group(1))
    read_wall = wall - float(loop.group(2))
    size = path.stat().st_size
    return {
        "ops": ops,
        "events": int(m.group(1)),
        "max": int(m.group(2)),
        "host": int(m.group(3)),
        "read_wall_s": read_wall,
        "read_cpu_s": read_cpu,
        "read_wall_mb_s": size / read_wall / 1e6,
        "read_cpu_mb_s": size / read_cpu / 1e6 if read_cpu > 0 else float("inf"),
        "peak_rss_mb": peak / 2**20,
        "bytes_per_rank_beyond_16_per_op": (peak - 16 * ops) / ranks,
        "load": load(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", action="append", required=True, help="NAME=goal_simulate")
    parser.add_argument("--cases", choices=sorted(CASES), default="issue18")
    parser.add_argument("--only", default=None)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--big-rounds", type=int, default=1)
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--record", type=Path, help="also write the figures as JSON")
    args = parser.parse_args()
    engines = dict(e.split("=", 1) for e in args.engine)
    writer = next(iter(engines.values()))
    args.workdir.mkdir(parents=True, exist_ok=True)
    records = []
    for name, ranks, size, chain in CASES[args.cases]:
        label = f"{name} P={ranks}{' chained' if chain else ''}"
        if args.only and not re.search(args.only, label):
            continue
        path = args.workdir / f"{name}_{ranks}_{size}{'_chain' if chain else ''}.goal"
        pattern = [name, str(ranks), str(size)] + (["chain"] if chain else [])
        if not path.exists():
            subprocess.run([writer, "pattern", *pattern, "write", str(path)], check=True)
        rounds = args.big_rounds if ranks >= 1 << 20 else args.rounds
        runs: dict[str, dict[str, list[dict[str, float | int]]]] = {
            e: {"cold": [], "warm": []} for e in engines
        }
        disk = []
        for _ in range(rounds):
            evict(path)
            disk.append(direct_read_mb_s(path))
            for engine, binary in engines.items():
                evict(path)
                runs[engine]["cold"].append(run_engine(binary, path))
                runs[engine]["warm"].append(run_engine(binary, path))
        results = {
            (r["events"], r["max"], r["host"])
            for e in runs.values()
            for mode in e.values()
            for r in mode
        }
        size_mb = path.stat().st_size / 1e6
        ops = int(next(iter(runs.values()))["cold"][0]["ops"])
        verdict = "equal" if len(results) == 1 else "DIFFER"
        print(
            f"{label}: {size_mb:.0f} MB text, {ops} ops, disk (O_DIRECT) "
            f"{min(disk):.0f}-{max(disk):.0f} MB/s, results {verdict}"
        )
        for engine, modes in runs.items():
            cold = [r["read_wall_mb_s"] for r in modes["cold"]]
            warm = [r["read_cpu_mb_s"] for r in modes["warm"]]
            peak = max(r["peak_rss_mb"] for m in modes.values() for r in m)
            per_rank = max(r["bytes_per_rank_beyond_16_per_op"] for m in modes.values() for r in m)
            print(
                f"  {engine:>8}: cold read {min(cold):.0f} / {statistics.median(cold):.0f} MB/s "
                f"(wall, min / median), warm {min(warm):.0f} / {statistics.median(warm):.0f} "
                f"MB/s (cpu), peak {peak:.0f} MB, {per_rank:.0f} B/rank beyond 16 B/op"
            )
        records.append(
            {
                "case": label,
                "ranks": ranks,
                "ops": ops,
                "text_bytes": path.stat().st_size,
                "disk_direct_mb_s": disk,
                "equal": len(results) == 1,
                "engines": runs,
            }
        )
    if args.record:
        args.record.write_text(json.dumps({"engines": engines, "cases": records}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
