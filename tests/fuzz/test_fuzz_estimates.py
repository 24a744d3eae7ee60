"""Estimates files (what the estimation run writes, parjava-estimates.<rank>.<pid>.txt),
mutated: loading them into a model built by the Clang frontend either works or raises a
parjava error (RunError for the file itself) naming the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fuzzing import run_cases
from mutations import mutate

import parjava as pj

SOURCE = """
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 100;
  double s = 0.0;
  for (int it = 0; it < 10; it++) {
    for (int i = 0; i < n; i++) {
      if (rand() % 3 == 0) s += i;
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return (int)s & 1;
}
"""


def _estimates(slots: int) -> bytes:
    lines = [
        "parjava-estimates 2",
        "clock rdtsc",
        "ticks_per_second 2.5e9",
        f"slots {slots}",
        "run_seconds 0.5",
        "calibration 40 49 8",
    ]
    for k in range(slots):
        lines.append(f"slot {k} {10 + k} {2500 * (k + 1)} 1.2e6 200 900 0 0 0 {k} 1:{k + 3} 2:7")
    lines.append("end")
    return ("\n".join(lines) + "\n").encode()


def test_mutated_estimates(tmp_path: Path) -> None:
    try:
        from parjava.frontend import _load_frontend

        fe = _load_frontend()
    except pj.MissingDependencyError as exc:
        pytest.skip(f"the Clang frontend is not built: {exc}")
    source = tmp_path / "fuzz.c"
    source.write_text(SOURCE)
    spec = pj.build_model([source])._spec
    inst = fe.instrument(
        list(spec.sources),
        list(spec.args),
        spec.compile_commands,
        spec.entry,
        spec.name,
        ["fuzz", "50"],
        spec.find_mpi,
        str(tmp_path),
    )
    slots = int(json.loads(inst["plan"])["slots"])
    assert slots > 0
    seed = _estimates(slots)
    # The unmutated file loads: the seed is valid.
    (tmp_path / "seed.txt").write_bytes(seed)
    fe.apply_estimates(inst["model"], inst["plan"], [[str(tmp_path / "seed.txt")]])

    def make_case(rng: object, case: int) -> Path:
        path = tmp_path / f"parjava-estimates.{case}.1.txt"
        path.write_bytes(mutate(rng, seed, text=True))  # type: ignore[arg-type]
        return path

    def read(path: Path) -> None:
        applied = fe.apply_estimates(inst["model"], inst["plan"], [[str(path)]])
        pj.Model.from_json(applied["model"])
        json.loads(applied["diagnostics"])

    outcomes = run_cases("estimates", make_case, read, (pj.Error,))
    assert outcomes["read"] > 0 and outcomes["refused"] > 0, outcomes
