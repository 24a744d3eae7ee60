"""The probed copy compiles where the program does (issue 12 item 4), graph500's three idioms.

graph500's reference BFS, tried as a new user would, lost the probes of `main`, `bitreverse`
and `vfulledgehndl` (the compiler rejected them) and then failed to link: every opaque test in
`main` stayed at a silent 0.5 and the model came out 4x too fast. The idioms, in a program of
our own (tests/programs/instrument_c/portable_blocks.c, built -O3 as graph500 is):

* a C99 `inline` function with no external definition, which links only where the compiler
  inlines every call (the probes make it larger): compiled with -fgnu89-inline, with a note;
* a block of statements running from a nested `{ }` into the enclosing one: the probe's begin
  declared its clock variable where its end could not see it;
* statements on both sides of an `#else` / `#endif` whose branch Clang (`__GNUC__` 4) and gcc
  choose differently: the begin fell in the branch gcc drops.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import parjava as pj

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "instrument_c" / "portable_blocks.c"
RUN = ["./portable_blocks", "20"]
FLAGS = ["-O3"]


def test_probed_copy_compiles_and_keeps_every_probe(tmp_path: Path) -> None:
    mpicc = shutil.which("mpicc")
    if mpicc is None:
        pytest.skip("mpicc is not installed")
    # The program itself links at -O3 (gcc inlines `exchange` at both calls).
    subprocess.run([mpicc, *FLAGS, str(PROGRAM), "-o", str(tmp_path / "real")], check=True)
    model = pj.build_model(PROGRAM, FLAGS, argv=RUN)
    estimation = model.estimate(run=RUN, np=1, directory=tmp_path / "est")
    removed = [d.message for d in estimation.diagnostics if "were removed" in d.message]
    assert not removed, removed
    notes = [d.message for d in estimation.diagnostics if "-fgnu89-inline" in d.message]
    assert len(notes) == 1 and notes[0].startswith("exchange:"), notes
    # main kept its probes: its opaque test was counted, not left at 0.5.
    tests = [n for n in model.nodes() if n["kind"] in ("if", "if-else") and "getenv" in n["label"]]
    assert len(tests) == 1 and tests[0]["opaque"].get("samples") == 1, tests
    assert tests[0]["opaque"]["probability"] == 1.0, tests
    copy = (tmp_path / "est" / PROGRAM.name).read_text()
    # The two truncated blocks: each probe's ends in one scope and one preprocessor branch.
    inner = copy[copy.index("my_row = coords[0];") :]
    assert inner.index("PJ_END") < inner.index("}"), inner[:200]
    mix = copy[copy.index("static double mix") : copy.index("int main")]
    assert mix.index("PJ_END") < mix.index("#else"), mix


def test_status_of_an_unmodelled_call_is_data() -> None:
    program = PROGRAM.parents[1] / "mpi_status" / "testany.c"
    model = pj.build_model(program, ["-O2"], argv=["./testany"])
    said = [d.message for d in model.diagnostics if "status.MPI_TAG" in d.message]
    assert said and "does not follow" in said[0], said
    # The loop the tag decides is data now: the model runs (it named an undeclared variable).
    pj.interpret(model, pj.Machine.preset("shared-memory"), np=1)
