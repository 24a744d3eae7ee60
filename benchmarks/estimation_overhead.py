"""Estimation code overhead and self-check error against the unmodified program (issue 12,
item 4: the estimation code runs at most 1.3x the program's own time; issue 13, item 3).

Estimates each program of its list (our own test programs; the public mini-apps' figures are
benchmarks/real_apps.py's) ``--repeat`` times at its test input, each time
building and running the unmodified program beside the estimation code (``reference=True``),
and prints per program the minimum and median of ``Estimation.overhead`` (the estimation
code's MPI_Init-to-MPI_Finalize time over the unmodified program's) and of the self-check's
error, and the factor applied to the probes' calibrated cost (``Estimation.probe_scale``, 1
when the calibration stands), with the machine's load before and after. A program whose
unmodified build cannot be made says so (md.c builds only preprocess-first).

    PYTHONPATH=python PARJAVA_BUILD_DIR=build/dev/package python3 benchmarks/estimation_overhead.py
    [--repeat 3] [--record benchmarks/results/estimation_overhead.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import parjava as pj

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = ROOT / "tests" / "programs"


@dataclass(frozen=True)
class Program:
    """One program of the list: its sources, flags and test command line."""

    name: str
    sources: tuple[str, ...]
    flags: tuple[str, ...]
    run: tuple[str, ...]


LIST = [
    Program(
        "openmp_loops/forces.c (4 OpenMP loops)",
        (str(PROGRAMS / "openmp_loops" / "forces.c"),),
        ("-O2", "-fopenmp"),
        ("./forces", "400000", "20"),
    ),
    Program(
        "loop_returns/search.c (a search loop left by return)",
        (str(PROGRAMS / "loop_returns" / "search.c"),),
        ("-O2",),
        ("./search", "20000", "10"),
    ),
    Program(
        "mpi_wrappers (checked wrappers, 2 files)",
        (str(PROGRAMS / "mpi_wrappers" / "main.c"), str(PROGRAMS / "mpi_wrappers" / "wrappers.c")),
        ("-O2",),
        ("./wrappers", "3000", "10"),
    ),
    Program(
        "inputs/table_file.cpp (PENNANT's input table)",
        (str(PROGRAMS / "inputs" / "table_file.cpp"),),
        ("-O2",),
        ("./table_file", "{settings}"),
    ),
    Program(
        "pragma_macro/md.c (builds only preprocess-first)",
        (str(PROGRAMS / "pragma_macro" / "md.c"),),
        ("-O2", "-fopenmp"),
        ("./md", "100000", "4"),
    ),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="estimations per program (3)")
    parser.add_argument("--record", help="write the figures as JSON here")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="parjava-overhead-"))
    settings = work / "run.in"
    settings.write_text("cstop 20\ntstop 1.0\nwork 400000\n")
    load_before = os.getloadavg()[0]
    print(f"load {load_before:.2f} on {os.cpu_count()} CPUs; {args.repeat} estimations each")
    print(
        f"{'program':52} {'overhead min/med':>17} {'self-check min/med':>19} {'probe scale':>11}"
        "  note"
    )
    rows = []
    for p in LIST:
        run = [a.replace("{settings}", str(settings)) for a in p.run]
        overheads, errors, scales, notes = [], [], [], []
        t0 = time.monotonic()
        for _ in range(args.repeat):
            model = pj.build_model(list(p.sources), list(p.flags), argv=run)
            est = model.estimate(run=run, np=1)
            check = est.self_check
            if est.overhead is not None:
                overheads.append(est.overhead)
            if check is not None:
                errors.append(check.error)
            scales.append(est.probe_scale)
            notes += [d.message for d in est.diagnostics if "unmodified program" in d.message]
        note = "" if overheads else (notes[0][:70] if notes else "no unmodified run")
        row = {
            "program": p.name,
            "overhead": overheads,
            "self_check_error": errors,
            "baseline": "unmodified" if overheads else "estimation",
            "probe_scale": scales,
            "seconds": time.monotonic() - t0,
        }
        rows.append(row)

        def pair(values: list[float], pct: bool) -> str:
            if not values:
                return "-"
            best = min(values, key=abs) if pct else min(values)
            mid = statistics.median(values)
            return f"{100 * best:+.0f}%/{100 * mid:+.0f}%" if pct else f"{best:.2f}x/{mid:.2f}x"

        print(
            f"{p.name:52} {pair(overheads, False):>17} {pair(errors, True):>19} "
            f"{statistics.median(scales):>11.2f}  {note}",
            flush=True,
        )
    load_after = os.getloadavg()[0]
    print(f"load {load_after:.2f} after")
    if args.record:
        Path(args.record).write_text(
            json.dumps(
                {"load_before": load_before, "load_after": load_after, "rows": rows}, indent=1
            )
            + "\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
