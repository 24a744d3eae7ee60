"""Benchmark parjava's LogGP engine on large GOAL schedules, optionally against LogGOPSim.

For each case the schedule is built in memory (parjava.goal.pattern), saved in parjava's
binary form and simulated in a fresh child process, so peak memory (max RSS) belongs to that
case alone. With ``--loggopsim DIR`` (a directory holding LogGOPSim's ``txt2bin`` and
``LogGOPSim`` binaries, built outside this project) the same schedule is also written as GOAL
text, converted with txt2bin and simulated by LogGOPSim in the same run; the script checks
that host end times (all hosts for P <= 16, else the maximum and its host) and the event
count are identical and prints both tools' speed.

    python3 benchmarks/goal_bench.py                         # parjava only, default cases
    python3 benchmarks/goal_bench.py --loggopsim /tmp/loggopsim --cases quick
    python3 benchmarks/goal_bench.py --loggopsim /tmp/loggopsim --schedgen   # Schedgen files

Timings: parjava's event loop is timed inside the engine (its thread's CPU time). LogGOPSim's
own timer has whole-second resolution, so its loop is timed here from the moment it prints its
banner (just before its loop starts) to the moment it prints its PERFORMANCE line (right
after), with its stdout line-buffered; its "CPU" column is the whole process's CPU time (its
loop plus reading the binary schedule) unless the binary prints a ``LOOP CPU: <s> s`` line,
which a two-line patch around its event loop adds (clock_gettime(CLOCK_PROCESS_CPUTIME_ID)
before and after; not part of this project), then that is the loop's CPU time. Both tools run
single-threaded; the figures are the best of ``--repeat``.

``--cases issue18`` is the set of issue 18 (every schedule family at 2^16 and 2^20 ranks).
``--only REGEX`` keeps the cases whose label matches; ``--no-loggopsim-for REGEX`` runs the
matching cases with parjava alone (LogGOPSim needs minutes for the largest ones).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# (pattern, ranks, bytes, chain_receives). Stock Schedgen recursive doubling makes 2*log2 P
# recvs ready at once and deadlocks in LogGOPSim from P = 256 (anchor §7), so the large
# recursive-doubling cases chain their receives (identical times in both orders).
CASES = {
    "quick": [
        ("binomial_tree_bcast", 1 << 16, 8, False),
        ("dissemination", 1 << 16, 8, False),
        ("allreduce_recursive_doubling", 1 << 16, 8, True),
        ("linear_alltoall", 256, 8, False),
    ],
    "full": [
        ("binomial_tree_bcast", 1 << 16, 8, False),
        ("binomial_tree_bcast", 1 << 20, 8, False),
        ("binomial_tree_reduce", 1 << 20, 1024, False),
        ("dissemination", 1 << 16, 8, False),
        ("dissemination", 1 << 18, 8, False),
        ("dissemination", 1 << 20, 8, False),
        ("allreduce_recursive_doubling", 1 << 16, 8, True),
        ("allreduce_recursive_doubling", 1 << 18, 8, True),
        ("allreduce_recursive_doubling", 1 << 20, 8, True),
        ("linear_alltoall", 256, 8, False),
        ("linear_alltoall", 512, 8, False),
        ("linear_alltoall", 1024, 8, False),
    ],
    "trees": [
        ("binomial_tree_bcast", 1 << 16, 8, False),
        ("binomial_tree_bcast", 1 << 20, 8, False),
        ("binomial_tree_reduce", 1 << 16, 1024, False),
        ("binomial_tree_reduce", 1 << 20, 1024, False),
    ],
    "issue18": [
        ("binomial_tree_bcast", 1 << 16, 8, False),
        ("binomial_tree_bcast", 1 << 20, 8, False),
        ("binomial_tree_reduce", 1 << 16, 1024, False),
        ("binomial_tree_reduce", 1 << 20, 1024, False),
        ("dissemination", 1 << 16, 8, False),
        ("dissemination", 1 << 20, 8, False),
        ("allreduce_recursive_doubling", 1 << 16, 8, True),
        ("allreduce_recursive_doubling", 1 << 20, 8, True),
        ("pipelined_ring", 1 << 16, 8, False),
        ("pipelined_ring", 1 << 20, 8, False),
        ("linear_alltoall", 256, 8, False),
        ("linear_alltoall", 512, 8, False),
    ],
}

# Schedgen invocations (checked against LogGOPSim with parjava reading Schedgen's own text).
SCHEDGEN_CASES = [
    ("binomialtreebcast", 4096, 1024, []),
    ("binomialtreereduce", 4096, 1024, []),
    ("dissemination", 4096, 8, []),
    ("allreduce_recdoub", 128, 8, []),
    ("allreduce_ring", 8, 1024, []),
    ("linear_alltoall", 64, 100, []),
    ("pipelinedring", 64, 10000, ["--segmentsize", "1000"]),
    ("pipelinedringdep", 64, 10000, ["--segmentsize", "1000"]),
    ("gather", 512, 100000, []),
    ("scatter", 512, 100000, []),
    ("linbarrier", 256, 1, []),
    ("doublering", 256, 8, []),
    ("nwaydissemination", 1000, 8, ["--nway", "3"]),
]


@dataclass
class Measured:
    loop_seconds: float  # event loop, wall clock
    loop_cpu_seconds: float  # parjava: the loop's CPU time; LogGOPSim: the whole process's
    wall_seconds: float  # whole process, wall clock
    cpu_seconds: float  # whole process, CPU
    max_rss_mb: float  # peak resident memory since exec (VmHWM)
    events: int
    max_end_time: int | None
    max_host: int | None
    host_times: list[int]
    complete: bool


def _vm_hwm_mb(pid: int | str = "self") -> float:
    """Peak resident memory of a process since its exec (VmHWM), in MB; 0 if gone.

    getrusage's ru_maxrss would also count the memory of this (large) parent at fork time.
    """
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return 0.0


class _PeakMemory(threading.Thread):
    """Samples a child's VmHWM until it exits (VmHWM only grows, so the last sample wins)."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.peak = 0.0
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            self.peak = max(self.peak, _vm_hwm_mb(self.pid))
            self.stop.wait(0.02)


