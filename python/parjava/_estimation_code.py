"""Compiling the estimation code, repairing it when the compiler rejects a probe, and running it.

Private to :mod:`parjava.frontend` (``SourceModel.estimate``). The instrumented copies keep the
user's lines (``#line`` and two header lines), so a compiler message ``file.c:L`` is line
``L + 2`` of the copy, where the probe text names its slot; the slot names the probe and its
function. A function whose probes the compiler rejects is instrumented again without them
(self-repair), so one bad spot never blocks the estimation.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import MissingDependencyError, RunError

_DROP_WITH_VALUE = {"-o", "-MF", "-MT", "-MQ"}
_DROP = {"-c", "-MD", "-MMD", "-M", "-MM", "-MP"}
# The estimation code is ours as much as the user's: a warning its probes cause (a declaration
# after a statement, an unused value) must not stop it.
_DROP_ERRORS = ("-Werror", "-pedantic-errors")
_LINK_PREFIXES = ("-l", "-L", "-Wl,")
_LINK_FLAGS = {"-fopenmp", "-pthread", "-static", "-fsanitize=address", "-fsanitize=thread"}
_HEADER_LINES = 2  # '#include "parjava_probes.h"' and '#line 1' precede the user's line 1
_MAX_REPAIRS = 12
_TEMPLATE_ARGS = re.compile(r"<[^<>]*>")

_MESSAGE = re.compile(
    r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:\d+:)? (?P<kind>(?:fatal )?error|note): "
    r"(?P<message>.*)$",
    re.M,
)
_SLOT = re.compile(r"\b(?:PJ_BEGIN|PJ_END|pj_[a-z_]+)\((\d+)\b|\bpj_[ntieci](\d+)\b")


class CompileError(RunError):
    """The compiler rejected an instrumented source (``output`` holds its messages)."""

    def __init__(self, message: str, output: str) -> None:
        super().__init__(message)
        self.output = output


@dataclass(frozen=True)
class Culprit:
    """A compiler error traced to the probes of one function."""

    function: str
    file: str
    line: int
    where: str  # "orig:L (instrumented copy copy:L+2; probe 12 (block) of f)"
    message: str  # the compiler's message
    why: str = ""  # why the probes were removed, when it is not the compiler's rejection


def compile_command(command: Sequence[str], obj: Path) -> list[str]:
    """Return the compile-only form of a source's command, writing ``obj``."""
    out: list[str] = []
    skip = False
    for arg in command:
        if skip:
            skip = False
            continue
        if arg in _DROP_WITH_VALUE:
            skip = True
            continue
        if arg in _DROP or arg.startswith(_LINK_PREFIXES) or arg.startswith(_DROP_ERRORS):
            continue
        out.append(arg)
    return [*out, "-c", "-o", str(obj)]


def check(cmd: list[str], cwd: str | Path, what: str, *, source: bool = False) -> str:
    """Run a tool; raise RunError (CompileError for a source) with its output on failure."""
    try:
        proc = subprocess.run(
            cmd, cwd=cwd, capture_output=True, text=True, check=False, timeout=600
        )
    except FileNotFoundError as exc:
        raise MissingDependencyError(
            f"{cmd[0]} was not found: install MPI (`apt-get install -y libopenmpi-dev "
            "openmpi-bin`) or pass compiler="
        ) from exc
    if proc.returncode != 0:
        output = proc.stderr or proc.stdout
        message = f"{what} failed (exit {proc.returncode}): {' '.join(cmd)}\n{output[-4000:]}"
        if source:
            raise CompileError(message, output)
        raise RunError(message)
    return proc.stdout


