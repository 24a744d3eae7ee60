"""parjava.Machine without MPI: constructors, presets, JSON, Predictor.par, errors, display."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import parjava as pj
from parjava import MachineError, UsageError

REPO = Path(__file__).resolve().parents[2]


def hand_machine() -> pj.Machine:
    return pj.Machine(
        name="hand",
        nodes=4,
        cores_per_node=8,
        ranks_per_node=8,
        intra_node=pj.Network.hockney("0.3 us", "8 GB/s", "4 KiB"),
        inter_node=pj.Network.loggp("2.5 us", "1.5 us", "1 us", "6 ns", 0, 65535),
        threads=pj.ThreadCosts(
            create="20 us",
            start="5 us",
            lock="20 ns",
            try_lock="15 ns",
            release="15 ns",
            atomic_create="20 ns",
            atomic_cas="10 ns",
            semaphore_create="30 ns",
            copy_per_byte="0.1 ns/B",
        ),
        power=1.5,
        description="built in a test",
        sources=["test"],
    )


def test_hand_built_machine_reads_units() -> None:
    m = hand_machine()
    assert m.intra_node.kind == "hockney"
    assert m.intra_node.parameters["latency"] == pytest.approx(0.3e-6)
    assert m.intra_node.parameters["bandwidth"] == pytest.approx(8e9)
    assert m.eager_limit(intra_node=True) == 4096
    assert m.threads.copy_per_byte == pytest.approx(0.1e-9)
    # LogGOPSim's worked example 1 (anchors §6): 8 B arrive after 5542 ns.
    assert m.p2p_time(8, intra_node=False) == pytest.approx(5542e-9)
    assert m.power == 1.5


def test_p2p_time_accepts_arrays() -> None:
    m = hand_machine()
    sizes = np.array([0, 1024, 1 << 20])
    times = m.p2p_time(sizes)
    assert isinstance(times, np.ndarray)
    assert times.shape == (3,)
    assert times == pytest.approx([m.p2p_time(int(n)) for n in sizes])
    with pytest.raises(ValueError, match=">= 0 bytes"):
        m.p2p_time(-1)


def test_placement_is_block() -> None:
    m = hand_machine()
    assert m.max_ranks == 32
    assert m.same_node(0, 7)
    assert not m.same_node(7, 8)
    assert m.node_of(31) == 3
    assert m.p2p_time_between(1000, 0, 1) == pytest.approx(m.p2p_time(1000, True))
    assert m.p2p_time_between(1000, 0, 9) == pytest.approx(m.p2p_time(1000, False))
    with pytest.raises(UsageError, match="rank 32 is outside machine"):
        m.node_of(32)


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    m = hand_machine()
    path = m.save(tmp_path / "m.json")
    again = pj.Machine.load(path)
    assert again == m
    document = json.loads(path.read_text())
    assert document["schema_version"] == 1
    assert document["inter_node"]["kind"] == "loggp"


def test_an_openmp_region_costs_its_own_fork(tmp_path: Path) -> None:
    """A team's fork/join (`team_start`) is not a task pool's hand-off (`start`): libgomp's
    regions took 0.39 us here where a condition-variable hand-off took 5.6 us. A machine file
    written before the field existed keeps what its teams cost then, `start`."""
    m = hand_machine()
    assert m.threads.team_start == pytest.approx(5e-6)  # not given: start
    document = json.loads(m.save(tmp_path / "m.json").read_text())
    assert document["threads"]["team_start"] == pytest.approx(5e-6)
    del document["threads"]["team_start"]
    (tmp_path / "old.json").write_text(json.dumps(document))
    assert pj.Machine.load(tmp_path / "old.json").threads.team_start == pytest.approx(5e-6)
    shared = pj.Machine.preset("shared-memory").threads
    assert shared.team_start == pytest.approx(0.37e-6) and shared.start == pytest.approx(5.6e-6)
    document["threads"]["team_start"] = -1.0
    (tmp_path / "bad.json").write_text(json.dumps(document))
    with pytest.raises(MachineError, match="team_start"):
        pj.Machine.load(tmp_path / "bad.json")


def test_presets_have_sources_and_round_trip(tmp_path: Path) -> None:
    assert pj.Machine.preset_names() == ["infiniband-edr", "ethernet-10g", "shared-memory"]
    for name in pj.Machine.preset_names():
        m = pj.Machine.preset(name)
        assert m.sources, name
        assert pj.Machine.load(m.save(tmp_path / f"{name}.json")) == m
    edr = pj.Machine.preset("infiniband-edr")
    assert edr.p2p_time(0, intra_node=False) == pytest.approx(1.27e-6)
    with pytest.raises(MachineError, match='unknown machine preset "myrinet"'):
        pj.Machine.preset("myrinet")


def test_what_if_copies() -> None:
    shm = pj.Machine.preset("shared-memory")
    with pytest.raises(MachineError, match="inter_node"):
        shm.with_layout(nodes=4)
    edr = pj.Machine.preset("infiniband-edr")
    cluster = shm.with_networks(inter_node=edr.inter_node).with_layout(nodes=64)
    assert cluster.nodes == 64
    assert cluster.inter_node == edr.inter_node
    assert cluster.intra_node == shm.intra_node
    assert cluster.with_power(2).power == 2.0


def test_predictor_par_seed_example() -> None:
    m = pj.Machine.from_predictor_par(REPO / "tests/data/machine/Predictor.par")
    assert m.nodes == 4
    assert m.ranks_per_node == 1
    # seed 002 §8 formula 1: T = start_time + n * send_byte_time (microseconds)
    assert m.p2p_time(1000, intra_node=False) == pytest.approx(75e-6 + 1000 * 0.2e-6)
    assert m.power == 1.0


def test_json_errors_name_the_field(tmp_path: Path) -> None:
    document = json.loads(hand_machine().to_json())
    del document["threads"]["lock"]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(document))
    with pytest.raises(MachineError, match=r"broken\.json: threads\.lock: missing required field"):
        pj.Machine.load(path)

    document = json.loads(hand_machine().to_json())
    document["intra_node"]["latency"] = "3 parsecs"
    path.write_text(json.dumps(document))
    with pytest.raises(MachineError, match=r"intra_node\.latency: unknown unit \"parsecs\""):
        pj.Machine.load(path)

    document["intra_node"]["latency"] = -1.0
    path.write_text(json.dumps(document))
    with pytest.raises(MachineError, match=r"intra_node\.latency: must be >= 0"):
        pj.Machine.load(path)

    path.write_text("{ this is not json")
    with pytest.raises(MachineError, match="not valid JSON"):
        pj.Machine.load(path)
    with pytest.raises(MachineError, match="cannot open"):
        pj.Machine.load(tmp_path / "missing.json")


def test_python_side_errors_are_usage_errors() -> None:
    with pytest.raises(UsageError, match="unknown unit"):
        pj.Network.hockney("1 furlong", "1 GB/s", 0)
    with pytest.raises(UsageError, match="missing thread cost"):
        pj.ThreadCosts(create=1e-6)
    with pytest.raises(UsageError, match="unknown thread cost"):
        pj.ThreadCosts(**dict.fromkeys(pj.ThreadCosts.FIELDS, 0.0), fork=1.0)
    with pytest.raises(MachineError, match="bandwidth: must be > 0"):
        pj.Network.hockney(1e-6, 0, 0)


def test_display() -> None:
    m = pj.Machine.preset("ethernet-10g")
    text = repr(m)
    assert "Machine 'ethernet-10g': 16 node(s) x 36 cores" in text
    assert "inter-node: Hockney: latency 10 us, bandwidth 1.18 GB/s" in text
    assert "<table>" in m._repr_html_()
    table = m.table("inter_node")
    assert list(table.columns) == ["bytes", "model_seconds"]
    assert table["model_seconds"].is_monotonic_increasing
