"""Shared networks from Python (issue 17): SimGrid platform files read as machines, closed-form
times of incasts, max-min sharing and torus routes on them, what a prediction says about its
network, and one case side by side with SimGrid/SMPI itself when smpirun is installed.

The platform files are written here in SimGrid 3.32's own syntax (the same file is handed to
smpirun in the last test). CM02 without cross traffic and weights gives the closed forms: a
message of n bytes takes the route's latency plus n over its max-min share of every link.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import parjava as pj
from parjava.errors import MachineError, UsageError

REPO = Path(__file__).resolve().parents[2]
MB = 1_000_000

HEADER = """<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <config>
    <prop id="network/model" value="CM02"/>
    <prop id="network/crosstraffic" value="0"/>
{extra}  </config>
"""


def platform(tmp_path: Path, body: str, extra: str = "", name: str = "p.xml") -> Path:
    path = tmp_path / name
    path.write_text(HEADER.format(extra=extra) + body + "\n</platform>\n")
    return path


def incast(k: int, nbytes: int) -> pj.Model:
    """Ranks 1..k send ``nbytes`` to rank 0, which has a receive posted for each."""
    m = pj.Model("incast", params={"n": nbytes})
    with m.if_("rank == 0"):
        with m.loop("w", 1, "size"):
            m.irecv(source="w", tag=1, request="rq", index="w - 1")
        m.waitall("rq")
    with m.else_():
        m.send(dest=0, bytes="n", tag=1)
    return m


def pairs(nbytes: int) -> pj.Model:
    """Even ranks send ``nbytes`` to the next odd rank."""
    m = pj.Model("pairs", params={"n": nbytes})
    with m.if_("rank % 2 == 0"):
        m.send(dest="rank + 1", bytes="n", tag=1)
    with m.else_():
        m.recv(source="rank - 1", tag=1)
    return m


def test_flat_cluster_incast_shares_the_receivers_link(tmp_path):
    # 1 GB/s private links of 1 us: k simultaneous 1 MB messages into node 0 share its link, so
    # rank 0 ends after k * 1 ms plus the two private links' latency.
    path = platform(
        tmp_path,
        '  <cluster id="c" prefix="n-" suffix="" radical="0-8" speed="1Gf" bw="1GBps" lat="1us"/>',
    )
    machine = pj.Machine.from_simgrid(path)
    assert machine.nodes == 9 and machine.node_names[:2] == ["n-0", "n-1"]
    assert machine.topology.kind == "star"
    for k in (1, 2, 8):
        pred = pj.interpret(incast(k, MB), machine, np=k + 1, progress=False)
        assert pred.end_times[0] == pytest.approx(k * MB / 1e9 + 2e-6, rel=1e-9), k
    # The crossbar without endpoint contention is the textbook model: all k arrive together.
    textbook = machine.with_topology("crossbar").with_endpoint_contention(False)
    pred = pj.interpret(incast(8, MB), textbook, np=9, progress=False)
    assert pred.end_times[0] == pytest.approx(MB / 1e9, rel=1e-9)
    assert "no endpoint contention" in pred.network


def test_backbone_is_shared_by_every_pair(tmp_path):
    # Four pairs on separate nodes: their private links are free, but every message crosses
    # the 2 GB/s backbone, which gives each 0.5 GB/s.
    path = platform(
        tmp_path,
        '  <cluster id="c" prefix="n-" suffix="" radical="0-7" speed="1Gf" bw="1GBps" lat="0us"'
        ' bb_bw="2GBps" bb_lat="0us"/>',
    )
    pred = pj.interpret(pairs(MB), pj.Machine.from_simgrid(path), np=8, progress=False)
    assert pred.time == pytest.approx(MB / 0.5e9, rel=1e-9)
    # A FATPIPE backbone bounds each flow but is not shared.
    fat = platform(
        tmp_path,
        '  <cluster id="c" prefix="n-" suffix="" radical="0-7" speed="1Gf" bw="1GBps" lat="0us"'
        ' bb_bw="2GBps" bb_lat="0us" bb_sharing_policy="FATPIPE"/>',
        name="fat.xml",
    )
    pred = pj.interpret(pairs(MB), pj.Machine.from_simgrid(fat), np=8, progress=False)
    assert pred.time == pytest.approx(MB / 1e9, rel=1e-9)


def test_all_to_all_is_shared_once_per_instant(tmp_path):
    # 16 ranks each start 15 flows of 16 KiB at the same instant: every private link carries
    # 15 at 1 GB/s / 15, so all end at 15 * 16 KiB / 1 GB/s. The shares are computed once for
    # the instant (not once per rank that started flows in it) and once when they all end.
    path = platform(
        tmp_path,
        '  <cluster id="c" prefix="n-" suffix="" radical="0-15" speed="1Gf" bw="1GBps" lat="0us"/>',
    )
    m = pj.Model("a2a")
    with m.loop("j", 1, "size"):
        m.irecv(source="(rank - j + size) % size", tag=3, request="rq", index="j")
    with m.loop("i", 1, "size"):
        m.isend(dest="(rank + i) % size", bytes=16384, tag=3, request="sq", index="i")
    m.waitall()
    pred = pj.interpret(m, pj.Machine.from_simgrid(path), np=16, progress=False)
    assert pred.time == pytest.approx(15 * 16384 / 1e9, rel=1e-9)
    engine = pred.runs[0].engine
    assert engine["flows"] == 240
    assert engine["flow_recomputations"] <= 2, engine


def test_explicit_routes_share_max_min(tmp_path):
    # Flows a->b over x (1 GB/s), c->d over x and y, e->f over y (2 GB/s). Max-min: x saturates
    # first at 0.5 GB/s for each of its two flows; e->f takes what y has left, 1.5 GB/s.
    hosts = "".join(f'    <host id="{h}" speed="1Gf"/>\n' for h in "abcdef")
    body = (
        '  <zone id="z" routing="Full">\n'
        + hosts
        + '    <link id="x" bandwidth="1GBps" latency="0us"/>\n'
        '    <link id="y" bandwidth="2GBps" latency="0us"/>\n'
        '    <route src="a" dst="b"><link_ctn id="x"/></route>\n'
        '    <route src="c" dst="d"><link_ctn id="x"/><link_ctn id="y"/></route>\n'
        '    <route src="e" dst="f"><link_ctn id="y"/></route>\n'
        "  </zone>"
    )
    machine = pj.Machine.from_simgrid(platform(tmp_path, body))
    assert machine.topology.kind == "routes"
    n = 1_500_000
    pred = pj.interpret(pairs(n), machine, np=6, progress=False)
    ends = pred.end_times
    assert ends[1] == pytest.approx(n / 0.5e9, rel=1e-9)
    assert ends[3] == pytest.approx(n / 0.5e9, rel=1e-9)
    assert ends[5] == pytest.approx(n / 1.5e9, rel=1e-9)


def test_torus_routes_and_latency_over_hops(tmp_path):
    torus = pj.Topology.torus([4, 4], latency="1 us")
    # Node 10 is (2, 2): two hops in dimension 0, then two in dimension 1; node 3 is one hop
    # away the short way round.
    assert len(torus.route(0, 10)) == 4
    assert len(torus.route(0, 3)) == 1
    assert torus.capacity == 16
    # A small message (no flow) pays alpha, the four hops' latency and its bytes.
    base = pj.Machine(
        name="t",
        nodes=16,
        cores_per_node=1,
        ranks_per_node=1,
        intra_node=pj.Network.hockney("2 us", "1 GB/s", 65536),
        inter_node=pj.Network.hockney("2 us", "1 GB/s", 65536),
        threads=pj.ThreadCosts.zero(),
    )
    m = pj.Model("hop")
    with m.if_("rank == 0"):
        m.send(dest=10, bytes=512, tag=1)
    with m.if_("rank == 10"):
        m.recv(source=0, tag=1)
    pred = pj.interpret(m, base.with_topology(torus), np=16, progress=False)
    assert pred.end_times[10] == pytest.approx(2e-6 + 4e-6 + 512 / 1e9, rel=1e-9)
    # The same from SimGrid's TORUS cluster.
    path = platform(
        tmp_path,
        '  <cluster id="c" prefix="n-" suffix="" radical="0-15" speed="1Gf" bw="1GBps" lat="1us"'
        ' topology="TORUS" topo_parameters="4,4"/>',
    )
    from_file = pj.Machine.from_simgrid(path)
    assert from_file.topology.kind == "torus"
    assert len(from_file.topology.route(0, 10)) == 4


def test_tapered_fat_tree_halves_the_bisection():
    # 8 nodes under 4-port switches: 2 nodes per leaf; a taper of 2 leaves one uplink per leaf.
    # Nodes 0-3 each send 1 MB to nodes 4-7: two flows per uplink.
    base = pj.Machine(
        name="ft",
        nodes=8,
        cores_per_node=1,
        ranks_per_node=1,
        intra_node=pj.Network.hockney(0, "1 GB/s", 1 << 30),
        inter_node=pj.Network.hockney(0, "1 GB/s", 1 << 30),
        threads=pj.ThreadCosts.zero(),
    )
    m = pj.Model("half", params={"n": MB})
    with m.if_("rank < 4"):
        m.send(dest="rank + 4", bytes="n", tag=1)
    with m.else_():
        m.recv(source="rank - 4", tag=1)
    full = base.with_topology(pj.Topology.fat_tree(radix=4, levels=2))
    tapered = base.with_topology(pj.Topology.fat_tree(radix=4, levels=2, taper=2))
    assert full.topology.capacity == tapered.topology.capacity == 8
    assert pj.interpret(m, full, np=8, progress=False).time == pytest.approx(1e-3, rel=1e-9)
    assert pj.interpret(m, tapered, np=8, progress=False).time == pytest.approx(2e-3, rel=1e-9)


def test_smpi_factors_and_placement_file(tmp_path):
    # SMPI's default piecewise factors apply when the file names no model: a 100 kB message
    # (threshold 65472: latency x 11.6436, bandwidth x 0.940694) over two 1 us links.
    path = tmp_path / "smpi.xml"
    path.write_text(
        "<?xml version='1.0'?>\n<platform version=\"4.1\">\n"
        '  <cluster id="c" prefix="h" suffix=".x" radical="0-3" speed="1Gf" bw="1GBps"'
        ' lat="1us"/>\n</platform>\n'
    )
    machine = pj.Machine.from_simgrid(path)
    m = pj.Model("one")
    with m.if_("rank == 0"):
        m.send(dest=1, bytes=100_000, tag=1)
    with m.if_("rank == 1"):
        m.recv(source=0, tag=1)
    pred = pj.interpret(m, machine, np=2, progress=False)
    expected = 11.6436 * 2e-6 + 100_000 / 0.940694 / 1e9
    # weight-S and cross traffic do not change a lone flow's time.
    assert pred.end_times[1] == pytest.approx(expected, rel=1e-6)
    # A hostfile with SimGrid host names puts ranks 0 and 1 on one host: no link is crossed.
    hosts = tmp_path / "hosts"
    hosts.write_text("h2.x:2  # two ranks\nh3.x\n")
    placed = machine.with_placement(file=hosts)
    assert placed.placement == [2, 2, 3]


def test_platform_errors_name_the_element(tmp_path):
    bad = platform(
        tmp_path,
        '  <cluster id="c" prefix="n-" suffix="" radical="0-7" speed="1Gf" bw="1GBps" lat="1us"'
        ' topology="HYPERCUBE" topo_parameters="3"/>',
    )
    with pytest.raises(MachineError, match=r"p.xml:\d+: topology='HYPERCUBE'"):
        pj.Machine.from_simgrid(bad)
    unit = platform(
        tmp_path,
        '  <cluster id="c" prefix="n-" suffix="" radical="0-7" speed="1Gf" bw="1Gbs" lat="1us"/>',
        name="unit.xml",
    )
    with pytest.raises(MachineError, match=r"unit.xml:\d+: bw='1Gbs'"):
        pj.Machine.from_simgrid(unit)
    size = platform(
        tmp_path,
        '  <cluster id="c" prefix="n-" suffix="" radical="0-6" speed="1Gf" bw="1GBps" lat="1us"'
        ' topology="TORUS" topo_parameters="2,4"/>',
        name="size.xml",
    )
    with pytest.raises(MachineError, match="connects 8 hosts but radical gives 7"):
        pj.Machine.from_simgrid(size)
    # A run needing more nodes than the topology connects is a usage error naming both.
    machine = pj.Machine.from_simgrid(
        platform(
            tmp_path,
            '  <cluster id="c" prefix="n-" suffix="" radical="0-7" speed="1Gf" bw="1GBps" lat="1us"'
            ' topology="TORUS" topo_parameters="2,4"/>',
            name="eight.xml",
        )
    )
    with pytest.raises(UsageError, match="need 10 nodes, but machine 'eight' has a topology of 8"):
        pj.interpret(pairs(MB), machine, np=10, progress=False)


def test_preset_topology_and_what_a_prediction_says(tmp_path):
    edr = pj.Machine.preset("infiniband-edr")
    assert edr.topology.kind == "fat_tree"
    assert edr.topology.capacity == 648
    assert any("36 ports" in s for s in edr.sources)
    pred = pj.interpret(incast(40, 256 * 1024), edr, np=41, progress=False)
    assert "fat tree" in pred.network and "NICs shared" in pred.network
    assert "links shared max-min" in pred.network
    assert pred.to_dict()["network"] == pred.network
    page = pj.report(prediction=pred).html
    assert "Network: inter-node Hockney" in page and "fat tree" in page
    # 40 x 256 KiB into one NIC of 99.1 Gb/s: at least 40 transfer times.
    assert pred.end_times[0] >= 40 * 256 * 1024 / (99.1e9 / 8)
    model = tmp_path / "incast.json"
    incast(4, 4096).save(model)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "parjava",
            "predict",
            str(model),
            "--machine",
            "infiniband-edr",
            "--np",
            "5",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "network: inter-node Hockney" in done.stdout and "fat tree" in done.stdout
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "parjava",
            "predict",
            str(model),
            "--machine",
            "infiniband-edr",
            "--np",
            "5",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "fat tree" in json.loads(done.stdout)["network"]


def _vs_smpi():
    spec = importlib.util.spec_from_file_location("vs_smpi", REPO / "benchmarks" / "vs_smpi.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(shutil.which("smpirun") is None, reason="SimGrid/SMPI is not installed")
def test_against_smpi_on_the_same_platform_file(tmp_path):
    # The benchmark's incast and stencil at np 16 on a flat cluster and a 2:1 tapered fat tree,
    # run by smpirun and by parjava on the same file: within 10 %.
    vs = _vs_smpi()
    binary = tmp_path / "patterns"
    subprocess.run(
        ["smpicc", "-O2", "-o", str(binary), str(REPO / "benchmarks/vs_smpi/patterns.c"), "-lm"],
        check=True,
        capture_output=True,
    )
    for kind, pattern in (("flat", "incast"), ("fattree", "stencil")):
        seconds = vs.PATTERNS[pattern][2]
        path = tmp_path / f"{kind}.xml"
        path.write_text(vs.platform_xml(kind, 16, vs.FLOPS / seconds))
        smpi, _ = vs.run_smpi(binary, path, pattern, 16, tmp_path)
        pred = pj.interpret(
            vs.model(pattern, 16), pj.Machine.from_simgrid(path), np=16, progress=False
        )
        assert pred.time == pytest.approx(smpi, rel=0.10), (kind, pattern, smpi, pred.time)