def compile_estimation_code(
    inst: dict[str, Any],
    args: Sequence[str],
    work: Path,
    compiler: str | None,
    link_args: Sequence[str],
    name: str = "estimation-code",
) -> Path:
    """Compile and link the instrumented sources and the probe runtime; return the program.

    The unmodified program (_reference_run.py) is built the same way from the sources' own
    commands, without a runtime (``runtime_source`` empty), so that the two link alike.
    """
    objects: list[str] = []
    link_flags: list[str] = []
    cxx = False
    first_compiler = None
    for i, src in enumerate(inst["sources"]):
        first_compiler = first_compiler or (compiler or src["command"][0])
        cxx = cxx or Path(src["original"]).suffix in (".cpp", ".cc", ".cxx", ".C", ".c++")
        objects.append(str(_compile_source(src, work / f"source{i}.o", work, compiler)))
        link_flags += [
            a for a in src["command"] if a.startswith(_LINK_PREFIXES) or a in _LINK_FLAGS
        ]
    for a in args:
        if a.startswith(_LINK_PREFIXES) or a in _LINK_FLAGS:
            link_flags.append(a)
    cc = compiler or ("mpicc" if not first_compiler else first_compiler)
    runtime: list[str] = []
    if inst.get("runtime_source"):
        runtime_obj = work / "parjava_probes.o"
        check(
            [
                "mpicc" if compiler is None else compiler,
                "-O2",
                f"-DPJ_SLOTS={int(inst['slots'])}",
                "-c",
                inst["runtime_source"],
                "-o",
                str(runtime_obj),
            ],
            work,
            "compiling the probe runtime",
        )
        runtime.append(str(runtime_obj))
    linker = compiler or ("mpicxx" if cxx else cc)
    mpi_flags = mpi_link_flags(linker)
    if mpi_flags:
        inst.setdefault("link_notes", []).append(
            f"the build's compiler ({linker}) is not an MPI wrapper (a database recorded "
            "through mpicc names the compiler mpicc ran): linked with the flags of "
            "`mpicc --showme:link`"
        )
    exe = work / name
    dedup: list[str] = []
    for flag in [*link_flags, *link_args, *mpi_flags]:
        if flag not in dedup:
            dedup.append(flag)
    link = [linker, *objects, *runtime, "-o", str(exe), *dedup, "-lm"]
    try:
        check(link, work, "linking the estimation code")
        return exe
    except RunError as failure:
        error = failure
    inline = _c99_inline_missing(inst, str(error))
    if inline:
        # C99 `inline` definitions without an external one (graph500's aml.c): the program
        # links only while the compiler inlines every call, and the probes make the functions
        # larger. GNU89 inline semantics give each such definition its external copy.
        for i, src in enumerate(inst["sources"]):
            if Path(src["original"]).suffix == ".c":
                _compile_source(src, work / f"source{i}.o", work, compiler, ["-fgnu89-inline"])
        inst.setdefault("link_notes", []).append(
            f"{', '.join(inline[:4])}{' and more' if len(inline) > 4 else ''}: C99 inline "
            "definition(s) with no external definition, which link only where the compiler "
            "inlines every call; the estimation code's probes make them larger, so its C "
            "sources were compiled with -fgnu89-inline (an external copy of each)"
        )
        try:
            check(link, work, "linking the estimation code (with -fgnu89-inline)")
            return exe
        except RunError as failure:
            error = failure
    missing = _undefined(str(error))
    if not missing:
        raise error
    _link_as_library(objects, [*runtime, "-o", str(exe), *dedup, "-lm"], linker, work)
    inst.setdefault("link_notes", []).append(
        f"{', '.join(missing[:4])}{' and more' if len(missing) > 4 else ''}: referenced but "
        "defined in no source, from functions the program never calls (its build links them "
        "from static libraries, which take only the members a program needs); the estimation "
        "code was linked the same way, its objects in one archive"
    )
    return exe


def mpi_link_flags(linker: str) -> list[str]:
    """Return the MPI library's link flags when ``linker`` is a plain compiler, else none.

    A compilation database recorded by bear around ``mpicc`` names the compiler mpicc ran
    (``/usr/bin/gcc`` with Open MPI's ``-I`` flags; UoB-HPC/flow's make), and a link with it
    misses libmpi, which the program and the probes' runtime need. Open MPI's wrapper says its
    flags (``--showme:link``); without one the link is left as it was and fails by name.
    """
    if Path(linker).name.startswith("mpi") or shutil.which("mpicc") is None:
        return []
    proc = subprocess.run(
        ["mpicc", "--showme:link"], capture_output=True, text=True, check=False, timeout=60
    )
    return proc.stdout.split() if proc.returncode == 0 else []


def _undefined(output: str) -> list[str]:
    """Return the symbols a failed link names as undefined references."""
    return sorted(set(re.findall(r"undefined reference to `([^'`]+)'", output)))


