"""The Python model builder, JSON round trip, validation errors and the HTML view."""

from __future__ import annotations

import json

import pytest

import parjava as pj


def ring_model() -> pj.Model:
    m = pj.Model("ring", params={"niter": 10, "N": 1024}, file="ring.c")
    with m.loop("i", 0, "niter", line=10):
        m.compute("2e-9 * N * N / size", line=11)
        m.sendrecv(
            dest="(rank + 1) % size", sendbytes="8 * N", source="(rank - 1 + size) % size", line=12
        )
    m.allreduce(bytes=8, line=14)
    return m


def test_builder_produces_valid_model_and_round_trips(tmp_path):
    m = ring_model()
    m.validate()
    assert len(m) == 6
    path = tmp_path / "ring.json"
    m.save(path)
    loaded = pj.Model.load(path)
    assert loaded.to_json() == m.to_json()
    doc = json.loads(path.read_text())
    assert doc["format"] == "parjava-model" and doc["version"] == 1
    loop = next(n for n in doc["nodes"] if n["kind"] == "for")
    assert loop["cond"] == "i < niter" and loop["update"] == [["i", "i + 1"]]
    assert loop["source"] == {"file": 0, "line": 10}


def test_if_else_switch_break_and_functions():
    m = pj.Model("shapes", params={"n": 4})
    with m.function("work", params=["k"]):
        m.compute("1e-6 * k")
    with m.while_(probability=0.9) as loop:
        with m.if_("rank == 0"):
            m.call("work", "n")
        with m.else_():
            m.break_()
        with m.switch("rank % 3"):
            with m.case(0):
                m.compute(1e-6)
                m.break_()
            with m.case(default=True):
                m.continue_()
    m.validate()
    kinds = {n["id"]: n["kind"] for n in m.nodes()}
    assert "if-else" in kinds.values() and "switch" in kinds.values()
    breaks = [n for n in m.nodes() if n["kind"] == "break"]
    assert breaks[0]["target"] == loop
    assert kinds[breaks[1]["target"]] == "switch"


def test_errors_name_node_and_field():
    m = pj.Model("bad", params={"N": 8})
    node = m.compute("2e-9 * M")
    with pytest.raises(pj.ModelError, match=rf"node {node}.*'time'.*unknown name 'M'"):
        m.validate()
    m2 = pj.Model("bad2")
    node = m2.op("MPI_Send", dest=1)
    with pytest.raises(pj.ModelError, match=rf"node {node}.*args.bytes.*needs this argument"):
        m2.validate()
    with pytest.raises(pj.ModelError, match="not valid JSON"):
        pj.Model.from_json("{")
    with pytest.raises(pj.UsageError):
        m2.else_()


def test_open_statement_is_reported():
    m = pj.Model("open")
    ctx = m.loop("i", 0, 3)
    ctx.__enter__()
    with pytest.raises(pj.ModelError, match="still open"):
        m.validate()
    ctx.__exit__(None, None, None)
    m.validate()


def test_reduce_replaces_subtree():
    m = pj.Model("nest", params={"N": 100})
    with m.loop("i", 0, "N") as outer:
        with m.loop("j", 0, "N"):
            m.compute(1e-9)
    m.barrier()
    assert m.mark_simple() == [outer]
    simple, reason = m.reducibility(outer)
    assert simple and reason == ""
    m.reduce(outer, 1e-5)
    assert m.node(outer)["kind"] == "rb" and m.node(outer)["time"] == pytest.approx(1e-5)
    assert len(m) == 3


def test_show_renders_source_lines(tmp_path):
    src = tmp_path / "ring.c"
    src.write_text("\n" * 9 + "for (i = 0; i < niter; i++) {\n  compute();\n  MPI_Sendrecv(...);\n")
    m = ring_model()
    m._doc["files"] = [str(src)]
    html = m.show()._repr_html_()
    assert "MPI_Sendrecv(dest=" in html
    assert "for (i = 0; i &lt; niter; i++) {" in html
    assert "#dbe9f6" in html and "#fdf3d3" in html  # statements and blocks differ


def test_operations_table_lists_every_family():
    ops = pj.model.operations()
    families = {o["family"] for o in ops}
    assert families == {"mpi", "thread", "pgas"}
    send = next(o for o in ops if o["name"] == "MPI_Send")
    assert [a["name"] for a in send["args"]] == ["dest", "bytes", "tag", "comm"]
