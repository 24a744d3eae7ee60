"""Replay accuracy on the machine a run was traced on (issue 14, "How it is checked").

Every case is a real MPI run (``mpirun --oversubscribe``) of one of the project's examples or
of tests/programs/replay/exchange.c (compute, ring exchange and allreduce, with the message
size, blocking or not, and the imbalance as options), at np 2 and 4. Each case is traced
``--repeat`` times with parjava's tracer and each trace is replayed with
``parjava.replay(trace, machine)`` on the machine measured here by netbench
(``Machine.measure(np=2)``, or ``--machine FILE``). Per run it prints:

* the recorded and the replayed run time and the error (the issue's bar: within 5 %);
* the same for the main window, from the last rank's end of MPI_Init to the last rank's start
  of MPI_Finalize (MPI_Init keeps its measured time in a replay and MPI_Finalize holds the
  tracer's flush, so the whole run hides part of the error);
* ``cpu``: the CPU seconds the ranks got (``getrusage(RUSAGE_CHILDREN)`` around the traced
  run) over np times the recorded run time. Open MPI's ranks busy-poll inside MPI, so on a machine
  with a core per rank and nothing else running this is close to 1; below it, ranks waited for
  a core, and a rank descheduled inside MPI stalls its partner, which the trace records as MPI
  time that no network model (and so no replay) contains;
* ``stall``: the recorded time inside MPI calls that took more than 20 times their rank's
  median for the same call and size and longer than 1 ms, per rank, as a share of the window:
  the time slices lost inside MPI.

The summary gives the median absolute error per case and the error of the least-disturbed
run (highest ``cpu``). Load average before and after.

    make build
    python3 benchmarks/replay_accuracy.py [--repeat 3] [--only exchange] [--machine m.json]

benchmarks/replay_vs_model.py compares a replay with the source model on another machine.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
EXCHANGE = REPO / "tests" / "programs" / "replay" / "exchange.c"


def cases(examples: Path, exchange: Path) -> list[tuple[str, list[str], int]]:
    """(name, command, np) of every case."""
    e = str(examples)
    x = str(exchange)
    out: list[tuple[str, list[str], int]] = []
    for np_ in (2, 4):
        out += [
            ("pingpong -d 1", [f"{e}/pingpong", "-n", "200", "-s", "1024", "-d", "1"], np_),
            (
                "ring 64 KiB",
                [f"{e}/pingpong", "-n", "100", "-s", "65536", "-d", "1", "-r", "1"],
                np_,
            ),
            ("phases", [f"{e}/phases"], np_),
            ("scan_imbalance", [f"{e}/scan_imbalance"], np_),
            ("stencil2d", [f"{e}/stencil2d"], np_),
            ("master_worker", [f"{e}/master_worker", "-t", "12", "-w", "300"], np_ + 1),
            ("exchange 1 KiB", [x, "-n", "100", "-c", "2000", "-i", "30", "-s", "1024"], np_),
            ("exchange 1 MiB nb", [x, "-n", "50", "-c", "2000", "-s", "1048576", "-b", "1"], np_),
            (
                "exchange allreduce 64 Ki",
                [x, "-n", "50", "-c", "1000", "-s", "0", "-a", "65536"],
                np_,
            ),
        ]
    return out


def region_times(trace: Any, name: str, kind: str) -> np.ndarray:
    """Per location, the first ENTER ('enter') or LEAVE ('leave') time (s) of region `name`."""
    import parjava as pj

    names = [r.name for r in trace.regions]
    if name not in names:
        return np.array([])
    ev = trace.events
    want = pj.EventKind.ENTER if kind == "enter" else pj.EventKind.LEAVE
    hit = np.flatnonzero((ev.kind == int(want)) & (ev.region == names.index(name)))
    out = {}
    for i in hit:
        out.setdefault(int(ev.location[i]), int(ev.time[i]))
    return np.array(sorted(out.values()), dtype=float) * 1e-9


def window(trace: Any) -> float:
    """The last rank's MPI_Init end to the last rank's MPI_Finalize start (s), or NaN."""
    start = region_times(trace, "MPI_Init", "leave")
    end = region_times(trace, "MPI_Finalize", "enter")
    if len(start) == 0 or len(end) == 0:
        return float("nan")
    return float(end.max() - start.max())


def stall(trace: Any) -> float:
    """Seconds inside MPI calls far above their median (time slices lost), worst rank."""
    ev = trace.events
    names = [r.name for r in trace.regions]
    enter, leave = 0, 1
    worst = 0.0
    for loc in range(trace.location_count):
        idx = np.flatnonzero(ev.location == loc)
        stack: list[int] = []
        durations: dict[tuple[int, int], list[float]] = {}
        size = 0
        for i in idx:
            k = int(ev.kind[i])
            if k == enter:
                stack.append(int(i))
                size = 0
            elif k == leave and stack:
                j = stack.pop()
                region = int(ev.region[i])
                if names[region].startswith("MPI_") and names[region] not in (
                    "MPI_Init",
                    "MPI_Finalize",
                ):
                    durations.setdefault((region, size), []).append(
                        (ev.time[i] - ev.time[j]) * 1e-9
                    )
            elif stack:
                size = max(size, int(ev.bytes[i]))
        lost = 0.0
        for values in durations.values():
            median = statistics.median(values)
            lost += sum(v - median for v in values if v > 20 * median and v > 1e-3)
        worst = max(worst, lost)
    return worst


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--machine", type=Path, help="machine JSON (default: netbench now)")
    parser.add_argument("--only", help="run the cases whose name contains this")
    parser.add_argument("--np", type=int, choices=(2, 4), help="only this np")
    parser.add_argument("--build", type=Path, default=REPO / "build" / "dev")
    args = parser.parse_args()
    os.environ.setdefault("PARJAVA_BUILD_DIR", str(args.build / "package"))
    for key, value in (
        ("OMPI_ALLOW_RUN_AS_ROOT", "1"),
        ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"),
        ("OMPI_MCA_rmaps_base_oversubscribe", "1"),
    ):
        os.environ.setdefault(key, value)
    sys.path.insert(0, str(REPO / "python"))
    import parjava as pj

    work = Path(tempfile.mkdtemp(prefix="parjava-replay-accuracy-"))
    exchange = work / "exchange"
    subprocess.run(["mpicc", "-O2", "-o", str(exchange), str(EXCHANGE)], check=True)
    machine = pj.Machine.load(args.machine) if args.machine else pj.Machine.measure(np=2)
    print(f"machine: {machine.name}; load average {os.getloadavg()[0]:.2f}")
    print(
        f"{'case':28} {'np':>2} {'recorded s':>10} {'replayed s':>10} {'error':>7} "
        f"{'window s':>9} {'replayed':>9} {'error':>7} {'cpu':>5} {'stall':>6} {'load':>5}"
    )
    rows: dict[tuple[str, int], list[tuple[float, float, float]]] = {}
    for name, command, np_ in cases(args.build / "examples", exchange):
        if (args.only and args.only not in name) or (args.np and np_ not in (args.np, args.np + 1)):
            continue
        for k in range(args.repeat):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            trace = pj.trace(command, np=np_, output=work / f"run-{k}", timeout=600, force=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            r = pj.replay(trace, machine)
            cpu = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) / (
                np_ * r.original_time
            )
            w0, w1 = window(trace), window(r.trace)
            werr = w1 / w0 - 1.0
            lost = stall(trace) / w0 if w0 > 0 else float("nan")
            rows.setdefault((name, np_), []).append((r.change, werr, cpu))
            print(
                f"{name:28} {np_:>2} {r.original_time:>10.4f} {r.time:>10.4f} {r.change:>+7.1%} "
                f"{w0:>9.4f} {w1:>9.4f} {werr:>+7.1%} {cpu:>5.2f} {lost:>6.1%} "
                f"{os.getloadavg()[0]:>5.2f}",
                flush=True,
            )
    print(f"\nsummary (load average {os.getloadavg()[0]:.2f}):")
    print(
        f"{'case':28} {'np':>2} {'median |error| run':>18} {'window':>8} "
        f"{'least disturbed: cpu':>21} {'run':>7} {'window':>7}"
    )
    for (name, np_), values in rows.items():
        best = max(values, key=lambda v: v[2])
        print(
            f"{name:28} {np_:>2} {statistics.median(abs(v[0]) for v in values):>18.1%} "
            f"{statistics.median(abs(v[1]) for v in values):>8.1%} {best[2]:>21.2f} "
            f"{best[0]:>+7.1%} {best[1]:>+7.1%}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
