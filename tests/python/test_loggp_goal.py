"""parjava.goal: GOAL schedules and their LogGOPSim-exact LogGP simulation from Python."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

import parjava
from parjava import goal
from parjava.cli import main

# schedgen -p binomialtreereduce -s 8 -d 1024 (LogGOPSim's README example), verbatim.
BINOMIAL_TREE_REDUCE_8 = """num_ranks 8

rank 0 {
l1: recv 1024b from 1 tag 0
l2: recv 1024b from 2 tag 0
l3: recv 1024b from 4 tag 0
}

rank 1 {
l1: send 1024b to 0 tag 0
l2: recv 1024b from 3 tag 0
l1 requires l2
l3: recv 1024b from 5 tag 0
l1 requires l3
}

rank 2 {
l1: send 1024b to 0 tag 0
l2: recv 1024b from 6 tag 0
l1 requires l2
}

rank 3 {
l1: send 1024b to 1 tag 0
l2: recv 1024b from 7 tag 0
l1 requires l2
}

rank 4 {
l1: send 1024b to 0 tag 0
}

rank 5 {
l1: send 1024b to 1 tag 0
}

rank 6 {
l1: send 1024b to 2 tag 0
}

rank 7 {
l1: send 1024b to 3 tag 0
}
"""
README_TIMES = [34914, 24776, 13138, 13138, 1500, 1500, 1500, 1500]


@pytest.fixture()
def reduce_file(tmp_path: Path) -> Path:
    path = tmp_path / "btr8.goal"
    path.write_text(BINOMIAL_TREE_REDUCE_8)
    return path


def test_load_and_simulate_readme_example(reduce_file: Path) -> None:
    s = goal.load(reduce_file)
    assert (s.ranks, s.ops, s.sends, s.recvs, s.calcs, s.dependencies) == (8, 14, 7, 7, 0, 4)
    assert "8 ranks, 14 ops" in repr(s)
    r = s.simulate()
    assert r.end_times.dtype == np.uint64
    assert r.end_times.tolist() == README_TIMES
    assert (r.max, r.max_host, r.events) == (34914, 0, 21)
    assert r.complete and r.events_per_second > 0
    assert "Host 0: 34914" in r.report()
    assert "complete: max 34914 ns at host 0" in repr(r)


def test_parameters_override_and_units() -> None:
    s = goal.parse("num_ranks 2\nrank 0 {\nsend 8b to 1\n}\nrank 1 {\nrecv 8b from 0\n}\n")
    assert s.simulate().end_times.tolist() == [1500, 5542]
    # anchor ex1 with -O 1 -S 0: rendezvous raises the sender to the match time.
    assert s.simulate(O=1, S=0).end_times.tolist() == [4000, 5542]
    params = goal.LogGP(L=100, o=10, g=5, G=1, O=0, S=0)
    r = s.simulate(params)
    assert r.parameters == params
    assert r.end_times.tolist() == [10 + 100, 10 + 100 + 10 + 7]
    with pytest.raises(parjava.UsageError, match="must be >= 0"):
        s.simulate(L=-1)
    with pytest.raises(parjava.UsageError, match="integer number of nanoseconds"):
        s.simulate(L=2.5e-6)
    with pytest.raises(parjava.UsageError, match="order must be one of"):
        s.simulate(order="sorted")


def test_malformed_file_names_line_column_and_expectation(tmp_path: Path) -> None:
    bad = tmp_path / "bad.goal"
    bad.write_text("num_ranks 2\nrank 0 {\nsend 8b to -1\n}\nrank 1 {\n}\n")
    with pytest.raises(parjava.ModelError, match=r"bad\.goal:3:12: 'send \.\.\. to -1'"):
        goal.load(bad)
    with pytest.raises(parjava.ModelError, match=r"<text>:1:1: expected 'num_ranks N'"):
        goal.parse("rank 0 {\n}\n")
    with pytest.raises(parjava.UsageError, match="no such GOAL schedule"):
        goal.load(tmp_path / "missing.goal")


def test_loggopsim_binary_is_recognised(tmp_path: Path) -> None:
    fake_bin = tmp_path / "x.bin"
    fake_bin.write_bytes((4223).to_bytes(8, "little") + b"\0" * 32)
    with pytest.raises(parjava.ModelError, match="LogGOPSim binary schedule"):
        goal.load(fake_bin)


def test_deadlock_is_reported_with_lines(tmp_path: Path) -> None:
    path = tmp_path / "facing.goal"
    path.write_text(
        "num_ranks 2\n"
        "rank 0 {\ns: send 100000b to 1\nr: recv 100000b from 1\nr requires s\n}\n"
        "rank 1 {\ns: send 100000b to 0\nr: recv 100000b from 0\nr requires s\n}\n"
    )
    s = goal.load(path)
    with pytest.raises(parjava.DeadlockError) as info:
        s.simulate()
    message = str(info.value)
    assert "4 of 4 operations did not complete" in message
    assert "rank 0 op #0 (line 3): send 100000b to 1 tag 0: message not received" in message
    assert "rank 1 op #1 (line 9): recv 100000b from 0 tag 0: never ready" in message
    r = s.simulate(check=False)
    assert not r.complete and r.unfinished_count == 4
    assert [u.reason for u in r.unfinished] == [
        "message_not_received",
        "never_ready",
        "message_not_received",
        "never_ready",
    ]
    assert r.unfinished[1].line == 4 and r.unfinished[1].waiting_for == 1
    assert "INCOMPLETE" in r.report()
    # Eager messages do not deadlock.
    assert s.simulate(S=100000).complete


def test_loggopsim_order_reproduces_its_spurious_ring_deadlock() -> None:
    ring = goal.pattern("allreduce_ring", ranks=9, bytes=9000)
    with pytest.raises(parjava.DeadlockError, match="order='stable' avoids that"):
        ring.simulate(order="loggopsim")
    stable = ring.simulate()
    chained = goal.pattern("allreduce_ring", ranks=9, bytes=9000, chain_receives=True)
    compatible = chained.simulate(order="loggopsim")
    assert compatible.end_times.tolist() == stable.end_times.tolist()


def test_patterns_and_arrays() -> None:
    assert "allreduce_recursive_doubling" in goal.patterns()
    s = goal.pattern("allreduce_recursive_doubling", ranks=16, bytes=8)
    r = s.simulate()
    # LogGOPSim on `schedgen -p allreduce_recdoub -s 16 -d 8`: 43994 ns on every host (size-0
    # messages after three halvings wrap (s-1) around 2^64, anchor §4 quirk 1).
    assert r.end_times.tolist() == [43994] * 16
    assert r.events == 384
    cols = s.arrays()
    assert cols["size"][:4].tolist() == [4, 4, 2, 2]
    assert cols["rank"][-1] == 15 and cols["offset"][-1] == 15
    frame = s.to_frame()
    assert list(frame["kind"][:2]) == ["send", "recv"]
    with pytest.raises(parjava.UsageError, match="power-of-two"):
        goal.pattern("allreduce_recursive_doubling", ranks=12)
    with pytest.raises(parjava.UsageError, match="unknown pattern"):
        goal.pattern("stencil", ranks=4)
    with pytest.raises(parjava.UsageError, match="ranks must be positive"):
        goal.pattern("gather", ranks=0)


def test_save_and_load_text_and_binary(tmp_path: Path) -> None:
    s = goal.pattern("dissemination", ranks=12, bytes=100, compute=50)
    text = s.save(tmp_path / "d.goal")
    binary = s.save(tmp_path / "d.pjgoal")
    expected = s.simulate().end_times.tolist()
    for path in (text, binary):
        again = goal.load(path)
        assert again.ops == s.ops
        assert again.simulate().end_times.tolist() == expected
        assert again.dependencies == s.dependencies
        assert again.listed_dependencies == s.listed_dependencies
        assert again.shapes == s.shapes
    assert text.read_text().startswith("num_ranks 12\n")
    assert goal.parse(s.to_text()).ops == s.ops
    # 16-byte op records: every edge of the pattern is implied (a calc requires the recv right
    # before it, the next send that calc), and three shapes (send, recv, calc) serve all ops.
    assert s.dependencies == 12 * (4 + 3)
    assert s.listed_dependencies == 0
    assert s.shapes == 3
    with pytest.raises(parjava.UsageError, match="format must be"):
        s.save(tmp_path / "x", format="json")


def test_machine_loggp_network_converts_to_nanoseconds() -> None:
    # The shape of parjava.Machine's networks (kind, parameters in SI units).
    class Network:
        kind = "loggp"
        parameters: ClassVar[dict[str, float]] = {
            "L": 2.5e-6,
            "o": 1.5e-6,
            "g": 1e-6,
            "G": 6e-9,
            "O": 0.0,
            "S": 65535,
        }

    class TwoNodes:
        inter_node = Network()
        intra_node = None

    assert goal.LogGP.from_machine(TwoNodes()) == goal.LogGP()
    s = goal.parse("num_ranks 2\nrank 0 {\nsend 8b to 1\n}\nrank 1 {\nrecv 8b from 0\n}\n")
    assert s.simulate(TwoNodes()).end_times.tolist() == [1500, 5542]
    assert s.simulate(TwoNodes(), G=0).end_times.tolist() == [1500, 5500]


def test_machine_without_loggp_is_refused() -> None:
    class Network:
        kind = "hockney"
        parameters: ClassVar[dict[str, float]] = {"latency": 1e-6, "bandwidth": 1e9}

    class FakeMachine:
        inter_node = None
        intra_node = Network()

    with pytest.raises(parjava.UsageError, match="needs LogGP parameters"):
        goal.LogGP.from_machine(FakeMachine())
    with pytest.raises(parjava.UsageError, match=r"expected a parjava\.Machine"):
        goal.LogGP.from_machine(object())


def test_cli_predict_goal(reduce_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["predict", "--goal", str(reduce_file), "-G", "6"]) == 0
    out = capsys.readouterr().out
    assert "Events: 21" in out and "Host 1: 24776" in out
    assert main(["predict", "--goal", str(reduce_file), "-L", "-5"]) == 2
    assert "must be >= 0" in capsys.readouterr().err
    # LogGOPSim's long flags work too (anchor ex1 with -O 1 -S 0: rendezvous, 4000 on host 0).
    one = reduce_file.with_name("one.goal")
    one.write_text("num_ranks 2\nrank 0 {\nsend 8b to 1\n}\nrank 1 {\nrecv 8b from 0\n}\n")
    assert main(["predict", "--goal", str(one), "--LogGOPS_O", "1", "--LogGOPS_S", "0"]) == 0
    assert "Host 0: 4000" in capsys.readouterr().out


def test_cli_arguments_without_short_flags() -> None:
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("-o", dest="output")
    goal.add_cli_arguments(parser, short_flags=False)
    args = parser.parse_args(["-o", "out.txt", "--goal", "x.goal", "--LogGOPS_o", "100"])
    assert (args.output, args.goal, args.loggp_o) == ("out.txt", "x.goal", 100)
    assert args.order == "stable"


def test_cli_deadlock_exit_status(tmp_path: Path) -> None:
    path = tmp_path / "stuck.goal"
    path.write_text("num_ranks 2\nrank 0 {\nrecv 8b from 1\n}\nrank 1 {\n}\n")
    proc = subprocess.run(
        [sys.executable, "-m", "parjava", "predict", "--goal", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "DeadlockError" in proc.stderr and "receive not matched" in proc.stderr
    proc = subprocess.run(
        [sys.executable, "-m", "parjava", "predict", "--goal", str(path), "--allow-unfinished"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0
    assert "INCOMPLETE" in proc.stdout and "rank 0 op #0 (line 3)" in proc.stdout