def _link_as_library(objects: Sequence[str], rest: Sequence[str], linker: str, work: Path) -> None:
    """Link the objects as a static library, as hypre-derived builds (LLNL/AMG) do.

    An archive gives the linker only the members the program needs (`main`'s, and what they
    reach), so a file holding a function that calls something no source defines, which the
    program never calls (AMG's GenerateDifConv calls hypre_map, declared but not defined),
    links as it does in the program's own build.
    """
    archive = work / "libparjava_program.a"
    archive.unlink(missing_ok=True)
    ar = shutil.which("ar") or "ar"
    check([ar, "rcs", str(archive), *objects], work, "archiving the estimation code")
    check(
        [linker, str(archive), *rest],
        work,
        "linking the estimation code (its objects as a static library)",
    )


def _compile_source(
    src: dict[str, Any],
    obj: Path,
    work: Path,
    compiler: str | None,
    extra: Sequence[str] = (),
) -> Path:
    """Compile one instrumented source with its own command (and ``extra`` flags) to ``obj``."""
    command = list(src["command"])
    if compiler:
        command[0] = compiler
    check(
        compile_command([*command, *extra], obj),
        src["directory"] or work,
        "compiling the estimation code",
        source=True,
    )
    return obj


def _c99_inline_missing(inst: dict[str, Any], output: str) -> list[str]:
    """Return the undefined functions of a failed link that a C source defines `inline`."""
    missing = sorted(set(re.findall(r"undefined reference to `([A-Za-z_]\w*)'", output)))
    if not missing:
        return []
    found = []
    texts = []
    for src in inst["sources"]:
        if Path(src["original"]).suffix == ".c":
            try:
                texts.append(Path(src["original"]).read_text(errors="replace"))
            except OSError:
                continue
    for name in missing:
        pattern = re.compile(r"(^|[\s;}])inline\b[^;{}()]*\b" + re.escape(name) + r"\s*\(", re.M)
        if any(pattern.search(t) for t in texts):
            found.append(name)
    return found


def culprits(inst: dict[str, Any], output: str) -> list[Culprit]:
    """Return the functions whose probes the compiler's errors point at, with the places."""
    kinds = {int(p["slot"]): p["kind"] for p in json.loads(inst["plan"])["probes"]}
    placed = {int(p["slot"]): p for p in inst["locations"]}
    copies = {os.path.realpath(s["original"]): s["instrumented"] for s in inst["sources"]}
    # The program's headers are copied with one '#line 1' line before the user's line 1.
    offsets = dict.fromkeys(copies.values(), _HEADER_LINES)
    for h in inst.get("headers", []):
        copies[os.path.realpath(h["original"])] = h["instrumented"]
        offsets[h["instrumented"]] = 1
    lines_of: dict[str, list[str]] = {}
    found: list[Culprit] = []
    seen: set[str] = set()
    for file, line, message in _errors(output, copies):
        original = os.path.realpath(file)
        copy = copies[original]
        if copy not in lines_of:
            lines_of[copy] = Path(copy).read_text(errors="replace").splitlines()
        text = lines_of[copy]
        at = line + offsets[copy]
        slots = []
        if 0 < at <= len(text):
            for s in _SLOT.finditer(text[at - 1]):
                slot = int(s.group(1) or s.group(2))
                if slot in placed and slot not in slots:
                    slots.append(slot)
        if slots:
            function = placed[slots[0]]["function"]
            probes = ", ".join(f"probe {s} ({kinds.get(s, '?')})" for s in slots[:4])
        else:
            function = _function_at(inst, original, line)
            probes = "no probe on that line"
        if not function or function in seen:
            continue
        seen.add(function)
        where = f"{file}:{line} (instrumented copy {copy}:{at}; {probes} of {function})"
        found.append(Culprit(function, file, line, where, message))
    return found


def _errors(output: str, copies: dict[str, str]) -> list[tuple[str, int, str]]:
    """Return (original file, line, message) of each error in a source.

    An error inside a macro (GCC reports it at the macro's definition, ours in the probes header
    or the program's own) is placed at the outermost use that expanded it, in a source.
    """
    out: list[tuple[str, int, str]] = []
    current: list[tuple[str, int, str]] | None = None  # the error's candidate places, in order
    current_message = ""

    def flush() -> None:
        if current:
            out.append(current[-1])

    for m in _MESSAGE.finditer(output):
        in_source = os.path.realpath(m.group("file")) in copies
        place = (m.group("file"), int(m.group("line")))
        if m.group("kind") != "note":
            flush()
            message = m.group("message").strip()
            current = [(*place, message)] if in_source else []
            current_message = message
        elif current is not None and in_source and "expansion of macro" in m.group("message"):
            current.append((*place, current_message))
    flush()
    return out


