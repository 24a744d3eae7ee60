"""From source to model: the Clang model builder and the estimation run (seed 000 §2.8, §3.5, §3.7).

``build_model`` parses C/C++ MPI sources with Clang (through the private extension
``parjava._frontend``), builds the control tree of every function, runs the control-variable
analysis that removes everything which neither decides control flow nor feeds an MPI argument,
and returns a :class:`SourceModel`: a :class:`parjava.Model` that remembers its sources and
says what it did in :attr:`SourceModel.diagnostics`.

:meth:`SourceModel.estimate` then writes the estimation code (an instrumented copy of the
sources), compiles it with your compiler and flags, runs it under ``mpirun`` on a test input,
and loads the measured block times, branch probabilities and trip counts into the model. Loops
without communication become blocks whose time is an expression of their trip counts, so a
model estimated on a small input predicts a large one::

    import parjava as pj

    model = pj.build_model("jacobi2d.c", args=["-O2"])
    model.estimate(run=["./jacobi2d", "256", "50"], np=1)
    pred = pj.interpret(model, machine, np=[1, 2, 4, 8], params={"argv1": 4096})

Program inputs read from ``argv`` (``atoi(argv[1])``, ``strtod``, ``sscanf``) are the model
parameters ``argc``, ``argv1``, ``argv2``, ...; :meth:`SourceModel.arguments` turns a command
line into those parameters.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from ._progress import Progress
from .errors import MissingDependencyError, RunError, UsageError
from .model import Model

__all__ = ["Diagnostic", "Estimation", "SourceModel", "build_model", "structure"]

_INSTALL_HINT = (
    "the Clang model builder (parjava._frontend) is not built: install Clang 16 "
    "(`apt-get install -y libclang-cpp16-dev libclang-16-dev llvm-16-dev clang-16`) and rebuild "
    "with `make build` or `pip install .`"
)


def _load_frontend() -> ModuleType:
    """Return ``parjava._frontend`` or raise :class:`MissingDependencyError` saying what to do."""
    try:
        from . import _frontend
    except ImportError as exc:
        raise MissingDependencyError(f"{_INSTALL_HINT} ({exc})") from exc
    return _frontend


@dataclass(frozen=True)
class Diagnostic:
    """One thing the model builder or the estimation run reports about the model.

    ``kind`` is one of ``reduced``, ``opaque``, ``unstructured``, ``unsupported``,
    ``parameter``, ``approximation``, ``estimation``; ``severity`` is ``note``, ``warning`` or
    ``error``; ``node`` is the model node id it concerns (0 for none).
    """

    kind: str
    severity: str
    message: str
    file: str = ""
    line: int = 0
    column: int = 0
    function: str = ""
    node: int = 0

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = f"{self.file}:{self.line}" if self.line else self.file
            if self.line and self.column:
                where += f":{self.column}"
            where += ": "
        fn = f" (in {self.function})" if self.function else ""
        return f"{where}{self.severity}: [{self.kind}] {self.message}{fn}"

    @classmethod
    def _from_json(cls, text: str) -> list[Diagnostic]:
        return [cls(**d) for d in json.loads(text)]


@dataclass
class Estimation:
    """What the estimation did: the command, its output, its runs and their time, diagnostics."""

    command: list[str]
    np: int
    seconds: float
    stdout: str
    directory: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    runs: int = 1

    @property
    def reduced_loops(self) -> list[Diagnostic]:
        """Loops replaced by blocks whose time is an expression of their trip counts."""
        return [d for d in self.diagnostics if "reduced to a block" in d.message]

    def __repr__(self) -> str:
        return (
            f"<parjava.Estimation np={self.np} {self.runs} run(s) {self.seconds:.2f} s, "
            f"{len(self.reduced_loops)} loops reduced, {len(self.diagnostics)} diagnostics>"
        )


@dataclass(frozen=True)
class _BuildSpec:
    sources: tuple[str, ...]
    args: tuple[str, ...]
    compile_commands: str
    entry: str
    name: str
    find_mpi: bool


class SourceModel(Model):
    """A :class:`parjava.Model` built from sources by :func:`build_model`.

    Besides the model it keeps the build inputs (so :meth:`estimate` can instrument the same
    sources) and the builder's :attr:`diagnostics`.
    """

    diagnostics: list[Diagnostic]
    estimation: Estimation | None

    @classmethod
    def _from_build(
        cls, model_json: str, diagnostics: list[Diagnostic], spec: _BuildSpec
    ) -> SourceModel:
        model = cls.from_json(model_json)
        assert isinstance(model, SourceModel)
        model.diagnostics = diagnostics
        model.estimation = None
        model._spec = spec
        return model

    def _replace(self, model_json: str) -> None:
        fresh = Model.from_json(model_json)
        keep = {k: self.__dict__[k] for k in ("diagnostics", "estimation", "_spec")}
        self.__dict__.update(fresh.__dict__)
        self.__dict__.update(keep)

    @property
    def sources(self) -> list[str]:
        """The source files the model was built from."""
        return list(self._spec.sources)

    def warnings(self) -> list[Diagnostic]:
        """Diagnostics of severity warning or error."""
        return [d for d in self.diagnostics if d.severity in ("warning", "error")]

    def estimate(
        self,
        run: Sequence[str],
        np: int = 1,
        *,
        compiler: str | None = None,
        link_args: Sequence[str] = (),
        mpirun: Sequence[str] | None = None,
        timeout: float = 600.0,
        directory: str | os.PathLike[str] | None = None,
        reduce_loops: bool = True,
        alpha: float = 0.1,
        repeat: int = 1,
        combine: str = "mean",
        progress: bool | None = None,
    ) -> Estimation:
        """Measure block times on a test input and load them into this model.

        Writes the estimation code, compiles it with the compiler of the build (``mpicc`` /
        ``mpicxx`` unless a compilation database names another, or ``compiler``), runs it as
        ``mpirun --oversubscribe -np <np> <program> run[1:]`` in the current directory, and
        loads the results: every block gets its measured mean, σ and sample count, opaque
        conditions their branch probabilities or trip counts, and loops without communication
        become blocks whose time scales with their trip counts (``reduce_loops``). ``alpha`` is
        the balanced-loop tolerance ``D <= alpha * T_mean`` (seed 000 §3.7.3). ``repeat`` runs
        the estimation code that many times and pools the samples of all runs
        (``combine="mean"``), or keeps per block the run with the median time (``"median"``) or
        the fastest (``"min"``, the machine without neighbours): a short run on a shared
        machine sits in one of its fast or slow phases, a long run averages them.

        ``run`` is the command line (``run[0]``, the program name, is replaced by the
        estimation code); it also becomes the default of the parameters ``argc``, ``argv1``,
        ... ``directory`` keeps the estimation code and its results (default: a temporary
        directory, removed afterwards). Returns an :class:`Estimation`; raises
        :class:`parjava.RunError` if compiling or running fails, with the tool's output.
        """
        if not run:
            raise UsageError("estimate(run=[...]) needs the command line of the test run")
        if int(np) < 1:
            raise UsageError(f"np must be at least 1, got {np}")
        if int(repeat) < 1:
            raise UsageError(f"repeat must be at least 1, got {repeat}")
        if combine not in ("mean", "median", "min"):
            raise UsageError(f"combine must be 'mean', 'median' or 'min', got {combine!r}")
        fe = _load_frontend()
        keep = directory is not None
        work = Path(directory) if keep else Path(tempfile.mkdtemp(prefix="parjava-estimate-"))
        work.mkdir(parents=True, exist_ok=True)
        spec = self._spec
        try:
            with Progress(3 + int(repeat), "estimate", enabled=progress) as bar:
                inst = fe.instrument(
                    list(spec.sources),
                    list(spec.args),
                    spec.compile_commands,
                    spec.entry,
                    spec.name,
                    [str(a) for a in run],
                    spec.find_mpi,
                    str(work),
                )
                bar.advance(note="instrumented")
                exe = _compile(inst, spec, work, compiler, link_args)
                bar.advance(note="compiled")
                runs: list[list[str]] = []
                seconds = 0.0
                for k in range(int(repeat)):
                    # One directory per run: each run's files are one set of measurements.
                    out = work / f"run-{k + 1}" if int(repeat) > 1 else work
                    out.mkdir(exist_ok=True)
                    for old in out.glob("parjava-estimates.*.txt"):
                        old.unlink()
                    command, stdout, took = _run(exe, run, int(np), mpirun, timeout, out)
                    seconds += took
                    files = sorted(str(p) for p in out.glob("parjava-estimates.*.txt"))
                    if not files:
                        raise RunError(
                            "the estimation run wrote no estimates file: the program must exit "
                            "normally (return from main or exit()). Command: "
                            f"{' '.join(command)}\n{stdout[-2000:]}"
                        )
                    runs.append(files)
                    bar.advance(note=f"run {k + 1}/{repeat} in {took:.1f} s")
                applied = fe.apply_estimates(
                    inst["model"], inst["plan"], runs, float(alpha), bool(reduce_loops), combine
                )
                bar.advance(note="loaded")
        finally:
            if not keep:
                shutil.rmtree(work, ignore_errors=True)
        self._replace(applied["model"])
        diagnostics = Diagnostic._from_json(inst["diagnostics"])
        diagnostics += Diagnostic._from_json(applied["diagnostics"])
        self.diagnostics = diagnostics
        self.estimation = Estimation(
            command=command,
            np=int(np),
            seconds=seconds,
            runs=int(repeat),
            stdout=stdout,
            directory=str(work) if keep else "",
            diagnostics=Diagnostic._from_json(applied["diagnostics"]),
        )
        return self.estimation

    def __repr__(self) -> str:
        state = "estimated" if self.estimation is not None else "not estimated"
        files = ", ".join(Path(s).name for s in self.sources)
        return (
            f"<parjava.SourceModel '{self.name}' from {files}"
            f": {len(self)} nodes, {len(self.functions)} function(s), {state}, "
            f"{len(self.warnings())} warnings>"
        )


def _with_include(args: Sequence[str]) -> tuple[str, ...]:
    """Compiler flags plus parjava's ``parjava/model.h``, last, as a system directory.

    The model builder and the estimation code find ``PARJAVA_PARAM`` this way; users
    compiling an annotated program themselves add ``parjava.include_dir("model.h")``.
    """
    from .tracing import include_dir

    try:
        directory = include_dir("model.h")
    except MissingDependencyError:
        return tuple(str(a) for a in args)
    return (*[str(a) for a in args], "-isystem", str(directory))


def _sources(sources: str | os.PathLike[str] | Sequence[str | os.PathLike[str]]) -> list[str]:
    if isinstance(sources, (str, os.PathLike)):
        return [str(sources)]
    return [str(s) for s in sources]


def build_model(
    sources: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] = (),
    args: Sequence[str] = (),
    *,
    compile_commands: str | os.PathLike[str] | None = None,
    entry: str = "main",
    name: str | None = None,
    argv: Sequence[str] | None = None,
    find_mpi: bool = True,
) -> SourceModel:
    """Build the program model of C/C++ sources with Clang.

    ``sources`` are the files (C and C++17; MPI from ``mpi.h``, whose include path is found
    with ``mpicc --showme:compile``), ``args`` the compiler flags (``-O2``, ``-I``, ``-D``,
    ``-std=c++17``, ``-fopenmp``; link flags are accepted and ignored while parsing). Or give
    ``compile_commands`` (a ``compile_commands.json`` or its directory) and, optionally, the
    sources to take from it. ``argv`` (the program's command line, ``argv[0]`` first) sets the
    defaults of the parameters ``argc``/``argv<k>``; without it ``argc`` is 1, so the program's
    own defaults apply.

    Raises :class:`parjava.FrontendError` with Clang's messages if a file does not compile,
    :class:`parjava.UsageError` for missing files. What the builder reduced, made opaque or did
    not understand is in the result's ``diagnostics``.
    """
    files = _sources(sources)
    for f in files:
        if not Path(f).exists():
            raise UsageError(f"source file {f} does not exist")
    if not files and compile_commands is None:
        raise UsageError("build_model needs source files or compile_commands=")
    fe = _load_frontend()
    spec = _BuildSpec(
        sources=tuple(str(Path(f).resolve()) for f in files),
        args=_with_include(args),
        compile_commands=str(compile_commands) if compile_commands else "",
        entry=entry,
        name=name or "",
        find_mpi=find_mpi,
    )
    out = fe.build_model(
        list(spec.sources),
        list(spec.args),
        spec.compile_commands,
        spec.entry,
        spec.name,
        [str(a) for a in (argv or ())],
        spec.find_mpi,
    )
    return SourceModel._from_build(out["model"], Diagnostic._from_json(out["diagnostics"]), spec)


def structure(
    sources: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    args: Sequence[str] = (),
    *,
    compile_commands: str | os.PathLike[str] | None = None,
    entry: str = "main",
) -> str:
    """Return a listing of the control structure and the control-variable analysis results."""
    fe = _load_frontend()
    return str(
        fe.describe_structure(
            [str(Path(s).resolve()) for s in _sources(sources)],
            list(_with_include(args)),
            str(compile_commands) if compile_commands else "",
            entry,
        )
    )


# ---- compiling and running the estimation code ------------------------------------------------

_DROP_WITH_VALUE = {"-o", "-MF", "-MT", "-MQ"}
_DROP = {"-c", "-MD", "-MMD", "-M", "-MM", "-MP"}
_LINK_PREFIXES = ("-l", "-L", "-Wl,")
_LINK_FLAGS = {"-fopenmp", "-pthread", "-static", "-fsanitize=address", "-fsanitize=thread"}


def _compile_command(command: Sequence[str], obj: Path) -> list[str]:
    out: list[str] = []
    skip = False
    for arg in command:
        if skip:
            skip = False
            continue
        if arg in _DROP_WITH_VALUE:
            skip = True
            continue
        if arg in _DROP or arg.startswith(_LINK_PREFIXES):
            continue
        out.append(arg)
    return [*out, "-c", "-o", str(obj)]


def _check(cmd: list[str], cwd: str | Path, what: str) -> str:
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
        raise RunError(
            f"{what} failed (exit {proc.returncode}): {' '.join(cmd)}\n"
            f"{(proc.stderr or proc.stdout)[-4000:]}"
        )
    return proc.stdout


def _compile(
    inst: dict[str, Any],
    spec: _BuildSpec,
    work: Path,
    compiler: str | None,
    link_args: Sequence[str],
) -> Path:
    objects: list[str] = []
    link_flags: list[str] = []
    cxx = False
    first_compiler = None
    for i, src in enumerate(inst["sources"]):
        command = list(src["command"])
        if compiler:
            command[0] = compiler
        first_compiler = first_compiler or command[0]
        cxx = cxx or Path(src["original"]).suffix in (".cpp", ".cc", ".cxx", ".C", ".c++")
        obj = work / f"source{i}.o"
        _check(
            _compile_command(command, obj),
            src["directory"] or work,
            "compiling the estimation code",
        )
        objects.append(str(obj))
        link_flags += [
            a for a in src["command"] if a.startswith(_LINK_PREFIXES) or a in _LINK_FLAGS
        ]
    for a in spec.args:
        if a.startswith(_LINK_PREFIXES) or a in _LINK_FLAGS:
            link_flags.append(a)
    cc = compiler or ("mpicc" if not first_compiler else first_compiler)
    runtime_obj = work / "parjava_probes.o"
    _check(
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
    linker = compiler or ("mpicxx" if cxx else cc)
    exe = work / "estimation-code"
    dedup: list[str] = []
    for flag in [*link_flags, *link_args]:
        if flag not in dedup:
            dedup.append(flag)
    _check(
        [linker, *objects, str(runtime_obj), "-o", str(exe), *dedup, "-lm"],
        work,
        "linking the estimation code",
    )
    return exe


def _run(
    exe: Path,
    run: Sequence[str],
    np: int,
    mpirun: Sequence[str] | None,
    timeout: float,
    estimates_dir: Path,
) -> tuple[list[str], str, float]:
    launcher = list(mpirun) if mpirun else [shutil.which("mpirun") or "mpirun", "--oversubscribe"]
    command = [*launcher, "-np", str(np), str(exe), *[str(a) for a in run[1:]]]
    env = dict(os.environ)
    env["PARJAVA_ESTIMATES_DIR"] = str(estimates_dir)
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
            f"the estimation run did not finish within {timeout:.0f} s: {' '.join(command)} "
            "(use a smaller test input, or timeout=)"
        ) from exc
    seconds = time.monotonic() - start
    if proc.returncode != 0:
        raise RunError(
            f"the estimation run failed (exit {proc.returncode}): {' '.join(command)}\n"
            f"{(proc.stderr or '')[-3000:]}{(proc.stdout or '')[-1000:]}"
        )
    return command, proc.stdout, seconds
