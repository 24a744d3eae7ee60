"""The estimation run for real: instrument, compile with mpicc, run under mpirun, load the
block times, branch probabilities and trip counts, reduce the loop nests (seed 000 §3.7)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import parjava as pj

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "model"


def nodes(model: pj.Model, kind: str) -> list[dict]:
    return [n for n in model.nodes() if n["kind"] == kind]


def test_jacobi_estimate_measures_blocks_and_reduces_the_nests(tmp_path: Path) -> None:
    model = pj.build_model(EXAMPLES / "jacobi2d.c", ["-O2"])
    est = model.estimate(run=["./jacobi2d", "128", "10"], np=1, directory=tmp_path / "est")
    assert est.np == 1 and est.seconds > 0
    assert "time" in est.stdout
    # The probed copy and its results are kept where asked.
    assert (tmp_path / "est" / "jacobi2d.c").read_text().startswith('#include "parjava_probes.h"')
    assert list((tmp_path / "est").glob("parjava-estimates.*.txt"))
    # The run's command line became the parameters' defaults.
    assert model.parameters == {"argc": 3, "argv1": 128, "argv2": 10}
    # Both loop nests without communication became blocks whose time scales with trip counts.
    reduced = {n["label"]: n for n in nodes(model, "rb")}
    assert set(reduced) == {"for i < (rows + 2) * n", "for i <= rows"}
    stencil = reduced["for i <= rows"]["time"]
    assert isinstance(stencil, str) and "rows" in stencil and "n" in stencil
    assert not [n for n in model.nodes() if n.get("label") == "for j < n - 1"]
    # Blocks outside the nests carry mean, sigma and sample count; the ones in the iteration
    # loop ran once per iteration.
    measured = [n for n in nodes(model, "cb") if isinstance(n.get("time"), dict)]
    assert measured
    per_iteration = [n for n in measured if n["label"] == "double local = 0.0;"]
    assert per_iteration and per_iteration[0]["time"]["samples"] == 10
    # The iteration loop communicates: it stays a loop the interpreter runs.
    assert [n for n in nodes(model, "for") if n["label"] == "for it < iterations"]
    assert any("balanced" in d.message for d in est.diagnostics)
    # A fresh model of a larger input: the parameters of another command line.
    assert model.arguments(["./jacobi2d", "1024", "100"]) == {
        "argc": 3,
        "argv1": 1024,
        "argv2": 100,
    }
    model.validate()


def test_repeated_runs_pool_and_iterations_are_sampled(tmp_path: Path) -> None:
    model = pj.build_model(EXAMPLES / "jacobi2d.c", ["-O2"])
    est = model.estimate(
        run=["./jacobi2d", "512", "10"], np=1, directory=tmp_path / "est", repeat=3
    )
    assert est.runs == 3 and "3 run(s)" in repr(est)
    runs = sorted((tmp_path / "est").glob("run-*"))
    assert [r.name for r in runs] == ["run-1", "run-2", "run-3"]
    assert all(len(list(r.glob("parjava-estimates.*.txt"))) == 1 for r in runs)
    # The stencil's row loop runs 10 x 512 iterations: the first 256 are timed one by one, then
    # one in 16, so the timestamps stay a small part of a short row's time.
    source = (tmp_path / "est" / "jacobi2d.c").read_text()
    slot = re.search(r"pj_iter_begin\((\d+)\)", source)
    assert slot is not None
    text = next(runs[0].glob("parjava-estimates.*.txt")).read_text()
    assert text.startswith("parjava-estimates 4\n")
    line = re.search(rf"^slot {slot.group(1)} (\d+) ", text, re.M)
    assert line is not None
    assert int(line.group(1)) == 256 + (10 * 512 - 256) // 16
    stencil = {n["label"]: n for n in nodes(model, "rb")}["for i <= rows"]["time"]
    assert isinstance(stencil, str) and "rows" in stencil
    with pytest.raises(pj.UsageError, match="combine"):
        model.estimate(run=["./jacobi2d", "64", "2"], combine="best")
    with pytest.raises(pj.UsageError, match="repeat"):
        model.estimate(run=["./jacobi2d", "64", "2"], repeat=0)


def test_opaque_statistics_and_the_unstructured_function(tmp_path: Path) -> None:
    model = pj.build_model(EXAMPLES / "irregular.c", ["-O2"])
    model.estimate(run=["./irregular", "8", "300"], np=2)
    newton = next(n for n in model.nodes() if n.get("label") == "while fabs(delta) > tol")
    trips = newton["opaque"]
    assert trips["samples"] == 300  # one execution per point, over both ranks
    assert 3 < trips["trips"] < 60  # Newton converges in tens of steps for these values
    large = [n for n in model.nodes() if n.get("label") == "if values[i] > 50000.0"]
    # The branch sits in a loop without communication, which the estimation reduced.
    assert not large
    # make_values' `goto fail` error paths are breaks: the function stays a control tree,
    # whose statements the estimation measured.
    assert not [n for n in nodes(model, "rb") if n["label"].startswith("make_values")]
    assert len([n for n in model.nodes() if n.get("label") == "goto fail"]) == 2
    # tree_sum (recursive) is measured inside main's blocks, so the model interprets.
    machine = pj.Machine.preset("shared-memory")
    prediction = pj.interpret(
        model, machine, np=[1, 2], params=model.arguments(["./x", "8", "300"])
    )
    assert all(t > 0 for t in prediction.times)
    calls = [
        n["id"] for n in model.nodes() if n["kind"] == "ufc" and n.get("callee") == "make_values"
    ]
    rows = {r["id"]: r for r in prediction.nodes(2)}
    assert calls and all(rows[c]["time"] > 0 and rows[c]["freq"] == 2 for c in calls)


def test_a_kernel_called_per_row_scales_with_its_arguments() -> None:
    # fft_row(n) holds loops over n: the row loop calling it stays a loop, and fft_row's own
    # loops are reduced with trip counts in n, so a prediction for a larger n follows
    # n^2 log n instead of freezing the per-row cost measured at the estimation input.
    model = pj.build_model(EXAMPLES / "fft_transpose.c", ["-O2"])
    model.estimate(run=["./fft_transpose", "128", "2"], np=1)
    row_loops = [n for n in model.nodes() if n["kind"] == "for" and n["label"] == "for i < rows"]
    assert row_loops, "the loop calling fft_row was reduced as one fragment"
    stage = next(n for n in nodes(model, "rb") if n["label"] == "for k < n")
    assert "half" in stage["time"] and "n" in stage["time"]
    machine = pj.Machine.preset("shared-memory")
    times = {}
    for n in (128, 512):
        params = model.arguments(["./fft_transpose", str(n), "2"])
        times[n] = pj.interpret(model, machine, np=[1], params=params, trace=True).region_time(1)
    # 16 x (9 / 7) = 20.6 for n^2 log2 n; a frozen per-row cost gives about 5.
    assert 14 < times[512] / times[128] < 30


def test_cli_estimate(tmp_path: Path) -> None:
    out = tmp_path / "pipeline.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "parjava",
            "estimate",
            str(EXAMPLES / "pipeline1d.c"),
            "--run",
            "./pipeline1d 2000 6 2",
            "-o",
            str(out),
            "-q",
            "--",
            "-O2",
            "-lm",
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    model = json.loads(out.read_text())
    assert model["parameters"]["argv1"]["value"] == 2000
    assert any(n["kind"] == "rb" for n in model["nodes"])


def test_failing_program_is_a_run_error(tmp_path: Path) -> None:
    src = tmp_path / "fails.c"
    src.write_text(
        "#include <mpi.h>\n#include <stdio.h>\n"
        "int main(int argc, char **argv) {\n  MPI_Init(&argc, &argv);\n"
        '  if (argc < 2) {\n    fprintf(stderr, "cannot open input\\n");\n    return 3;\n  }\n'
        "  MPI_Finalize();\n  return 0;\n}\n"
    )
    model = pj.build_model(src)
    with pytest.raises(pj.RunError, match="cannot open input"):
        model.estimate(run=["./fails"], np=1)
    with pytest.raises(pj.UsageError):
        model.estimate(run=[], np=1)


def test_a_status_after_mpi_finalize_is_the_programs_verdict(tmp_path: Path) -> None:
    # XSBench returns 1 from main, after MPI_Finalize, for an input whose checksum it does not
    # know: the run is complete, and a user cannot change the program's status. mpirun then
    # aborts the job: rank 1, still busy after MPI_Finalize, is killed before it exits, and its
    # measurements must already be on disk.
    src = tmp_path / "verdict.c"
    src.write_text(
        "#include <mpi.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <unistd.h>\n"
        "int main(int argc, char **argv) {\n  int rank;\n  MPI_Init(&argc, &argv);\n"
        "  MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n"
        "  int n = argc > 1 ? atoi(argv[1]) : 1000;\n  double s = 0.0;\n"
        "  for (int i = 0; i < n; i++) s += 1.0 / (1.0 + i);\n"
        '  printf("%f\\n", s);\n  MPI_Finalize();\n'
        "  if (rank != 0) sleep(20);\n"
        "  return rank == 0 && s > 1.0;\n}\n"
    )
    model = pj.build_model(src)
    estimation = model.estimate(run=["./verdict", "20000"], np=2)
    status = [d for d in estimation.diagnostics if "exited with status 1" in d.message]
    assert len(status) == 1 and status[0].severity == "warning", estimation.diagnostics
    assert model.self_check is not None and "passed" in model.self_check
    # Without MPI at all (RSBench, OpenMP only): the run finished at its exit.
    plain = tmp_path / "plain.c"
    plain.write_text(
        "#include <stdio.h>\n#include <stdlib.h>\n"
        "int main(int argc, char **argv) {\n"
        "  int n = argc > 1 ? atoi(argv[1]) : 1000;\n  double s = 0.0;\n"
        "  for (int i = 0; i < n; i++) s += 1.0 / (1.0 + i);\n"
        '  printf("%f\\n", s);\n  return s > 1.0;\n}\n'
    )
    model = pj.build_model(plain)
    estimation = model.estimate(run=["./plain", "20000"], np=1)
    assert any("exited with status 1" in d.message for d in estimation.diagnostics)


def test_openmp_loop_is_timed_per_thread_and_reduced(tmp_path: Path) -> None:
    src = tmp_path / "omp_sum.c"
    src.write_text(
        "#include <mpi.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
        "int main(int argc, char **argv) {\n"
        "  MPI_Init(&argc, &argv);\n"
        "  int n = argc > 1 ? atoi(argv[1]) : 100000;\n"
        "  double *a = malloc(n * sizeof(double));\n"
        "  double sum = 0.0;\n"
        "  for (int rep = 0; rep < 5; rep++) {\n"
        "    #pragma omp parallel for reduction(+:sum)\n"
        "    for (int i = 0; i < n; i++) {\n"
        "      a[i] = 0.5 * i + rep;\n"
        "      sum += a[i] * a[i];\n"
        "    }\n"
        "    MPI_Barrier(MPI_COMM_WORLD);\n"
        "  }\n"
        '  printf("%g\\n", sum);\n'
        "  free(a);\n"
        "  MPI_Finalize();\n"
        "  return 0;\n"
        "}\n"
    )
    model = pj.build_model(src, ["-O2", "-fopenmp"])
    groups = nodes(model, "task_group")
    assert len(groups) == 1
    est = model.estimate(run=["./omp_sum", "200000"], np=1)
    reduced = nodes(model, "rb")
    assert len(reduced) == 1
    # Each task's share: the static chunk of the loop times the measured iteration time.
    assert "task" in reduced[0]["time"] and "ntasks" in reduced[0]["time"]
    assert any("per iteration over" in d.message for d in est.diagnostics)
    assert len([n for n in model.nodes() if n["kind"] == "cfc" and n["op"] == "atomic_cas"]) == 1
