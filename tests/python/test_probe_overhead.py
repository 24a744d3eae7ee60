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
from program_runs import instructions

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

MAIN = Path(__file__).resolve().parents[1] / "programs" / "alloc_wrapper" / "main.c"
ROWS, STEPS = 400000, 10


def test_a_tiny_wrapper_called_millions_of_times_costs_its_countdown_only(
    tmp_path: Path,
) -> None:
    plain = tmp_path / "alloc_wrapper"
    subprocess.run(["mpicc", "-O2", str(MAIN), "-o", str(plain)], check=True)
    model = pj.build_model([str(MAIN)], ["-O2"], argv=[str(plain), str(ROWS), str(STEPS)])
    est = tmp_path / "est"
    model.estimate(run=[str(plain), str(ROWS), str(STEPS)], np=1, directory=est)

    # The wrapper is called once outside the allocation loops and 4 million times inside
    # them, which are measured whole: its block probes are silent there (PJ_QBEGIN), so they
    # see that one call alone, and the loop runs none of them.
    code = (est / "main.c").read_text()
    quiet = {int(k) for k in re.findall(r"PJ_QBEGIN(?:_SIZED)?\((\d+)\)", code)}
    assert len(quiet) == 4 and "pj_quiet++;" in code, code  # malloc, two blocks, fprintf/exit
    slots = {}
    for path in est.glob("parjava-estimates.*.txt"):
        for line in path.read_text().splitlines():
            if line.startswith("slot ") and int(line.split()[1]) in quiet:
                f = line.split()
                slots[int(f[1])] = (int(f[2]), int(f[11]))  # timed samples, executions
    # The malloc and the counters ran once (the out-of-memory branch never): one execution,
    # timed.
    assert sorted(v for v in slots.values() if v[1] > 0) == [(1, 1), (1, 1)], slots

    # What the probes cost in instructions, which no neighbour changes: the difference between
    # runs of 10 and 5 steps (MPI_Init, the calibration at exit and the first samples cancel).
    # 1.35x the program's while the probes kept their event and skip counts in locals (live
    # across malloc in callee-saved registers), 1.29x with them on the timed executions' stack.
    # In CPU time (fastest of three, 10 steps) the 2-core VM gave 1.50x with a clock pair every
    # 8..23 calls and a locked add per allocation, then 1.26-1.47x with the countdown; at 40
    # steps single runs of the same binary spread from 0.45 to 0.82 s, so time cannot tell
    # 1.3x from 1.4x here. benchmarks/real_apps.py times the probes on whole programs.
    # Since the estimation counts the program's heap at the allocator (every malloc and free
    # of the process, the working set C++ containers hold), each of this program's 4 doubles
    # per allocation also pays ~18 instructions in malloc and in free: 1.39x, which is 1.24x
    # in time (0.20 s against 0.163 s, three runs each).
    # With the wrapper's probes silent inside the allocation loops: 1.35x.
    if shutil.which("valgrind") is None:
        pytest.skip("valgrind is not installed (scripts/deps.sh installs it)")
    rows = ROWS // 4
    extra = {
        name: instructions(path, tmp_path, [str(rows), str(STEPS)])
        - instructions(path, tmp_path, [str(rows), str(STEPS // 2)])
        for name, path in (("program", plain), ("instrumented", est / "estimation-code"))
    }
    assert extra["instrumented"] < 1.45 * extra["program"], extra
