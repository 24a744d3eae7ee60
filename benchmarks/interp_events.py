"""Interpreter throughput on ordinary models: events and instructions per second.

Models: a halo-exchange stencil with Allreduce, a ring with non-blocking calls, a
master-worker with ANY_SOURCE, a collective mix (Bcast, Alltoall, Allgather, Barrier), a loop of
calls of a small function (the cost of a non-recursive call) and, where the engine runs
recursion, a recursive halving with a halo exchange per level (``--no-recursion`` leaves it out,
e.g. to compare with an engine that refuses recursion).

    PYTHONPATH=python PARJAVA_BUILD_DIR=build/dev/package python3 benchmarks/interp_events.py
"""

from __future__ import annotations

import time

import parjava as pj
from interp_machine import cluster


def stencil() -> pj.Model:
    m = pj.Model("stencil", params={"N": 1 << 22, "niter": 200})
    with m.loop("it", 0, "niter"):
        m.compute("2e-9 * N / size")
        m.sendrecv(dest="(rank + 1) % size", sendbytes=32768, source="(rank - 1 + size) % size")
        m.sendrecv(dest="(rank - 1 + size) % size", sendbytes=32768, source="(rank + 1) % size")
        m.allreduce(bytes=8)
    return m


def ring() -> pj.Model:
    m = pj.Model("ring-nonblocking", params={"niter": 500})
    with m.loop("it", 0, "niter"):
        m.irecv(source="(rank - 1 + size) % size", request="r")
        m.isend(dest="(rank + 1) % size", bytes=1024, request="s")
        m.compute(1e-6)
        m.waitall("r")
        m.waitall("s")
    return m


def master_worker() -> pj.Model:
    m = pj.Model("master-worker", params={"k": 50})
    with m.if_("rank == 0"):
        with m.loop("w", 1, "size"):
            m.send(dest="w", bytes=64, tag=1)
        m.assign("sent", "size - 1")
        with m.loop("i", 0, "k * (size - 1)"):
            m.recv(source="ANY_SOURCE", tag=3, status_source="w")
            with m.if_("sent < k * (size - 1)"):
                m.send(dest="w", bytes=64, tag=1)
                m.assign("sent", "sent + 1")
            with m.else_():
                m.send(dest="w", bytes=64, tag=2)
    with m.else_():
        with m.while_("1") as loop:
            m.recv(source=0, status_tag="t")
            with m.if_("t == 2"):
                m.break_(loop)
            m.compute(2e-5, line=1)
            m.send(dest=0, bytes=4096, tag=3)
    return m


def collectives() -> pj.Model:
    m = pj.Model("collectives", params={"niter": 20})
    with m.loop("it", 0, "niter"):
        m.bcast(bytes=65536)
        m.alltoall(bytes=256)
        m.allgather(bytes=1024)
        m.barrier()
    return m


def calls() -> pj.Model:
    m = pj.Model("calls", params={"niter": 2000})
    with m.function("kernel", params=["k"]):
        with m.if_("k % 2 == 0"):
            m.compute(1e-7)
        with m.else_():
            m.compute(2e-7)
    with m.loop("it", 0, "niter"):
        m.call("kernel", "it")
        m.call("kernel", "it + 1")
    m.allreduce(bytes=8)
    return m


def recursive() -> pj.Model:
    m = pj.Model("recursive-halving", params={"levels": 12, "niter": 20})
    with m.function("level", params=["l", "n"]):
        m.compute("1e-9 * n")
        m.sendrecv(dest="(rank + 1) % size", sendbytes=8, source="(rank - 1 + size) % size")
        with m.if_("l > 0"):
            m.call("level", "l - 1", "n / 2")
            m.compute("1e-9 * n")
    with m.loop("it", 0, "niter"):
        m.call("level", "levels", "1 << levels")
        m.allreduce(bytes=8)
    return m


def main() -> None:
    import sys

    machine = cluster()
    cases = [
        (stencil, (64, 1024)),
        (ring, (64, 1024)),
        (master_worker, (64, 512)),
        (collectives, (64, 256)),
        (calls, (64, 1024)),
    ]
    if "--no-recursion" not in sys.argv:
        cases.append((recursive, (64, 1024)))
    print(f"{'model':<18} {'np':>6} {'events':>11} {'wall s':>8} {'events/s':>10} {'instr/s':>10}")
    for make, nps in cases:
        model = make()
        for np_ in nps:
            start = time.perf_counter()
            pred = pj.interpret(model, machine, np=np_, progress=False)
            wall = time.perf_counter() - start
            e = pred.runs[0].engine
            print(
                f"{model.name:<18} {np_:>6} {e['events']:>11} {wall:>8.2f} "
                f"{e['events'] / e['wall_seconds']:>10.3g} "
                f"{e['instructions'] / e['wall_seconds']:>10.3g}"
            )


if __name__ == "__main__":
    main()
