"""The idioms of Mantevo's miniMD (issues 12 and 13, real programs; unmodified, it crashed the
builder, and once it parsed its force computation was missing from the model): a directive in a
macro that only a preprocess-first build turns into a pragma, `omp master` inside a parallel
region, OpenMP loops over a count held in data, a virtual call through a base-class pointer,
options whose defaults are declaration initialisers, and a lattice loop that stays in the
model with the function it calls per atom. Programs of our own in tests/programs/
(pragma_macro, virtual_dispatch, option_defaults, kept_nest); real Clang parses, estimation
under mpirun, real runs to compare with."""

from __future__ import annotations

import json
import re
import shutil
import statistics
import subprocess
from pathlib import Path

import pytest

import parjava as pj
from timed_estimation import estimate_checked

pytest.importorskip("parjava._frontend", reason="the Clang frontend is not built")
pytestmark = pytest.mark.mpi

PROGRAMS = Path(__file__).resolve().parents[1] / "programs"
MACHINE = pj.Machine.preset("shared-memory")


def _trusted(model: pj.SourceModel) -> bool:
    """Whether the estimation's timings are worth comparing (not slowed by neighbours)."""
    return model.estimation is None or model.estimation.verdict != "doubtful"


def _run(exe: Path, args: list[str], np: int = 1) -> str:
    return subprocess.run(
        ["mpirun", "--oversubscribe", "-np", str(np), str(exe), *args],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def _nodes(model: pj.SourceModel) -> list[dict]:
    return list(json.loads(model.to_json())["nodes"])


# --- a directive in a macro, omp master in a parallel region, OpenMP loops over data ---------

MD = PROGRAMS / "pragma_macro" / "md.c"
MD_RUN = ["./md", "100000", "4"]


@pytest.fixture(scope="module")
def md(tmp_path_factory: pytest.TempPathFactory) -> pj.SourceModel:
    m = pj.build_model(MD, ["-fopenmp", "-O2"], argv=MD_RUN)
    estimate_checked(m, tmp_path_factory.mktemp("md"), run=MD_RUN, np=1)
    return m


def test_a_directive_in_a_macro_is_read_as_the_pragma(md: pj.SourceModel) -> None:
    """`#define OMP_FOR_STATIC #pragma omp for schedule(static)` is a stray '#' to a compiler
    run on the source (a FrontendError before); the builder reads it as _Pragma, says so with
    the macro's line, and the estimation code, compiled from the source, builds and runs."""
    notes = [d for d in md.diagnostics if "holds the directive" in d.message]
    assert len(notes) == 1, [str(d) for d in md.diagnostics]
    assert notes[0].file.endswith("schedule.h") and notes[0].line == 7
    assert "OMP_FOR_STATIC" in notes[0].message and "-E" in notes[0].message
    assert md.estimation is not None
    # The program as written builds only preprocess-first, as its Makefile does: so is the
    # unmodified program the self-check compares with, and a note says why.
    said = [d.message for d in md.diagnostics if "built preprocess-first" in d.message]
    assert said and "stray" in said[0], [d.message for d in md.diagnostics]
    assert md.estimation.self_check is not None
    assert md.estimation.self_check.baseline == "unmodified", md.estimation.self_check.message
    labels = [str(n.get("label", "")) for n in md.nodes()]
    assert "omp master" in labels  # the one nested in the region, and exchange()'s
    # integrate()'s orphaned loop is modelled (next test), not warned about any more.
    assert not [d for d in md.diagnostics if "(orphaned)" in d.message]


def test_an_orphaned_worksharing_loop_is_shared_among_the_calling_regions_threads(
    md: pj.SourceModel,
) -> None:
    """integrate()'s `omp for` is outside any lexical parallel region; main's region calls it,
    so its iterations are split among that region's threads (OpenMP's binding region). The
    model ran the whole loop in every thread: two threads predicted as slow as one (miniMD
    with `-t 2`, -76 % on its self-check)."""
    one = pj.interpret(md, MACHINE, np=1, threads=1, params=md.arguments(MD_RUN)).time
    two = pj.interpret(md, MACHINE, np=1, threads=2, params=md.arguments(MD_RUN)).time
    # The loop is most of the run: about half the time with two threads.
    assert 0.4 < two / one < 0.7, (one, two)


def test_openmp_loops_over_a_count_in_data_have_their_time(md: pj.SourceModel) -> None:
    """integrate()'s worksharing loop runs over `nlocal`, which the program counts in its data:
    each thread counts its chunk, so the loop is reduced to trips x its time per iteration
    (before, it had no trip count, no time, and the model 0 % of the run's time in it)."""
    said = [str(d) for d in md.diagnostics if "has no trip count" in d.message]
    assert not said, said
    loops = [
        n
        for n in _nodes(md)
        if n.get("kind") == "rb" and n.get("label") == "for i < nlocal" and "nlocal" not in n
    ]
    assert loops and all("100000" in str(n["time"]) for n in loops), loops
    # integrate()'s loop: the count per team, shared out among the tasks that run it.
    assert any("ntasks" in str(n["time"]) for n in loops), loops
    check = md.estimation.self_check
    assert check is not None
    if _trusted(md):
        assert check.passed, check.message
        short = pj.interpret(md, MACHINE, np=1, params=md.arguments(MD_RUN)).time
        long = pj.interpret(md, MACHINE, np=1, params=md.arguments(["./md", "100000", "40"])).time
        assert 5.0 < long / short < 10.5  # the steps are most of the run


def test_the_build_as_its_makefile_does_it_matches(md: pj.SourceModel, tmp_path: Path) -> None:
    """The program built the way its build must (preprocess, then compile the output), timed
    from MPI_Init to MPI_Finalize, against the model's prediction at ten times the steps."""
    if not _trusted(md):
        pytest.skip(f"a timed comparison needs a quiet machine: {md.estimation.trust}")
    mpicc = shutil.which("mpicc")
    assert mpicc is not None
    expanded = tmp_path / "md.2.c"
    with expanded.open("w") as out:
        subprocess.run([mpicc, "-fopenmp", "-O2", "-E", str(MD)], check=True, stdout=out)
    exe = tmp_path / "md"
    span = Path(__file__).resolve().parents[2] / "benchmarks" / "mpi_span.c"
    subprocess.run([mpicc, "-fopenmp", "-O2", str(expanded), str(span), "-o", str(exe)], check=True)
    spans = []
    for _ in range(3):
        out = subprocess.run(
            ["mpirun", "--oversubscribe", "-np", "1", str(exe), "100000", "40"],
            check=True,
            capture_output=True,
            text=True,
        )
        assert "40 steps" in out.stdout
        spans.append(float(re.findall(r"^parjava-span 0 ([0-9.eE+-]+)$", out.stderr, re.M)[0]))
    if max(spans) > 1.25 * min(spans):
        # The program itself: 0.050 to 0.089 s in three runs of one CI job on this VM.
        pytest.skip(f"the real runs spread {max(spans) / min(spans):.2f}x: {spans}")
    real = statistics.median(spans)
    argv = ["./md", "100000", "40"]
    predicted = pj.interpret(md, MACHINE, np=1, params=md.arguments(argv)).time
    if abs(predicted - real) > 0.3 * real:
        # One estimation on a shared VM can be slowed (once +55 % at load 2 among other
        # estimations): a second one decides, as benchmarks take the better of several runs.
        again = pj.build_model(MD, ["-fopenmp", "-O2"], argv=MD_RUN)
        again.estimate(run=MD_RUN, np=1, directory=tmp_path / "again")
        if _trusted(again):
            predicted = pj.interpret(again, MACHINE, np=1, params=again.arguments(argv)).time
    assert predicted == pytest.approx(real, rel=0.3), (predicted, spans)


# --- a virtual call through a base-class pointer ---------------------------------------------

VD = PROGRAMS / "virtual_dispatch"
VD_RUN = ["./md", "20000", "4"]


@pytest.fixture(scope="module")
def vd(tmp_path_factory: pytest.TempPathFactory) -> pj.SourceModel:
    m = pj.build_model([VD / "md.cpp", VD / "force.cpp"], ["-O2"], argv=VD_RUN)
    estimate_checked(m, tmp_path_factory.mktemp("vd"), run=VD_RUN, np=1)
    return m


def test_a_virtual_call_dispatches_to_the_overrider_the_run_used(vd: pj.SourceModel) -> None:
    """`force->compute(...)` on a `Force *` holding a PairForce (defined in another file, in an
    anonymous namespace, unseen where the call is) runs PairForce::compute in the model, 4
    times per 4 steps; before, the model ran Force::compute's empty body and predicted the
    run's pair loop as nothing."""
    notes = [d.message for d in vd.diagnostics if d.message.startswith("virtual call")]
    assert notes and "PairForce::compute" in notes[0] and "FieldForce::compute" in notes[0]
    tests = {str(n["label"]): n for n in vd.nodes() if "force->compute ==" in str(n.get("label"))}
    pair = [n for label, n in tests.items() if label.endswith("PairForce::compute")]
    base = [n for label, n in tests.items() if label.endswith("== Force::compute")]
    assert pair and pair[0]["opaque"]["probability"] == 1.0, tests
    assert base and base[0]["opaque"]["probability"] == 0.0, tests
    prediction = pj.interpret(vd, MACHINE, np=1, params=vd.arguments(VD_RUN))
    calls = [
        r["freq"]
        for r in prediction.nodes(1)
        if r["kind"] == "ufc" and str(r["label"]).endswith("PairForce::compute")
    ]
    assert calls == [4], calls


def test_the_virtual_call_s_loops_scale_with_the_steps(vd: pj.SourceModel) -> None:
    check = vd.estimation.self_check
    assert check is not None
    if not _trusted(vd):
        pytest.skip(f"a timed comparison needs a quiet machine: {vd.estimation.trust}")
    assert check.passed, check.message
    short = pj.interpret(vd, MACHINE, np=1, params=vd.arguments(VD_RUN)).time
    long = pj.interpret(vd, MACHINE, np=1, params=vd.arguments(["./md", "20000", "40"])).time
    assert long / short == pytest.approx(10, rel=0.15)


# --- options whose defaults are declaration initialisers --------------------------------------


def test_an_absent_option_keeps_its_default() -> None:
    """`int steps = 5; ... if (strcmp(argv[i], "-n") == 0) steps = atoi(argv[++i]);`: the model
    runs steps x substeps barriers with the defaults of the options the command line leaves
    out (before, the declarations were forgotten: 0 barriers whatever the command line)."""
    m = pj.build_model(PROGRAMS / "option_defaults" / "options.c", ["-O2"])
    params = {p: m.parameters[p] for p in ("steps", "substeps")}
    assert params == {"steps": 5, "substeps": 3}
    for argv, barriers in (
        (["./options"], 15),
        (["./options", "-n", "7"], 21),
        (["./options", "--steps", "9", "-m", "2"], 18),
    ):
        run = pj.interpret(m, MACHINE, np=2, params=m.arguments(argv)).runs[0]
        assert run.engine["messages"] == 2 * barriers, argv


def test_an_absent_option_keeps_its_default_after_an_estimation(tmp_path: Path) -> None:
    """The estimation run gives only `-n 7`: the `-m` branch never runs, and its variable keeps
    its default 3 at every command line."""
    m = pj.build_model(PROGRAMS / "option_defaults" / "options.c", ["-O2"])
    m.estimate(run=["./options", "-n", "7"], np=1, directory=tmp_path / "est")
    for argv, barriers in ((["./options", "-n", "7"], 21), (["./options", "-n", "2"], 6)):
        run = pj.interpret(m, MACHINE, np=2, params=m.arguments(argv)).runs[0]
        assert run.engine["messages"] == 2 * barriers, argv


# --- a loop the model keeps, and the function it calls per atom -------------------------------

LATTICE = PROGRAMS / "kept_nest" / "lattice.c"
LATTICE_RUN = ["./lattice", "40", "10"]


@pytest.fixture(scope="module")
def lattice(tmp_path_factory: pytest.TempPathFactory) -> pj.SourceModel:
    m = pj.build_model(LATTICE, ["-O2"], argv=LATTICE_RUN)
    m.estimate(run=LATTICE_RUN, np=1, directory=tmp_path_factory.mktemp("lattice"))
    return m


def test_a_kept_loop_s_callee_counts_its_branches(lattice: pj.SourceModel) -> None:
    """The lattice loop sets its cell counters, so the model keeps it, and add_atom() runs in
    the model once per atom: its `if (nlocal == nmax)` is counted in the estimation run (true
    twice in 32000 calls). Before, it had no counter and the model grew the array at every
    second atom, each growth a copy and a free."""
    grows = [n for n in lattice.nodes() if n.get("label") == "if nlocal == nmax"]
    assert len(grows) == 1 and grows[0]["opaque"].get("samples") == 32000, grows
    assert grows[0]["opaque"]["probability"] == pytest.approx(2 / 32000)
    prediction = pj.interpret(lattice, MACHINE, np=1, params=lattice.arguments(LATTICE_RUN))
    calls = [r["freq"] for r in prediction.nodes(1) if r["kind"] == "ufc" and r["label"] == "grow"]
    assert sum(calls) < 20, calls  # two expected; a few draws either way
    check = lattice.estimation.self_check
    assert check is not None
    if _trusted(lattice):
        # A 1.5 ms run: 10 % is its noise (+11 % in a CI job, and -55 % against an unmodified
        # program that took 2.0 ms once); the growth at every second atom this guards against
        # was +280 %.
        assert check.error < 0.5, check.message


def test_the_lattice_prediction_matches_a_real_run(lattice: pj.SourceModel, tmp_path: Path) -> None:
    if not _trusted(lattice):
        pytest.skip(f"a timed comparison needs a quiet machine: {lattice.estimation.trust}")
    mpicc = shutil.which("mpicc")
    assert mpicc is not None
    exe = tmp_path / "lattice"
    subprocess.run([mpicc, "-O2", str(LATTICE), "-o", str(exe)], check=True)
    assert "32000 atoms" in _run(exe, ["40", "10"])
    predicted = pj.interpret(lattice, MACHINE, np=1, params=lattice.arguments(LATTICE_RUN)).time
    # Before, the guessed growths alone predicted seconds for a run of a few milliseconds.
    assert predicted < 0.5, predicted


# --- a template's instantiations share one probe ----------------------------------------------


def test_a_template_s_instantiations_are_checked_together(tmp_path: Path) -> None:
    """sweep<1> runs on every step and sweep<2> never; the estimation measures their shared
    loop once. The self-check compares that with both instantiations' rows together, instead
    of blaming sweep<2>'s loop as 'never runs in the model' for the whole measured time (as it
    blamed miniMD's four compute_halfneigh instantiations)."""
    source = PROGRAMS / "templates" / "kernels.cpp"
    m = pj.build_model(source, ["-O2"], argv=["./kernels", "200000", "10"])
    m.estimate(run=["./kernels", "200000", "10"], np=1, directory=tmp_path / "est")
    loops = [n for n in m.nodes() if n.get("kind") == "rb" and n.get("label") == "for i < a.size()"]
    assert len(loops) == 2  # both instantiations are in the model
    check = m.estimation.self_check
    assert check is not None
    # Listed only when the check fails for another reason (a 20-ms program against the
    # unmodified one): then both rows together, as the run measured them, not "never runs".
    for f in (f for f in check.fragments if f["line"] == 13):
        assert "(2 instantiations)" in f["label"] and "never" not in f["cause"], f
        assert f["predicted"] == pytest.approx(f["measured"], rel=0.1), f
