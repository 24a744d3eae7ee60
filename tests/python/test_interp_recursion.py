"""Recursion in the interpreter, on models built with parjava.Model: a frame per activation,
return slots, the depth limit and its message, opaque-guarded recursion, and the Time/Freq of
recursive calls (docs/interpreter.md "Calls and recursion")."""

from __future__ import annotations

import pytest

import parjava as pj
from interp_machines import hockney

MACHINE = hockney(1e-6, 1e9)
FREE = hockney(0.0, 1e30)


def fibonacci() -> pj.Model:
    """fib(n) through the global return slot ret_fib: the caller keeps fib(n - 1) in a local
    across the second recursive call, and every activation costs 1 µs."""
    m = pj.Model("fib", params={"n": 10}, file="fib.c")
    m.global_variable("ret_fib", 0)
    with m.function("fib", params=["k"], line=2):
        m.compute(1e-6, line=3)
        with m.if_("k < 2", line=4):
            m.assign("ret_fib", "k", line=4)
            m.ret(line=4)
        m.call("fib", "k - 1", line=5)
        m.assign("first", "ret_fib", line=5)
        m.call("fib", "k - 2", line=6)
        m.assign("ret_fib", "first + ret_fib", line=6)
    m.call("fib", "n", line=10)
    # The result as a time: ret_fib microseconds.
    m.compute("1e-6 * ret_fib", line=11)
    return m


def test_locals_are_per_activation_and_the_return_slot_carries_results() -> None:
    m = fibonacci()
    pred = pj.interpret(m, FREE, np=1)
    activations = 177  # calls of fib for n = 10: 2 fib(11) - 1
    assert pred.time == pytest.approx((activations + 55) * 1e-6)  # fib(10) = 55
    rows = {(r["line"], r["kind"]): r for r in pred.nodes()}
    assert rows[(3, "cb")]["freq"] == activations
    assert rows[(5, "ufc")]["freq"] + rows[(6, "ufc")]["freq"] == activations - 1
    # No time counted twice: the call from main holds every activation, as does fib's body.
    assert rows[(10, "ufc")]["time"] == pytest.approx(activations * 1e-6)
    body = next(r for r in pred.nodes() if r["kind"] == "seq" and r["line"] == 2)
    assert body["time"] == pytest.approx(activations * 1e-6)
    assert pj.interpret(m, FREE, np=1, params={"n": 15}).time == pytest.approx(
        (2 * 987 - 1 + 610) * 1e-6
    )


def test_depth_limit_error_names_the_chain_and_lines() -> None:
    m = pj.Model("deep", params={"depth": 30}, file="deep.c")
    with m.function("down", params=["d"], line=2):
        m.compute(1e-9, line=3)
        with m.if_("d > 0", line=4):
            m.call("down", "d - 1", line=5)
        m.sendrecv(dest="(rank + 1) % size", sendbytes=8, source="(rank - 1 + size) % size", line=6)
    m.call("down", "depth", line=9)
    assert pj.interpret(m, MACHINE, np=2, max_depth=31).time > 0
    with pytest.raises(pj.ModelError) as info:
        pj.interpret(m, MACHINE, np=2, max_depth=30)
    text = str(info.value)
    assert "max_depth=30 is exceeded on rank 0" in text
    assert "main -> down (deep.c:9) -> down (deep.c:5) x 30" in text
    with pytest.raises(pj.UsageError, match="max_depth"):
        pj.interpret(m, MACHINE, np=2, max_depth=0)


def test_opaque_guarded_recursion_needs_consent() -> None:
    m = pj.Model("split", file="split.c")
    with m.function("split", line=2):
        m.compute(1e-6, line=3)
        with m.if_(probability=0.6, line=4):
            m.call("split", line=5)
    m.call("split", line=9)
    with pytest.raises(pj.ModelError, match="opaque_recursion=True") as info:
        pj.interpret(m, FREE, np=1)
    assert "split -> split" in str(info.value) and "node 4 (if, split.c:4)" in str(info.value)
    # Error diffusion: 0.5 + 0.6 takes the branch once, 0.1 + 0.6 stops: two activations.
    assert pj.interpret(m, FREE, np=1, opaque_recursion=True).time == pytest.approx(2e-6)