def _function_at(inst: dict[str, Any], original: str, line: int) -> str:
    best = ""
    span = None
    for f in inst["functions"]:
        if os.path.realpath(f["file"]) != original:
            continue
        if f["first_line"] <= line <= f["last_line"]:
            width = f["last_line"] - f["first_line"]
            if span is None or width < span:
                best, span = f["name"], width
    return best


def instrument_and_compile(
    instrument: Callable[[list[str]], dict[str, Any]],
    args: Sequence[str],
    work: Path,
    compiler: str | None,
    link_args: Sequence[str],
) -> tuple[dict[str, Any], Path, list[Culprit]]:
    """Instrument and compile, repairing the estimation code when the compiler rejects it.

    When the compiler rejects probes, the sources are instrumented again without the probes of
    the functions its errors point at (each named in the returned culprits).
    """
    without: list[str] = []
    repaired: list[Culprit] = []
    inst = instrument(without)
    rounds = 0
    while True:
        try:
            return inst, compile_estimation_code(inst, args, work, compiler, link_args), repaired
        except CompileError as failure:
            fresh = [c for c in culprits(inst, failure.output) if c.function not in without]
            rounds += 1
            if not fresh or rounds > _MAX_REPAIRS:
                places = culprits(inst, failure.output)
                detail = "".join(f"\n  at {c.where}: {c.message}" for c in places[:5])
                raise RunError(
                    f"{failure}{detail}"
                    + (
                        f"\n(the probes of {len(without)} function(s) were already removed: "
                        f"{', '.join(without)})"
                        if without
                        else ""
                    )
                ) from None
            # The instantiations of a template share its text (and its probes, when their
            # trees match): a probe the compiler rejects in one is in all of them. Quicksilver's
            # MemoryControl::allocate<T> and qs_vector<T> took one round per instantiation and
            # ran out of rounds.
            fresh += _instantiations_of(inst, fresh, without)
            repaired += fresh
            without += [c.function for c in fresh]
            inst = instrument(without)


def _instantiations_of(
    inst: dict[str, Any], culprits_: Sequence[Culprit], without: Sequence[str]
) -> list[Culprit]:
    """Return the other instantiations of the templates the culprits are instantiations of.

    They are the functions with the same file, lines and name but for template arguments.
    """

    def key(f: dict[str, Any]) -> tuple[str, int, int, str]:
        name, plain = f["name"], ""
        while plain != name:  # innermost arguments first: allocate<Tally<3>>
            plain, name = name, _TEMPLATE_ARGS.sub("", name)
        return (os.path.realpath(f["file"]), int(f["first_line"]), int(f["last_line"]), name)

    spans = {f["name"]: f for f in inst["functions"]}
    wanted: dict[tuple[str, int, int, str], str] = {}
    for c in culprits_:
        if c.function in spans and "<" in c.function:
            wanted[key(spans[c.function])] = c.function
    named = {c.function for c in culprits_} | set(without)
    out: list[Culprit] = []
    for f in inst["functions"]:
        k = key(f)
        if k in wanted and f["name"] not in named:
            named.add(f["name"])
            out.append(
                Culprit(
                    f["name"],
                    f["file"],
                    int(f["first_line"]),
                    f"{f['file']}:{f['first_line']}",
                    "",
                    why=f"the compiler rejected the probes of {wanted[k]}, an instantiation of "
                    "the same template, whose text (and probes) it shares",
                )
            )
    return out


def run_estimation(
    exe: Path,
    run: Sequence[str],
    np: int,
    mpirun: Sequence[str] | None,
    timeout: float,
    estimates_dir: Path,
    threaded: bool = False,
) -> tuple[list[str], str, float, int]:
    """Run the estimation code under mpirun; return command, output, seconds and exit status.

    A non-zero status is the program's own verdict when every rank still wrote its
    measurements (XSBench returns 1 when it does not know the checksum of its input): the
    status is returned for a note. Without every rank's measurements it is a
    :class:`parjava.RunError`.

    ``threaded`` (the program has OpenMP parallel regions): the default launcher does not bind
    the ranks to cores, which Open MPI does at np <= 2, so that a rank's threads run on cores
    of their own as the model's tasks do, not all on one; ``OMP_NUM_THREADS`` is 1 unless set.
    """
    command, proc, seconds = launch(
        exe, run, np, mpirun, timeout, threaded, {"PARJAVA_ESTIMATES_DIR": str(estimates_dir)}
    )
    if proc.returncode != 0:
        if proc.returncode < 0 or len(_finalized_ranks(estimates_dir)) < np:
            raise RunError(
                f"the estimation run failed (exit {proc.returncode}): {' '.join(command)}\n"
                f"{(proc.stderr or '')[-3000:]}{(proc.stdout or '')[-1000:]}"
            )
    return command, proc.stdout, seconds, proc.returncode


