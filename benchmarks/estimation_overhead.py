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

With ``--instructions``, the last estimation's two programs also run once each under callgrind
(valgrind) at the program's callgrind input, and the ratio of the instructions they execute is
printed: the probes' cost as this VM's phases cannot move it (the same binary's times spread
1.0-1.5 s within minutes, 2026-12-02).

    PYTHONPATH=python PARJAVA_BUILD_DIR=build/dev/package python3 benchmarks/estimation_overhead.py
    [--repeat 3] [--instructions] [--record benchmarks/results/estimation_overhead.json]
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
    small: tuple[str, ...] = ()  # arguments of the callgrind runs (default: run's)


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
        "sweep_kernel/sweep.c (minisweep's cell kernel)",
        (str(PROGRAMS / "sweep_kernel" / "sweep.c"),),
        ("-O2", "-DNM_VALUE=4"),
        ("./sweep", "16", "64", "8"),
        ("8", "64", "2"),
    ),
    Program(
        "counted/kronecker.c (graph500's counted edge tests)",
        (str(PROGRAMS / "counted" / "kronecker.c"),),
        ("-O2",),
        ("./kronecker", "2000000"),
        ("200000",),
    ),
    Program(
        "alloc_wrapper/main.c (miniAMR's ma_malloc)",
        (str(PROGRAMS / "alloc_wrapper" / "main.c"),),
        ("-O2",),
        ("./alloc_wrapper", "400000", "10"),
        ("100000", "4"),
    ),
    Program(
        "pragma_macro/md.c (builds only preprocess-first)",
        (str(PROGRAMS / "pragma_macro" / "md.c"),),
        ("-O2", "-fopenmp"),
        ("./md", "100000", "4"),
    ),
]


def instructions(exe: Path, args: list[str]) -> int:
    """Instructions one singleton run of ``exe`` executes, counted by callgrind."""
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", str(exe), *args],
        cwd=exe.parent,
        capture_output=True,
        text=True,
        check=True,
        timeout=1800,
    ).stderr
    found = re.search(r"Collected : (\d+)", out)
    if found is None:
        raise RuntimeError(f"callgrind printed no count for {exe}: {out[-300:]}")
    return int(found.group(1))


def instruction_ratio(est: pj.Estimation, args: list[str]) -> float | None:
    """The estimation code's instructions over the unmodified program's, or None without an
    unmodified build."""
    plain = Path(est.directory) / "unmodified" / "program"
    probed = Path(est.directory) / "estimation-code"
    if not plain.exists() or not probed.exists():
        return None
    return instructions(probed, args) / instructions(plain, args)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="estimations per program (3)")
    parser.add_argument("--record", help="write the figures as JSON here")
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count both programs' instructions under callgrind (load-independent)",
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="parjava-overhead-"))
    settings = work / "run.in"
    settings.write_text("cstop 20\ntstop 1.0\nwork 400000\n")
    load_before = os.getloadavg()[0]
    print(f"load {load_before:.2f} on {os.cpu_count()} CPUs; {args.repeat} estimations each")
    print(
        f"{'program':52} {'overhead min/med':>17} {'self-check min/med':>19} {'probe scale':>11}"
        f"{'  instructions' if args.instructions else ''}  note"
    )
    rows = []
    for p in LIST:
        run = [a.replace("{settings}", str(settings)) for a in p.run]
        overheads, errors, scales, notes = [], [], [], []
        ratio: float | None = None
        t0 = time.monotonic()
        for i in range(args.repeat):
            model = pj.build_model(list(p.sources), list(p.flags), argv=run)
            keep = work / f"{len(rows)}-{i}" if args.instructions else None
            est = model.estimate(run=run, np=1, directory=keep)
            check = est.self_check
            if est.overhead is not None:
                overheads.append(est.overhead)
            if check is not None:
                errors.append(check.error)
            scales.append(est.probe_scale)
            notes += [d.message for d in est.diagnostics if "unmodified program" in d.message]
            if args.instructions and i == args.repeat - 1:
                ratio = instruction_ratio(est, list(p.small) or run[1:])
        note = "" if overheads else (notes[0][:70] if notes else "no unmodified run")
        row = {
            "program": p.name,
            "overhead": overheads,
            "self_check_error": errors,
            "baseline": "unmodified" if overheads else "estimation",
            "probe_scale": scales,
            "instruction_ratio": ratio,
            "seconds": time.monotonic() - t0,
        }
        rows.append(row)

        def pair(values: list[float], pct: bool) -> str:
            if not values:
                return "-"
            best = min(values, key=abs) if pct else min(values)
            mid = statistics.median(values)
            return f"{100 * best:+.0f}%/{100 * mid:+.0f}%" if pct else f"{best:.2f}x/{mid:.2f}x"

        counted = ""
        if args.instructions:
            counted = f"  {ratio:>11.2f}x" if ratio is not None else f"  {'-':>12}"
        print(
            f"{p.name:52} {pair(overheads, False):>17} {pair(errors, True):>19} "
            f"{statistics.median(scales):>11.2f}{counted}  {note}",
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
