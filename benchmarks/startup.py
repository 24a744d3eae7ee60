"""Start-up time of the command line and of ``import parjava`` (issue 18, item 3).

Runs each command ``--rounds`` times, interleaved with a bare ``python3 -c pass`` so all see
the same machine load, and prints the min and median wall time of each, the same minus the bare
interpreter's (what parjava itself adds), and which heavy modules (NumPy, pandas, SciPy,
matplotlib, the C++ extension) the command imported. Targets: ``parjava --help`` and
``parjava predict --goal small.goal`` under 0.15 s, ``import parjava`` under 0.3 s.

    python3 benchmarks/startup.py [--rounds 20] [--record benchmarks/results/startup.json]

The package is imported from this source tree (python/ and build/dev/package) with bytecode
caches compiled first, as an installed package has them: an environment with
PYTHONDONTWRITEBYTECODE would otherwise compile every module on every start.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("numpy", "pandas", "scipy", "matplotlib", "parjava._core")

# The small GOAL schedule of the predict case: a binomial broadcast on 4 ranks.
SMALL_GOAL = """num_ranks 4
rank 0 {
l1: send 8b to 1 tag 0
l2: send 8b to 2 tag 0
}
rank 1 {
l1: recv 8b from 0 tag 0
l2: send 8b to 3 tag 0
l2 requires l1
}
rank 2 {
l1: recv 8b from 0 tag 0
}
rank 3 {
l1: recv 8b from 1 tag 0
}
"""

# Prints the heavy modules a command imported, after running it in this interpreter.
PROBE = (
    "import sys, runpy\n"
    "sys.argv = {argv!r}\n"
    "try:\n"
    "    runpy.run_module('parjava', run_name='__main__') if len(sys.argv) > 1 else "
    "__import__('parjava')\n"
    "except SystemExit:\n"
    "    pass\n"
    "print('HEAVY', [m for m in {heavy!r} if m in sys.modules], file=sys.stderr)\n"
)


def timed(command: list[str], env: dict[str, str]) -> float:
    """Wall time of one run of ``command``; it must succeed."""
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def heavy_imports(argv: list[str], env: dict[str, str]) -> list[str]:
    """The heavy modules imported by ``parjava ARGV`` (or by ``import parjava`` for [])."""
    code = PROBE.format(argv=["parjava", *argv] if argv else ["-"], heavy=HEAVY)
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    line = next(x for x in done.stderr.splitlines() if x.startswith("HEAVY "))
    return list(json.loads(line[len("HEAVY ") :].replace("'", '"')))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--build", type=Path, default=REPO / "build" / "dev")
    parser.add_argument("--python-dir", type=Path, default=REPO / "python")
    parser.add_argument("--record", type=Path, help="also write the figures as JSON")
    args = parser.parse_args()

    compileall.compile_dir(str(args.python_dir / "parjava"), quiet=1)
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = str(args.python_dir)
    env["PARJAVA_BUILD_DIR"] = str(args.build / "package")
    with tempfile.TemporaryDirectory() as tmp:
        small = Path(tmp) / "small.goal"
        small.write_text(SMALL_GOAL)
        cases = {
            "python3 -c pass": ([sys.executable, "-c", "pass"], None),
            "parjava --help": ([sys.executable, "-m", "parjava", "--help"], ["--help"]),
            "parjava predict --goal small.goal": (
                [sys.executable, "-m", "parjava", "predict", "--goal", str(small)],
                ["predict", "--goal", str(small)],
            ),
            "import parjava": ([sys.executable, "-c", "import parjava"], []),
        }
        times: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.rounds):
            for name, (command, _argv) in cases.items():
                times[name].append(timed(command, env))
        heavy = {
            name: heavy_imports(argv, env) for name, (_c, argv) in cases.items() if argv is not None
        }
    load = os.getloadavg()
    bare = statistics.median(times["python3 -c pass"])
    print(f"{args.rounds} interleaved rounds; load average {load[0]:.2f} {load[1]:.2f}")
    print(f"{'command':36} {'min s':>7} {'median s':>8} {'- bare':>7}  heavy modules imported")
    rows = {}
    for name, values in times.items():
        lo, med = min(values), statistics.median(values)
        extra = heavy.get(name)
        print(
            f"{name:36} {lo:7.3f} {med:8.3f} {med - bare:7.3f}  "
            f"{'' if extra is None else (', '.join(extra) or 'none')}"
        )
        rows[name] = {"min": lo, "median": med, "over_bare_median": med - bare, "heavy": extra}
    if args.record:
        args.record.parent.mkdir(parents=True, exist_ok=True)
        record = {
            "machine": platform.processor() or platform.machine(),
            "cores": os.cpu_count(),
            "load_average": load,
            "rounds": args.rounds,
            "commands": rows,
        }
        args.record.write_text(json.dumps(record, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
