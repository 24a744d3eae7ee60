"""parjava.build_model on the examples: model shapes, MPI arguments as expressions, diagnostics,
errors, and the `parjava model` command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import parjava as pj

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "model"


def cfcs(model: pj.Model, op: str) -> list[dict]:
    return [n for n in model.nodes() if n["kind"] == "cfc" and n["op"] == op]


def by_label(model: pj.Model, prefix: str) -> dict:
    found = [n for n in model.nodes() if n.get("label", "").startswith(prefix)]
    assert found, f"no node labelled {prefix!r}"
    return found[0]


def test_jacobi_shape_and_mpi_arguments() -> None:
    m = pj.build_model(EXAMPLES / "jacobi2d.c", args=["-O2"])
    assert isinstance(m, pj.SourceModel)
    assert m.functions == ["main"]
    assert m.parameters == {"argc": 1, "argv1": 0, "argv2": 0}
    irecv = cfcs(m, "MPI_Irecv")
    isend = cfcs(m, "MPI_Isend")
    assert len(irecv) == 2 and len(isend) == 2
    assert irecv[0]["args"] == {
        "source": "up",
        "tag": "1",
        "bytes": "n * 8",
        "comm": "world",
        "request": "req",
        "index": "0",
    }
    assert isend[1]["args"]["dest"] == "down"
    assert isend[1]["args"]["index"] == "3"
    assert cfcs(m, "MPI_Waitall")[0]["args"] == {"request": "req"}
    assert cfcs(m, "MPI_Allreduce")[0]["args"] == {"bytes": "8", "comm": "world"}
    # The decomposition is computed from argv and the rank: kept as control assignments.
    setup = by_label(m, "int rank, size;")
    assign = dict(setup["assign"])
    assert assign["n"] == "((argc > 1) ? argv1 : 512)"
    assert assign["rows"] == "((n / size_) + ((rank_ < (n % size_)) ? 1 : 0))"
    up = dict(by_label(m, "int up =")["assign"])
    assert up["up"] == "((rank_ > 0) ? (rank_ - 1) : PROC_NULL)"
    iteration = by_label(m, "for it < iterations")
    assert iteration["kind"] == "for" and iteration["cond"] == "(it < iterations)"
    nest = by_label(m, "for i <= rows")
    assert nest["cond"] == "(i_2 <= rows)"
    # Every node maps back to the source.
    assert all(n.get("source", {}).get("line", 0) > 0 for n in m.nodes())
    # The arrays are gone; the reduction says so.
    reduced = [d for d in m.diagnostics if d.kind == "reduced"]
    assert reduced and "u, unew" in reduced[0].message


def test_pipeline_master_worker_and_fft() -> None:
    p = pj.build_model(EXAMPLES / "pipeline1d.c")
    recv = cfcs(p, "MPI_Recv")[0]["args"]
    assert recv["source"] == "(rank_ - 1)" and recv["tag"] == "b" and recv["bytes"] == "len * 8"
    assert cfcs(p, "MPI_Send")[0]["args"]["dest"] == "(rank_ + 1)"
    call = next(n for n in p.nodes() if n["kind"] == "ufc")
    assert call["callee"] == "transform" and call["args"] == ["len", "sweeps"]

    mw = pj.build_model(EXAMPLES / "master_worker.c")
    recvs = cfcs(mw, "MPI_Recv")
    master = next(r for r in recvs if r["args"]["source"] == "ANY_SOURCE")["args"]
    assert master["status_source"] == "status_MPI_SOURCE" and master["tag"] == "1"
    worker = next(r for r in recvs if r["args"]["source"] == "0")["args"]
    assert worker["tag"] == "ANY_TAG" and worker["status_tag"].startswith("status_MPI_TAG")
    replies = [s for s in cfcs(mw, "MPI_Send") if s["args"]["dest"] == "status_MPI_SOURCE"]
    assert len(replies) == 2
    stop = by_label(mw, "if status.MPI_TAG == STOP")
    assert stop["cond"] == f"({worker['status_tag']} == 2)"

    fft = pj.build_model(EXAMPLES / "fft_transpose.c")
    assert cfcs(fft, "MPI_Alltoall")[0]["args"]["bytes"] == "(2 * block) * 8"
    assert set(fft.functions) == {"fft_row", "main"}


def test_cpp_classes_templates_lambdas() -> None:
    m = pj.build_model(EXAMPLES / "heat_classes.cpp", args=["-std=c++17"])
    names = set(m.functions)
    assert {"Field<double>::fill", "HeatSolver::exchange", "HeatSolver::step", "main"} <= names
    assert any(n.startswith("HeatSolver::step::lambda@") for n in names)
    assert any(n.startswith("reduce_all<double") for n in names)
    sendrecv = cfcs(m, "MPI_Sendrecv")
    assert len(sendrecv) == 2
    assert sendrecv[0]["args"]["dest"] == "up" and sendrecv[0]["args"]["source"] == "down"
    assert sendrecv[0]["args"]["sendbytes"] == "HeatSolver_n * 8"
    # The datatype reaches the template's MPI_Allreduce as a size in bytes.
    allreduce = cfcs(m, "MPI_Allreduce")[0]["args"]
    assert allreduce["bytes"] == "type"


def test_goto_recursion_and_data_dependent_loops() -> None:
    m = pj.build_model(EXAMPLES / "irregular.c")
    # make_values' `goto fail` jumps forward to a label of its body: each goto is a break out
    # of the statements before the label, and the function stays a control tree.
    assert not [d for d in m.diagnostics if d.kind == "unstructured"]
    jumps = [n for n in m.nodes() if n["kind"] == "break" and n.get("label") == "goto fail"]
    assert len(jumps) == 2
    skipped = next(n for n in m.nodes() if n["id"] == jumps[0]["target"])
    assert skipped["kind"] == "seq" and skipped["source"]["line"] < jumps[0]["source"]["line"]
    assert not [n for n in m.nodes() if n["kind"] == "rb"]
    # The interpreter cannot run a recursive call chain: tree_sum is measured in place, inside
    # the block that calls it from main, and says so.
    recursive = [d for d in m.diagnostics if "is recursive" in d.message]
    assert len(recursive) == 1 and recursive[0].severity == "warning"
    assert recursive[0].function == "tree_sum" and "tree_sum -> tree_sum" in recursive[0].message
    assert not [n for n in m.nodes() if n["kind"] == "ufc" and n.get("callee") == "tree_sum"]
    # Newton's loop and the branch on array values are opaque, with the reason and the line.
    newton = by_label(m, "while fabs(delta) > tol")
    assert "cond" not in newton and "trips" in newton["opaque"]
    large = by_label(m, "if values[i] > 50000.0")
    assert "probability" in large["opaque"]
    opaque = [d for d in m.diagnostics if d.kind == "opaque"]
    assert any("fabs(delta) > tol" in o.message and "values[i]" in o.message for o in opaque)


def test_recursion_through_communication_stays_in_the_model(tmp_path: Path) -> None:
    source = tmp_path / "recursive_bcast.c"
    source.write_text(
        "#include <mpi.h>\n"
        "static void spread(int depth, int *x) {\n"
        "  if (depth == 0) return;\n"
        "  MPI_Bcast(x, 1, MPI_INT, 0, MPI_COMM_WORLD);\n"
        "  spread(depth - 1, x);\n"
        "}\n"
        "int main(int argc, char **argv) {\n"
        "  MPI_Init(&argc, &argv);\n"
        "  int x = 1;\n"
        "  spread(3, &x);\n"
        "  MPI_Finalize();\n"
        "  return 0;\n"
        "}\n"
    )
    m = pj.build_model(source)
    assert not [d for d in m.diagnostics if d.severity == "error"]
    notes = [d for d in m.diagnostics if "is recursive" in d.message]
    assert len(notes) == 1 and notes[0].severity == "note"
    assert notes[0].function == "spread" and notes[0].line == 2
    assert "spread -> spread" in notes[0].message and "frame per activation" in notes[0].message
    # The recursive call is a ufc, guarded by the early return on depth == 0: the interpreter
    # runs three activations with a broadcast each on every rank.
    assert len([n for n in m.nodes() if n["kind"] == "ufc" and n["callee"] == "spread"]) == 2
    pred = pj.interpret(m, pj.Machine.preset("shared-memory"), np=2)
    bcast = next(r for r in pred.nodes() if r["label"] == "MPI_Bcast")
    assert bcast["freq"] == 2 * 3


def test_compile_errors_and_bad_input(tmp_path: Path) -> None:
    bad = tmp_path / "broken.c"
    bad.write_text("int main(void) {\n  return undeclared_name;\n}\n")
    with pytest.raises(pj.FrontendError, match=r"broken.c:2:\d+: error: use of undeclared"):
        pj.build_model(bad)
    with pytest.raises(pj.UsageError, match="does not exist"):
        pj.build_model(tmp_path / "missing.c")
    nomain = tmp_path / "lib.c"
    nomain.write_text("int f(int x) { return x + 1; }\n")
    with pytest.raises(pj.FrontendError, match="no function 'main'"):
        pj.build_model(nomain)
    assert pj.build_model(nomain, entry="f").functions == ["f"]


def test_unsupported_constructs_become_diagnostics(tmp_path: Path) -> None:
    src = tmp_path / "odd.c"
    src.write_text(
        "#include <setjmp.h>\n"
        "static jmp_buf env;\n"
        "static int duff(int n) { int r = 0; switch (n % 2) { case 0: do { r++; case 1: r++; }"
        " while (--n > 0); } return r; }\n"
        "static int jump(void) { if (setjmp(env)) return 1; longjmp(env, 1); }\n"
        "#include <stdio.h>\n"
        "int main(void) { int (*fp)(int) = duff; int (*out)(const char *) = puts;\n"
        '  return fp(3) + jump() + out("x"); }\n'
    )
    m = pj.build_model(src)
    kinds = {(d.kind, d.function) for d in m.diagnostics}
    assert ("unstructured", "duff") in kinds
    assert ("unstructured", "jump") in kinds
    # A pointer that may hold a library function (puts) is not followed, and says why.
    assert any(
        d.kind == "unsupported" and "function pointer" in d.message and "library" in d.message
        for d in m.diagnostics
    )
    # One that holds functions of the input is dispatched among them.
    assert any(
        d.kind == "approximation" and "function pointer" in d.message and "duff" in d.message
        for d in m.diagnostics
    )


def test_cli_model_writes_json_and_diagnostics(tmp_path: Path) -> None:
    out = tmp_path / "pipeline.json"
    diag = tmp_path / "diag.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "parjava",
            "model",
            str(EXAMPLES / "pipeline1d.c"),
            "-o",
            str(out),
            "--diagnostics",
            str(diag),
            "--",
            "-O2",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    model = json.loads(out.read_text())
    assert model["format"] == "parjava-model" and model["name"] == "pipeline1d"
    assert json.loads(diag.read_text())[0]["kind"] == "reduced"
    proc = subprocess.run(
        [sys.executable, "-m", "parjava", "model", "nonexistent.c"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2 and "does not exist" in proc.stderr


def test_examples_compile_cleanly(tmp_path: Path) -> None:
    """The example programs are warning-free C / C++17 (what users will copy)."""
    for src in sorted(EXAMPLES.iterdir()):
        if src.suffix == ".c":
            cmd = ["mpicc", "-O2", "-Wall", "-Wextra", "-Werror"]
        elif src.suffix == ".cpp":
            cmd = ["mpicxx", "-O2", "-std=c++17", "-DOMPI_SKIP_MPICXX=1", "-Wall", "-Wextra"]
            cmd.append("-Werror")
        else:
            continue
        proc = subprocess.run(
            [*cmd, "-c", str(src), "-o", str(tmp_path / "x.o")],
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 0, f"{src.name}: {proc.stderr}"
