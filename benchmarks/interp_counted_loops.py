"""Interpretation time of compute-only loop nests (docs/interpreter.md "Node rules"): a 2-D
stencil step as the frontend models it (for each row, for each cell, a compute block; a halo
exchange with both neighbours per step), at growing grids, run twice side by side: as is (the
innermost counted loop runs at once) and with a no-op assignment in its body (which makes the
interpreter run it iteration by iteration, as every loop ran before). The two predictions must
agree; the ratio of the interpretation times is the speed-up.

    PYTHONPATH=python PARJAVA_BUILD_DIR=build/dev/package python3 benchmarks/interp_counted_loops.py
"""

from __future__ import annotations

import os
import statistics
import time

import parjava as pj


def stencil(nx: int, per_iteration: bool) -> pj.Model:
    """`steps` steps of `rows` rows of `nx / size` cells, 1.2 ns a cell, and a halo swap."""
    m = pj.Model("stencil-cells", params={"nx": nx, "rows": 64, "steps": 2 * nx // 16})
    with m.loop("s", 0, "steps"):
        m.sendrecv(dest="(rank + 1) % size", sendbytes=1024, source="(rank - 1 + size) % size")
        m.sendrecv(dest="(rank - 1 + size) % size", sendbytes=1024, source="(rank + 1) % size")
        with m.loop("k", 0, "rows"):
            with m.loop("i", 0, "nx / size"):
                m.compute(1.2e-9, assign=[("z", "z")] if per_iteration else ())
    return m


def timed(model: pj.Model, machine: pj.Machine, np: int, repeat: int = 3) -> tuple[float, float]:
    """Return the median interpretation wall time and the predicted time."""
    walls, predicted = [], 0.0
    for _ in range(repeat):
        start = time.perf_counter()
        predicted = pj.interpret(model, machine, np=np).time
        walls.append(time.perf_counter() - start)
    return statistics.median(walls), predicted


def main() -> None:
    machine = pj.Machine.preset("shared-memory")
    print(f"load average {os.getloadavg()[0]:.2f}")
    print("| nx | np | cells x steps | at once (s) | one by one (s) | speed-up | predictions |")
    print("|---:|---:|---:|---:|---:|---:|---|")
    for nx in (256, 512, 1024, 2048):
        for np in (2, 8):
            fast, p_fast = timed(stencil(nx, False), machine, np)
            slow, p_slow = timed(stencil(nx, True), machine, np, repeat=1)
            same = "equal" if abs(p_fast - p_slow) <= 1e-9 * p_slow else f"{p_fast} vs {p_slow}"
            work = nx * 64 * (2 * nx // 16)
            row = [str(nx), str(np), f"{work:.2e}", f"{fast:.3f}", f"{slow:.2f}"]
            print("| " + " | ".join([*row, f"{slow / fast:.0f}x", same]) + " |")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