def _wait(proc: subprocess.Popen[str]) -> tuple[int, float]:
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, usage.ru_utime + usage.ru_stime


def run_parjava(binary: Path, order: str) -> Measured:
    """Simulate a saved .pjgoal schedule in a child process."""
    env = dict(os.environ)
    env.setdefault("PYTHONPATH", str(REPO / "python"))
    env.setdefault("PARJAVA_BUILD_DIR", str(REPO / "build" / "dev" / "package"))
    env["OPENBLAS_NUM_THREADS"] = "1"  # NumPy's BLAS threads would only compete for the CPU
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, __file__, "--child", str(binary), "--order", order],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    out = proc.stdout.read()
    code, cpu = _wait(proc)
    wall = time.perf_counter() - start
    if code != 0:
        raise RuntimeError(f"parjava child failed with status {code}")
    r = json.loads(out)
    return Measured(
        r["seconds"],
        r["cpu_seconds"],
        wall,
        cpu,
        r["peak_mb"],
        r["events"],
        r["max"],
        r["max_host"],
        r["hosts"],
        r["complete"],
    )


def child(binary: str, order: str) -> None:
    from parjava import goal

    schedule = goal.load(binary)
    r = schedule.simulate(order=order, check=False, progress=False)
    peak = _vm_hwm_mb()
    print(
        json.dumps(
            {
                "seconds": r.seconds,
                "cpu_seconds": r.cpu_seconds,
                "events": r.events,
                "max": r.max_end_time if r.complete else None,
                "max_host": r.max_host if r.complete else None,
                "hosts": r.end_times.tolist() if r.complete and schedule.ranks <= 16 else [],
                "complete": r.complete,
                "peak_mb": peak,
            }
        )
    )


