"""The LogGP engine alone beside LogGOPSim, interleaved rounds (issue 18, item 2).

For each case, the schedule is written once as GOAL text by ``goal_simulate pattern ... write``
and converted with LogGOPSim's ``txt2bin``; then every round runs LogGOPSim on it and each
given engine binary (``goal_simulate pattern NAME RANKS BYTES [chain] repeat 1``: the schedule
built in memory, no Python) one after the other, so all see the same machine load. It prints,
per case and tool, the event loop's CPU time (min / median over the rounds), the ratio of
LogGOPSim's to each engine's (min / median), the engine's memory beyond 16 bytes per op per rank
(process peak; issue 18's bound is 200), and whether the event count, maximum end time and its
host are identical for every tool in every round.

LogGOPSim's loop CPU needs the two-line ``LOOP CPU:`` patch described in goal_bench.py (built
outside the project); without it the case is reported as not comparable.

    python3 benchmarks/goal_side_by_side.py --loggopsim /tmp/loggopsim --rounds 5 \
        --engine new=build/dev/benchmarks/goal_simulate --engine old=/tmp/goal_simulate_old \
        --record benchmarks/results/goal_side_by_side.json

``--cases`` takes goal_bench.py's case sets; ``--only REGEX`` keeps matching labels;
``--no-loggopsim-for REGEX`` runs the engines alone on matching cases (LogGOPSim needs minutes
on dissemination and recursive doubling at 2^20 ranks).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from goal_bench import CASES

REPO = Path(__file__).resolve().parents[1]


def load() -> float:
    return os.getloadavg()[0]


def run_engine(binary: str, args: list[str]) -> dict[str, float | int]:
    out = subprocess.run(
        [binary, "pattern", *args, "repeat", "1"], check=True, capture_output=True, text=True
    ).stdout
    m = re.search(r"events (\d+) max (\d+) host (\d+) complete (\d)", out)
    cpu = re.search(r"loop cpu min ([0-9.]+)", out)
    rss = re.search(r"process peak rss (\d+)", out)
    per_rank = re.search(r"process peak ([0-9.-]+) \(bound", out)
    assert m and cpu and rss and per_rank, out
    return {
        "events": int(m.group(1)),
        "max": int(m.group(2)),
        "host": int(m.group(3)),
        "loop_cpu": float(cpu.group(1)),
        "peak_rss_mb": int(rss.group(1)) / 2**20,
        "bytes_per_rank_beyond_16_per_op": float(per_rank.group(1)),
    }


def run_loggopsim(tools: Path, binary: Path) -> dict[str, float | int] | str:
    proc = subprocess.run(
        [str(tools / "LogGOPSim"), "-f", str(binary)], capture_output=True, text=True
    )
    out = proc.stdout + proc.stderr
    cpu = re.search(r"LOOP CPU: ([0-9.]+) s", out)
    events = re.search(r"Events: (\d+)", out)
    m = re.search(r"Maximum finishing time at host (\d+): (\d+)", out)
    if proc.returncode != 0 or not (cpu and events and m):
        return f"no LOOP CPU / result line (status {proc.returncode})"
    return {
        "events": int(events.group(1)),
        "max": int(m.group(2)),
        "host": int(m.group(1)),
        "loop_cpu": float(cpu.group(1)),
    }


def summary(values: list[float]) -> tuple[float, float]:
    return min(values), statistics.median(values)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--loggopsim", type=Path, help="directory with txt2bin and LogGOPSim")
    parser.add_argument(
        "--engine",
        action="append",
        default=[],
        help="LABEL=PATH of a goal_simulate binary (repeatable; default: this build's)",
    )
    parser.add_argument("--cases", choices=sorted(CASES), default="issue18")
    parser.add_argument("--only", default=None)
    parser.add_argument("--no-loggopsim-for", default=None)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--record", type=Path, help="also write the figures as JSON")
    args = parser.parse_args()

    engines = [tuple(e.split("=", 1)) for e in args.engine] or [
        ("parjava", str(REPO / "build" / "dev" / "benchmarks" / "goal_simulate"))
    ]
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="parjava-goal-side-"))
    workdir.mkdir(parents=True, exist_ok=True)
    rows = []
    different = False
    for pattern, ranks, nbytes, chain in CASES[args.cases]:
        label = f"{pattern} P={ranks} d={nbytes}{' chained' if chain else ''}"
        if args.only is not None and not re.search(args.only, label):
            continue
        case_args = [pattern, str(ranks), str(nbytes)] + (["chain"] if chain else [])
        with_lgs = args.loggopsim is not None and not (
            args.no_loggopsim_for and re.search(args.no_loggopsim_for, label)
        )
        binary = workdir / f"{pattern}-{ranks}.bin"
        if with_lgs:
            text = workdir / f"{pattern}-{ranks}.goal"
            subprocess.run(
                [engines[0][1], "pattern", *case_args, "write", str(text)],
                check=True,
                stdout=subprocess.DEVNULL,
            )
            subprocess.run(
                [str(args.loggopsim / "txt2bin"), "-i", str(text), "-o", str(binary)],
                check=True,
                stdout=subprocess.DEVNULL,
            )
            text.unlink()
        runs: dict[str, list[dict[str, float | int]]] = {name: [] for name, _ in engines}
        lgs_runs: list[dict[str, float | int]] = []
        lgs_failed = None
        loads = []
        for _ in range(args.rounds):
            loads.append(load())
            if with_lgs and lgs_failed is None:
                r = run_loggopsim(args.loggopsim, binary)
                if isinstance(r, str):
                    lgs_failed = r
                else:
                    lgs_runs.append(r)
            for name, path in engines:
                runs[name].append(run_engine(path, case_args))
        binary.unlink(missing_ok=True)
        results = {(r["events"], r["max"], r["host"]) for rs in runs.values() for r in rs} | {
            (r["events"], r["max"], r["host"]) for r in lgs_runs
        }
        equal = len(results) == 1
        different |= not equal
        row: dict[str, object] = {
            "case": label,
            "rounds": args.rounds,
            "load_average_1min": loads,
            "equal": equal,
            "result": sorted(results),
        }
        line = f"{label:46} load {min(loads):4.1f}-{max(loads):4.1f}"
        if lgs_runs:
            lmin, lmed = summary([float(r["loop_cpu"]) for r in lgs_runs])
            row["loggopsim_loop_cpu"] = {"min": lmin, "median": lmed}
            line += f" | LogGOPSim {lmin:.4f}/{lmed:.4f}"
        elif lgs_failed:
            row["loggopsim"] = lgs_failed
        for name, _ in engines:
            emin, emed = summary([float(r["loop_cpu"]) for r in runs[name]])
            per_rank = max(float(r["bytes_per_rank_beyond_16_per_op"]) for r in runs[name])
            entry: dict[str, object] = {
                "loop_cpu": {"min": emin, "median": emed},
                "peak_rss_mb": max(float(r["peak_rss_mb"]) for r in runs[name]),
                "bytes_per_rank_beyond_16_per_op": per_rank,
            }
            line += f" | {name} {emin:.4f}/{emed:.4f} {per_rank:5.0f} B/rank"
            if lgs_runs:
                entry["speedup"] = {"min": lmin / emin, "median": lmed / emed}
                line += f" {lmin / emin:5.1f}x/{lmed / emed:5.1f}x"
            row[name] = entry
        line += " equal" if equal else " DIFFERENT"
        print(line, flush=True)
        rows.append(row)
    if args.record:
        args.record.write_text(json.dumps(rows, indent=2) + "\n")
    return 1 if different else 0


if __name__ == "__main__":
    raise SystemExit(main())
