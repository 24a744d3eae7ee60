"""Sizes and times given on the compile line (issue 12; mrnorman/miniWeather, tried unmodified in
the twenty-first session, takes its grid, simulated time and output interval as -D flags),
reproduced in tests/programs/compile_time/weather.c.

Clang folded `static const int nx_glob = NX;` into the number of this build, so the model kept
the estimation's grid and step count at any size, and `params=` had no name to change them by.
A number of the compile line is now a parameter named after its macro.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import parjava as pj
from program_runs import median_time, source_line

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "compile_time" / "weather.c"
MACHINE = pj.Machine.preset("shared-memory")


def _flags(nx: int, t_end: int = 400) -> list[str]:
    return ["-O2", f"-DNX={nx}", "-DNZ=64", f"-DT_END={t_end}", "-DOUT_FREQ=-1", "-DSCALE=(1)"]


def _line(text: str) -> int:
    return source_line(PROGRAM, text)


@pytest.fixture(scope="module")
def model() -> pj.SourceModel:
    return pj.build_model(PROGRAM, [*_flags(256), "-lm"], argv=["./weather"])


def _sends(prediction: pj.Prediction, np: int) -> float:
    line = _line("MPI_Isend(buf + 2 * count")
    return sum(r["freq"] for r in prediction.nodes(np) if r["line"] == line)


def test_numbers_of_the_compile_line_are_parameters(model: pj.SourceModel) -> None:
    """NX, NZ, T_END and OUT_FREQ (a negative number) are parameters with the flag's value;
    SCALE, given as `(1)`, is not one number and stays a constant, and LEN, defined in the
    source, is the program's own constant."""
    params = model.parameters
    assert {k: params[k] for k in ("NX", "NZ", "T_END", "OUT_FREQ")} == {
        "NX": 256,
        "NZ": 64,
        "T_END": 400,
        "OUT_FREQ": -1,
    }, params
    assert "SCALE" not in params and "LEN" not in params, params
    doc = model.to_json()
    assert '"origin": "compile-time"' in doc
    assert f"weather.c:{_line('static const int nx_glob = NX;')}" in doc
    assert not [d for d in model.diagnostics if d.severity == "error"], model.diagnostics


def test_a_larger_grid_and_a_longer_time_change_the_steps(model: pj.SourceModel) -> None:
    """dx = LEN / nx_glob sets the time step: twice NX halves it, so the loop `while (etime <
    t_end)` runs twice as many steps, as does twice T_END; each step swaps halos twice."""
    steps = {}
    for name, params in (("base", {}), ("nx", {"NX": 512}), ("time", {"T_END": 800})):
        steps[name] = _sends(pj.interpret(model, MACHINE, np=2, params=params), 2) / 2 / 2
    dt = min(2.0e4 / 256, 2.0e4 / 2 / 64) / 450.0 * 1.5
    assert steps["base"] == pytest.approx(400 / dt, abs=1.0), steps
    assert steps["nx"] == pytest.approx(2 * steps["base"], abs=2.0), steps
    assert steps["time"] == pytest.approx(2 * steps["base"], abs=2.0), steps
    # `#if NX >= 4096` chose the stencil when the program was built: another NX says so.
    line = _line("#if NX >= 4096")
    wide = pj.interpret(model, MACHINE, np=2, params={"NX": 8192})
    said = [w for w in wide.warnings if "preprocessor tests it" in w]
    assert len(said) == 1 and f"weather.c:{line}" in said[0], wide.warnings
    same = pj.interpret(model, MACHINE, np=2, params={"NX": 256, "T_END": 800})
    assert not [w for w in same.warnings if "preprocessor" in w], same.warnings


def test_twice_the_grid_against_the_program_built_at_it(
    model: pj.SourceModel, tmp_path: Path
) -> None:
    """Estimated at np 1 on NX=256, the model predicts NX=512 (twice the cells, twice the
    steps) as a build at 512 runs it, as a ratio of the two times at np 1 and np 2 (a uniformly
    slower machine does not change it). Before, the model said 1.0."""
    model.estimate(run=["./weather"], np=1, directory=tmp_path / "est")
    exes = {}
    for nx in (256, 512):
        exes[nx] = tmp_path / f"weather{nx}"
        subprocess.run(
            ["mpicc", *_flags(nx), str(PROGRAM), "-o", str(exes[nx]), "-lm"],
            check=True,
            timeout=120,
        )
    for np in (1, 2):
        predicted = [pj.interpret(model, MACHINE, np=np, params={"NX": nx}).time for nx in exes]
        ratio = predicted[1] / predicted[0]
        real = 0.0
        for _ in range(2):  # timings on a shared VM: a second measurement decides
            real = median_time(exes[512], np) / median_time(exes[256], np)
            if abs(ratio - real) <= 0.2 * real:
                break
        assert ratio == pytest.approx(real, rel=0.2), (np, ratio, real)
        assert 3.2 < ratio < 4.8, (np, ratio)
