"""The estimation code's own cost on a tiny function entered millions of times (issue 13).

miniAMR allocates its blocks through `ma_malloc`, a one-block wrapper around `malloc` called
8.9 million times from its allocation loops; every call ran the wrapper's block probes, and
the sampled ones read the clock twice, so the estimation code ran 57 % slower than the program
and the model followed it. tests/programs/alloc_wrapper is that idiom in a small program of our
own. Real mpirun runs of the real instrumented program against the program itself.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

import parjava as pj

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

MAIN = Path(__file__).resolve().parents[1] / "programs" / "alloc_wrapper" / "main.c"
ROWS, STEPS = 400000, 10
CALLS = ROWS * STEPS + 1  # the rows of every step and the array of rows


def own_times(exe: Path, cwd: Path) -> tuple[float, float]:
    """The wall and CPU seconds the program reports for MPI_Init..MPI_Finalize."""
    mpirun = shutil.which("mpirun") or "mpirun"
    out = subprocess.run(
        [mpirun, "--oversubscribe", "-np", "1", str(exe), str(ROWS), str(STEPS)],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    m = re.search(r"(\d+) allocations, .* wall ([0-9.]+) cpu ([0-9.]+)", out)
    assert m, out
    assert int(m.group(1)) == CALLS
    return float(m.group(2)), float(m.group(3))


def test_a_tiny_wrapper_called_millions_of_times_costs_its_countdown_only(
    tmp_path: Path,
) -> None:
    plain = tmp_path / "alloc_wrapper"
    subprocess.run(["mpicc", "-O2", str(MAIN), "-o", str(plain)], check=True)
    model = pj.build_model([str(MAIN)], ["-O2"], argv=[str(plain), str(ROWS), str(STEPS)])
    est = tmp_path / "est"
    model.estimate(run=[str(plain), str(ROWS), str(STEPS)], np=1, directory=est)

    # The wrapper's block probes count every one of its executions exactly (the countdown's
    # skips granted minus those left at exit) and time tens of thousands of them, not one in 8..23.
    # Counters are sampled too (its `if (p == NULL)`): only the timed probes' slots count here.
    counters = {int(k) for k in re.findall(r"\bpj_[a-z_]+\((\d+),", (est / "main.c").read_text())}
    slots = []
    for path in est.glob("parjava-estimates.*.txt"):
        for line in path.read_text().splitlines():
            if line.startswith("slot ") and int(line.split()[1]) not in counters:
                f = line.split()
                slots.append((int(f[2]), int(f[11])))  # timed samples, executions
    timed = [count for count, runs in slots if runs == CALLS and count < runs]
    assert len(timed) == 2, f"the wrapper's two blocks, {CALLS} executions each: {slots[:20]}"
    assert all(4096 <= count <= CALLS // 50 for count in timed), timed

    # The estimation code against the program, alternated, fastest of three each: CPU time, which
    # the neighbours of a shared machine disturb less than wall time. Measured on the 2-core VM:
    # 1.50x with a clock pair every 8..23 calls and a locked add per allocation, 1.26-1.31x with
    # the countdown (the wrapper is no longer inlined into its loops).
    if model.estimation is not None and model.estimation.verdict == "doubtful":
        # 1.47x once with clang-tidy beside the suite (2026-11-29): on a loaded machine the
        # two programs share caches with the neighbours unevenly, even in CPU time.
        pytest.skip(f"a timed comparison needs a quiet machine: {model.estimation.trust}")
    exe = est / "estimation-code"
    runs = [(own_times(plain, tmp_path), own_times(exe, tmp_path)) for _ in range(3)]
    program = min(r[0][1] for r in runs)
    instrumented = min(r[1][1] for r in runs)
    assert instrumented < 1.4 * program, (instrumented, program)
