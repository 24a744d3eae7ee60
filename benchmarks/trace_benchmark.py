"""Trace loading speed and memory: parjava's open() against the OTF2 library's own reading.

Generates a large OTF2 trace once (trace_generate: 10 million events of a 64-rank MPI halo
exchange by default), then alternates runs of

- trace_baseline: the OTF2 library reading the archive with an empty callback per record (the
  physical limit of the format; also once skipping the local definition files that hold no
  record, as parjava does, to show that this is no advantage over the library), and
- trace_load: parjava::trace::open() -- reading, time ordering and all matching --

so both see the same machine load, and prints the best time of each, their ratio (issue 18's
target: at most 1.1) and the memory per event (target: under 64 bytes). On a shared machine run
it under ``chrt -f 10`` (as the recorded figures were) and compare the load average it prints.

    make build
    python3 benchmarks/trace_benchmark.py [--events 10000000] [--ranks 64] [--rounds 5]
        [--threads 1 0] [--record benchmarks/trace_results.json]

``--threads 0`` is open()'s default (the machine's cores, at most 8). The programs are built
with the tests (``make build``) in ``build/dev/benchmarks``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run(command: list[str]) -> str:
    """Run a benchmark program and return its standard output."""
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr}")
    return done.stdout


def number(pattern: str, text: str) -> float:
    """The first number captured by ``pattern`` in ``text``."""
    found = re.search(pattern, text)
    if not found:
        sys.exit(f"unexpected benchmark output (no {pattern!r}):\n{text}")
    return float(found.group(1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000_000)
    parser.add_argument("--ranks", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=5, help="alternations of the two programs")
    parser.add_argument(
        "--threads", type=int, nargs="+", default=[1, 0], help="open() threads (0: default)"
    )
    parser.add_argument("--build", type=Path, default=REPO / "build" / "dev")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/parjava-trace-benchmark"))
    parser.add_argument("--record", type=Path, help="also write the figures as JSON here")
    args = parser.parse_args()

    programs = args.build / "benchmarks"
    for name in ("trace_generate", "trace_baseline", "trace_load"):
        if not (programs / name).exists():
            sys.exit(f"{programs / name} is missing: run `make build` first")
    archive = args.dir / f"mpi-{args.ranks}ranks-{args.events}events"
    anchor = archive / "traces.otf2"
    if not anchor.exists():
        print(f"generating {archive} ...", flush=True)
        print(
            run(
                [
                    str(programs / "trace_generate"),
                    "-o",
                    str(archive),
                    "--ranks",
                    str(args.ranks),
                    "--events",
                    str(args.events),
                ]
            ).strip()
        )

    baseline = float("inf")
    baseline_skipping = float("inf")
    baseline_firsts: list[float] = []
    events = 0
    ours: dict[int, dict[str, float]] = {}
    for round_ in range(args.rounds):
        out = run([str(programs / "trace_baseline"), str(anchor), "3"])
        baseline = min(baseline, number(r"best of \d+: ([0-9.]+) s", out))
        baseline_firsts.append(number(r"first read in this process: ([0-9.]+) s", out))
        events = int(number(r"\): (\d+) events", out))
        out = run([str(programs / "trace_baseline"), str(anchor), "3", "skip-empty"])
        baseline_skipping = min(baseline_skipping, number(r"best of \d+: ([0-9.]+) s", out))
        for threads in args.threads:
            out = run([str(programs / "trace_load"), str(anchor), "3", str(threads)])
            best = ours.setdefault(threads, {"seconds": float("inf"), "first_opens": []})
            best["seconds"] = min(best["seconds"], number(r"best of \d+: ([0-9.]+) s", out))
            best["first_opens"].append(number(r"first open in this process: ([0-9.]+) s", out))
            if round_ == 0:
                best["memory_bytes_per_event"] = number(r"memory_bytes\(\) ([0-9.]+)", out)
                best["rss_growth_per_event"] = number(r"RSS growth ([0-9.]+)", out)
                best["peak_rss_growth_per_event"] = number(r"peak RSS growth ([0-9.]+)", out)
                best["unmatched"] = number(r"(\d+) unmatched", out)

    print(f"\narchive: {anchor} ({events:,} events, {args.ranks} ranks)")
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    print(
        f"OTF2 library, empty callbacks: {baseline:.3f} s  ({events / baseline / 1e6:.1f} M "
        "events/s)"
    )
    print(
        f"{'':>31}skipping empty local definition files: {baseline_skipping:.3f} s "
        f"({events / baseline_skipping / 1e6:.1f} M events/s)"
    )
    baseline_first = sorted(baseline_firsts)[len(baseline_firsts) // 2]
    print(f"{'':>31}first read in a fresh process: {baseline_first:.3f} s (median)")
    for threads, fig in ours.items():
        label = "default threads" if threads == 0 else f"{threads} thread(s)"
        fig["first_open_median"] = sorted(fig["first_opens"])[len(fig["first_opens"]) // 2]
        print(
            f"parjava open(), {label:>15}: {fig['seconds']:.3f} s  "
            f"({events / fig['seconds'] / 1e6:.1f} M events/s)  ratio "
            f"{fig['seconds'] / baseline:.2f}  memory_bytes {fig['memory_bytes_per_event']:.1f} "
            f"B/event, RSS +{fig['rss_growth_per_event']:.1f} B/event (peak "
            f"+{fig['peak_rss_growth_per_event']:.1f})"
        )
        print(
            f"{'':>31}first open in a fresh process: {fig['first_open_median']:.3f} s "
            f"(median of {len(fig['first_opens'])}), ratio to the baseline's first read "
            f"{fig['first_open_median'] / baseline_first:.2f}"
        )
    if args.record:
        args.record.write_text(
            json.dumps(
                {
                    "events": events,
                    "ranks": args.ranks,
                    "cores": os.cpu_count(),
                    "load_average": round(os.getloadavg()[0], 1),
                    "baseline_seconds": baseline,
                    "baseline_skipping_empty_local_definitions_seconds": baseline_skipping,
                    "baseline_first_read_median": baseline_first,
                    "parjava": {str(k): v for k, v in ours.items()},
                },
                indent=2,
            )
            + "\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