# parjava-estimates.<rank>.<pid>.txt (probe_runtime_source.cpp), written as a rank exits; its
# `program` line is there when the rank reached MPI_Finalize.
_ESTIMATES_FILE = re.compile(r"parjava-estimates\.(\w+)\.\d+\.txt")


def _finalized_ranks(estimates_dir: Path) -> set[str]:
    """Return the ranks whose estimates file says they finished.

    An MPI process finished when it reached MPI_Finalize (its `program` line); one that never
    called MPI_Init (an OpenMP-only program: RSBench) when it wrote its file at exit.
    """
    ranks = set()
    for f in estimates_dir.glob("parjava-estimates.*.txt"):
        m = _ESTIMATES_FILE.fullmatch(f.name)
        try:
            lines = f.read_text().splitlines()
        except OSError:
            continue
        mpi = any(line == "mpi_init" for line in lines)
        finalized = any(line.startswith("program ") for line in lines)
        if m is not None and (finalized or not mpi) and lines and lines[-1] == "end":
            ranks.add(m.group(1))
    return ranks


# What the probes' runtime prints when it finalizes MPI for a program that returned from main
# without MPI_Finalize (probe_runtime_source.cpp, pj_finalize_at_exit).
UNFINALIZED = "parjava-unfinalized:"
UNFINALIZED_NOTE = (
    "the program returns from main without calling MPI_Finalize, which mpirun reports as a "
    "failed job (exit 1, 'exiting improperly'): the estimation code and the unmodified "
    "program's runs called it at their successful exit, so the measured span ends there"
)


def exit_status_note(status: int, what: str) -> str:
    """Return the warning for a run that exited with ``status`` after every rank finished.

    A rank finished when it reached MPI_Finalize, or, in a program without MPI, its exit.
    """
    return (
        f"{what} exited with status {status} after every rank had finished (reached "
        "MPI_Finalize, or exited in a program without MPI): taken as the program's own verdict "
        "(XSBench and RSBench return 1 for an input whose checksum they do not know), so its "
        "measurements are used; if the status says the run failed, fix its input and estimate "
        "again"
    )


def launch(
    exe: Path,
    run: Sequence[str],
    np: int,
    mpirun: Sequence[str] | None,
    timeout: float,
    threaded: bool,
    extra_env: dict[str, str],
    what: str = "the estimation run",
) -> tuple[list[str], subprocess.CompletedProcess[str], float]:
    """Run a program as the estimation runs it; return the command, the process and seconds."""
    import time

    launcher = list(mpirun) if mpirun else [shutil.which("mpirun") or "mpirun", "--oversubscribe"]
    if threaded and not mpirun:
        launcher += ["--bind-to", "none"]
    command = [*launcher, "-np", str(np), str(exe), *[str(a) for a in run[1:]]]
    env = dict(os.environ)
    if threaded:
        # One thread per rank unless the user or the program asks for more (miniMD's `-t 2`
        # calls omp_set_num_threads): a rank bound to one core ran one before, and the model
        # adds threads itself. Two threads sharing this VM's cores measured each iteration
        # 2.5x slower than one thread alone.
        env.setdefault("OMP_NUM_THREADS", "1")
    env.update(extra_env)
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    start = time.monotonic()
    try:
        proc = subprocess.run(
            command, capture_output=True, text=True, env=env, timeout=timeout, check=False
        )
    except FileNotFoundError as exc:
        raise MissingDependencyError(
            "mpirun was not found: install Open MPI (`apt-get install -y openmpi-bin`)"
        ) from exc
    except subprocess.TimeoutExpired as exc:
        raise RunError(
            f"{what} did not finish within {timeout:.0f} s: {' '.join(command)} "
            "(use a smaller test input, or timeout=)"
        ) from exc
    return command, proc, time.monotonic() - start
