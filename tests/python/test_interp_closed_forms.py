"""Hand-built models whose predictions must equal closed-form times under Hockney.

Hockney: T(n) = alpha + n / B. The ring, the halo-exchange stencil with Allreduce and the
master-worker program below are written with the Python builder, as a user would.
"""

from __future__ import annotations

import math

import pytest

import parjava as pj
from interp_machines import hockney

ALPHA = 2e-6
BANDWIDTH = 5e9


def t(nbytes: int) -> float:
    return ALPHA + nbytes / BANDWIDTH


def test_ring_token_passing():
    # A token goes around the ring niter times; each rank computes c when it holds it.
    c, n, niter = 3e-6, 4096, 5
    m = pj.Model("ring", params={"niter": niter, "n": n}, file="ring.c")
    with m.loop("i", 0, "niter", line=10):
        with m.if_("rank == 0", line=11):
            m.compute(c, line=12)
            m.send(dest="(rank + 1) % size", bytes="n", line=13)
            m.recv(source="size - 1", line=14)
        with m.else_():
            m.recv(source="rank - 1", line=16)
            m.compute(c, line=17)
            m.send(dest="(rank + 1) % size", bytes="n", line=18)
    for p in (2, 4, 8):
        pred = pj.interpret(m, hockney(ALPHA, BANDWIDTH), np=p)
        assert pred.time == pytest.approx(niter * p * (c + t(n)), rel=1e-12)
        assert pred.end_times[0] == pytest.approx(pred.time, rel=1e-12)


def halo_model() -> pj.Model:
    m = pj.Model("stencil", params={"N": 1 << 20, "niter": 5}, file="stencil.c")
    with m.loop("it", 0, "niter", line=20):
        m.compute("1e-9 * N / size", line=21)  # the sweep over the local slab
        right = "rank < size - 1 ? rank + 1 : PROC_NULL"
        left = "rank > 0 ? rank - 1 : PROC_NULL"
        m.sendrecv(dest=right, sendbytes=8192, source=left, line=22)
        m.sendrecv(dest=left, sendbytes=8192, source=right, line=23)
        m.allreduce(bytes=8, line=24)  # the residual
    return m


def test_halo_exchange_stencil_with_allreduce():
    # From 4 ranks on, every rank waits for an interior neighbour in the second exchange (2 T)
    # and the early last rank is paired with a late one in the first Allreduce round, so the
    # iteration is compute + 2 T(halo) + log2(P) T(8). (With 2 ranks the ends are skewed.)
    m = halo_model()
    for p in (4, 8, 16):
        pred = pj.interpret(
            m,
            hockney(ALPHA, BANDWIDTH),
            np=p,
            algorithms={"allreduce": "recursive_doubling"},
        )
        per_iteration = 1e-9 * (1 << 20) / p + 2 * t(8192) + math.log2(p) * t(8)
        assert pred.time == pytest.approx(5 * per_iteration, rel=1e-12)
    # The sweep: speedup from the closed form, efficiency below 1 because of communication.
    sweep = pj.interpret(
        m, hockney(ALPHA, BANDWIDTH), np=[1, 4, 8], algorithms={"allreduce": "recursive_doubling"}
    )
    t1 = 5 * 1e-9 * (1 << 20)
    assert sweep.times[0] == pytest.approx(t1, rel=1e-12)
    assert sweep.speedup()[-1] == pytest.approx(t1 / sweep.times[-1], rel=1e-12)
    assert all(e <= 1.0 + 1e-12 for e in sweep.efficiency())


def master_worker_model(tasks_per_worker: int) -> pj.Model:
    m = pj.Model("master-worker", params={"k": tasks_per_worker, "c": 0}, file="mw.c")
    with m.if_("rank == 0", line=30):
        with m.loop("w", 1, "size", line=31):
            m.send(dest="w", bytes=8, tag=1, line=32)
        m.assign("sent", "size - 1")
        with m.loop("i", 0, "k * (size - 1)", line=33):
            m.recv(source="ANY_SOURCE", tag=3, status_source="w", line=34)
            with m.if_("sent < k * (size - 1)", line=35):
                m.send(dest="w", bytes=8, tag=1, line=36)
                m.assign("sent", "sent + 1")
            with m.else_():
                m.send(dest="w", bytes=8, tag=2, line=38)
    with m.else_():
        with m.while_("1", line=40) as loop:
            m.recv(source=0, status_tag="t", line=41)
            with m.if_("t == 2"):
                m.break_(loop)
            m.compute(4e-6, line=43)
            m.send(dest=0, bytes=8, tag=3, line=44)
    return m


def test_master_worker():
    # Messages are tiny (n/B ~ 0): a worker's cycle is c + 2 alpha; the master answers at once.
    k, c = 6, 4e-6
    machine = hockney(ALPHA, 1e18)
    m = master_worker_model(k)
    for p in (2, 3, 5, 9):
        pred = pj.interpret(m, machine, np=p)
        master = k * (c + 2 * ALPHA)
        assert pred.end_times[0] == pytest.approx(master, rel=1e-9)
        assert pred.time == pytest.approx(master + ALPHA, rel=1e-9)  # the STOP messages
        tasks = next(r for r in pred.nodes() if r["line"] == 43)
        assert tasks["freq"] == k * (p - 1)