def run_loggopsim(tools: Path, text: Path, workdir: Path, timeout: float) -> Measured | str:
    """txt2bin + LogGOPSim on a GOAL text file; returns the measurement or why it failed."""
    binary = workdir / (text.stem + ".bin")
    subprocess.run(
        [str(tools / "txt2bin"), "-i", str(text), "-o", str(binary)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    stdbuf = shutil.which("stdbuf")
    command = [str(tools / "LogGOPSim"), "-f", str(binary)]
    start = time.perf_counter()
    proc = subprocess.Popen(
        ([stdbuf, "-oL"] if stdbuf else []) + command, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    memory = _PeakMemory(proc.pid)
    memory.start()
    lines: list[tuple[float, str]] = []
    deadline = start + timeout
    while True:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append((time.perf_counter(), line))
        if time.perf_counter() > deadline:
            proc.kill()
            _wait(proc)
            memory.stop.set()
            binary.unlink(missing_ok=True)
            return f"killed after {timeout:.0f} s"
    code, cpu = _wait(proc)
    memory.stop.set()
    memory.join()
    rss = memory.peak
    wall = time.perf_counter() - start
    binary.unlink(missing_ok=True)
    text_out = "".join(line for _, line in lines)
    if code != 0:
        return f"exit status {code}"
    banner = next(t for t, line in lines if "size:" in line)
    perf_time, perf_line = next((t, line) for t, line in lines if "PERFORMANCE" in line)
    events = int(re.search(r"Events: (\d+)", perf_line).group(1))  # type: ignore[union-attr]
    loop_cpu = re.search(r"LOOP CPU: ([0-9.]+) s", text_out)
    hosts = [int(x) for x in re.findall(r"Host \d+: (\d+)", text_out)]
    m = re.search(r"Maximum finishing time at host (\d+): (\d+)", text_out)
    complete = "queue on host" not in text_out
    if hosts:
        max_end = max(hosts)
        max_host = hosts.index(max_end)
    elif m:
        max_host, max_end = int(m.group(1)), int(m.group(2))
    else:
        max_host = max_end = None  # type: ignore[assignment]
    return Measured(
        perf_time - banner,
        float(loop_cpu.group(1)) if loop_cpu else cpu,
        wall,
        cpu,
        rss,
        events,
        max_end if complete else None,
        max_host if complete else None,
        hosts,
        complete,
    )


def rate(events: int, seconds: float) -> str:
    return f"{events / seconds / 1e6:6.2f}" if seconds > 0 else "   inf"


def compare(mine: Measured, theirs: Measured) -> str:
    same = (
        mine.events == theirs.events
        and mine.complete == theirs.complete
        and mine.max_end_time == theirs.max_end_time
        and mine.max_host == theirs.max_host
        and (not theirs.host_times or mine.host_times == theirs.host_times)
    )
    return "equal" if same else "DIFFERENT"


def best(run, repeat: int):
    results = [run() for _ in range(repeat)]
    ok = [r for r in results if isinstance(r, Measured)]
    if not ok:
        return results[0]
    return min(ok, key=lambda r: r.loop_cpu_seconds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", choices=sorted(CASES), default="quick")
    parser.add_argument("--loggopsim", type=Path, help="directory with txt2bin and LogGOPSim")
    parser.add_argument("--schedgen", action="store_true", help="also check Schedgen's files")
    parser.add_argument("--order", choices=("stable", "loggopsim"), default="loggopsim")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=900.0, help="per LogGOPSim run, s")
    parser.add_argument(
        "--loggopsim-max-alltoall",
        type=int,
        default=512,
        help="skip LogGOPSim for linear_alltoall above this many ranks (anchor §7: 1024 ranks "
        "take more than 30 minutes)",
    )
    parser.add_argument(
        "--only", default=None, help="run only the cases whose label matches this regex"
    )
    parser.add_argument(
        "--no-loggopsim-for",
        default=None,
        help="regex: cases whose label matches run parjava only (LogGOPSim takes minutes)",
    )
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument(
        "--json", "--record", dest="json", type=Path, help="also write the figures as JSON"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.order)
        return 0

    sys.path.insert(0, str(REPO / "python"))
    os.environ.setdefault("PARJAVA_BUILD_DIR", str(REPO / "build" / "dev" / "package"))
    from parjava import goal

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="parjava-goal-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    tools = args.loggopsim
    if tools is not None:
        for name in ("txt2bin", "LogGOPSim"):
            if not (tools / name).exists():
                parser.error(f"{tools / name} not found (build LogGOPSim outside the project)")
    rows = []
    header = (
        f"{'case':44} {'events':>10} | {'pj wall':>7} {'pj cpu':>7} {'Mev/s':>6} {'peak MB':>7} "
        f"{'B/rank':>6} "
        f"| {'LGS wall':>8} {'LGS cpu':>7} {'Mev/s':>6} {'peak MB':>7} | {'x cpu':>5} "
        f"{'x wall':>6} {'result':>9}"
    )
    print(header)
    print("-" * len(header))
    for pattern, ranks, nbytes, chain in CASES[args.cases]:
        label = f"{pattern} P={ranks} d={nbytes}{' chained' if chain else ''}"
        if args.only is not None and not re.search(args.only, label):
            continue
        t0 = time.perf_counter()
        schedule = goal.pattern(pattern, ranks=ranks, bytes=nbytes, chain_receives=chain)
        build_s = time.perf_counter() - t0
        binary = schedule.save(workdir / f"{pattern}-{ranks}.pjgoal")
        row: dict[str, object] = {
            "case": label,
            "ops": schedule.ops,
            "schedule_mb": schedule.memory_bytes / 1e6,
            "build_seconds": build_s,
        }
        skip = pattern == "linear_alltoall" and ranks > args.loggopsim_max_alltoall
        if args.no_loggopsim_for is not None and re.search(args.no_loggopsim_for, label):
            skip = True
        text = workdir / f"{pattern}-{ranks}.goal"
        if tools is not None and not skip:
            t0 = time.perf_counter()
            schedule.save(text)
            row["write_text_seconds"] = time.perf_counter() - t0
        del schedule  # free this process's copy before the children run
        mine = best(lambda binary=binary: run_parjava(binary, args.order), args.repeat)
        row["parjava"] = mine.__dict__
        # Issue 18's bound: 200 B per rank + 16 B per op; this is the peak (Python included)
        # less 16 B per op, per rank.
        per_rank = (mine.max_rss_mb * 1e6 - 16.0 * row["ops"]) / ranks  # type: ignore[operator]
        row["bytes_per_rank_beyond_16_per_op"] = per_rank
        theirs: Measured | str | None = None
        if tools is not None and not skip:
            theirs = best(
                lambda text=text: run_loggopsim(tools, text, workdir, args.timeout), args.repeat
            )
            text.unlink(missing_ok=True)
            row["loggopsim"] = theirs.__dict__ if isinstance(theirs, Measured) else theirs
        binary.unlink(missing_ok=True)
        if isinstance(theirs, Measured):
            x_cpu = theirs.loop_cpu_seconds / max(mine.loop_cpu_seconds, 1e-9)
            x_wall = theirs.loop_seconds / max(mine.loop_seconds, 1e-9)
            verdict = compare(mine, theirs)
            row["speedup_cpu"] = x_cpu
            row["speedup_wall"] = x_wall
            row["result"] = verdict
            lgs = (
                f"| {theirs.loop_seconds:8.2f} {theirs.loop_cpu_seconds:7.2f} "
                f"{rate(theirs.events, theirs.loop_cpu_seconds)} {theirs.max_rss_mb:7.0f} | "
                f"{x_cpu:5.1f} {x_wall:6.1f} {verdict:>9}"
            )
        else:
            note = theirs if isinstance(theirs, str) else ("skipped" if skip else "-")
            lgs = f"| {'':8} {'':7} {'':6} {'':7} | {'':5} {'':6} {note:>9}"
        print(
            f"{label:44} {mine.events:10d} | {mine.loop_seconds:7.2f} {mine.loop_cpu_seconds:7.2f} "
            f"{rate(mine.events, mine.loop_cpu_seconds)} {mine.max_rss_mb:7.0f} {per_rank:6.0f} "
            f"{lgs}",
            flush=True,
        )
        rows.append(row)

    if args.schedgen:
        if tools is None or not (tools / "schedgen").exists():
            parser.error("--schedgen needs --loggopsim DIR with schedgen in it")
        print("\nSchedgen's own files, read by parjava's GOAL reader:")
        for ptrn, ranks, nbytes, extra in SCHEDGEN_CASES:
            text = workdir / f"schedgen-{ptrn}.goal"
            subprocess.run(
                [
                    str(tools / "schedgen"),
                    "-p",
                    ptrn,
                    "-s",
                    str(ranks),
                    "-d",
                    str(nbytes),
                    "-o",
                    str(text),
                    *extra,
                ],
                check=True,
                stdout=subprocess.DEVNULL,
            )
            s = goal.load(text)
            binary = s.save(workdir / f"schedgen-{ptrn}.pjgoal")
            mine = run_parjava(binary, "loggopsim")
            theirs = run_loggopsim(tools, text, workdir, args.timeout)
            verdict = compare(mine, theirs) if isinstance(theirs, Measured) else str(theirs)
            state = "complete" if mine.complete else "deadlock (both)"
            print(
                f"  schedgen -p {ptrn} -s {ranks} -d {nbytes}: {s.ops} ops, {mine.events} "
                f"events, {state}: {verdict}"
            )
            rows.append({"schedgen": ptrn, "ranks": ranks, "result": verdict})
            text.unlink(missing_ok=True)
            binary.unlink(missing_ok=True)

    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    if args.workdir is None:
        shutil.rmtree(workdir, ignore_errors=True)
    different = [r for r in rows if r.get("result") not in (None, "equal")]
    return 1 if different else 0


if __name__ == "__main__":
    raise SystemExit(main())
