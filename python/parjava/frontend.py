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
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from . import _estimation_code as code
from . import _estimation_report as report
from . import _library_costs
from . import _reference_run as reference_run
from ._data_exits import cap_data_exits
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
    """What the estimation did: the command, its output, its runs and their time, diagnostics.

    ``records`` describe every estimation run (command, time, the program's own time, the
    machine's load around it); ``trust`` says in one line how trustworthy the timings are
    (``verdict``: ``good``, ``fair``, ``doubtful``); ``self_check`` is the model re-predicting
    its own estimation run (None when not done or the program never called MPI_Init).
    """

    command: list[str]
    np: int
    seconds: float
    stdout: str
    directory: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    runs: int = 1
    records: list[report.RunRecord] = field(default_factory=list)
    verdict: str = "unknown"
    trust: str = ""
    self_check: report.SelfCheck | None = None
    summary: dict[str, Any] = field(default_factory=dict, repr=False)
    params: dict[str, int | float] = field(default_factory=dict, repr=False)
    # The unmodified program's runs (None: not run, or it could not be built or run).
    reference: reference_run.ReferenceRun | None = None
    # The factor applied to the probes' calibrated cost (report.probe_scale; 1: as calibrated).
    probe_scale: float = 1.0

    @property
    def overhead(self) -> float | None:
        """The estimation code's time over the unmodified program's (None without that run)."""
        return self.self_check.overhead if self.self_check is not None else None

    @property
    def reduced_loops(self) -> list[Diagnostic]:
        """Loops replaced by blocks whose time is an expression of their trip counts."""
        return [d for d in self.diagnostics if "reduced to a block" in d.message]

    def recheck(self, model: Model, machine: Any = None) -> report.SelfCheck | None:
        """Return the self-check of ``model`` against these estimation runs.

        For a model edited after the estimation (a loop bound changed, a loop reduced by
        hand): does it still re-predict the runs it was estimated from? None when the runs
        recorded no program time (the program never called MPI_Init / MPI_Finalize).
        """
        return report.self_check(
            model,
            self.np,
            self.params,
            self.summary,
            machine,
            self._reference_seconds(),
            self.reference.spread if self.reference is not None else 0.0,
            self.reference.spans if self.reference is not None else (),
            self.reference.combine if self.reference is not None else "mean",
        )

    def _reference_seconds(self) -> float | None:
        ref = self.reference
        return ref.seconds if ref is not None and ref.spans and not ref.disturbed else None

    @property
    def coverage(self) -> float | None:
        """Share of the measured estimation run the model explains (None: no self-check)."""
        return self.self_check.coverage if self.self_check is not None else None

    def __repr__(self) -> str:
        check = ""
        if self.self_check is not None:
            check = (
                f", self-check {'passed' if self.self_check.passed else 'FAILED'} "
                f"(coverage {100 * self.self_check.coverage:.0f}%)"
            )
        return (
            f"<parjava.Estimation np={self.np} {self.runs} run(s) {self.seconds:.2f} s, "
            f"{len(self.reduced_loops)} loops reduced, {len(self.diagnostics)} diagnostics, "
            f"timings {self.verdict}{check}>"
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

    @property
    def coverage(self) -> float | None:
        """Share of the measured estimation run this model explains (None: no self-check)."""
        return self.estimation.coverage if self.estimation is not None else None

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
        repeat: int | str = 1,
        combine: str = "mean",
        progress: bool | None = None,
        max_repeat: int = 10,
        self_check: bool = True,
        machine: Any = None,
        log: Callable[[str], None] | None = None,
        price_by_size: bool = True,
        reference: bool = True,
    ) -> Estimation:
        """Measure block times on a test input and load them into this model.

        Writes the estimation code, compiles it with the compiler of the build (``mpicc`` /
        ``mpicxx`` unless a compilation database names another, or ``compiler``), runs it as
        ``mpirun --oversubscribe -np <np> <program> run[1:]`` in the current directory (with
        ``--bind-to none`` when the program has OpenMP parallel regions, so that a rank's threads
        do not share one core, and ``OMP_NUM_THREADS=1`` unless set: the model adds threads), and
        loads the results: every block gets its measured mean, σ and sample count, opaque
        conditions their branch probabilities or trip counts, and loops without communication
        become blocks whose time scales with their trip counts (``reduce_loops``). ``alpha`` is
        the balanced-loop tolerance ``D <= alpha * T_mean`` (seed 000 §3.7.3). ``repeat`` runs
        the estimation code that many times and pools the samples of all runs
        (``combine="mean"``), or keeps per block the run with the median time (``"median"``) or
        the fastest (``"min"``, the machine without neighbours): a short run on a shared
        machine sits in one of its fast or slow phases, a long run averages them.
        ``repeat="auto"`` repeats until the per-block medians are stable to 3 % (at least three
        runs, at most ``max_repeat``).

        Every run records the program's own time (``MPI_Init`` to ``MPI_Finalize``), its CPU
        time and the machine's load; a run slowed by neighbours is flagged, and
        ``Estimation.trust`` says in one line how trustworthy the timings are. ``log``, if
        given, receives one line per run (what ran, how long it took). With ``self_check``
        the model then re-predicts its estimation run (same np and input, on ``machine``;
        default the ``shared-memory`` preset) and compares with the measured time: off by more
        than 10 % is a warning naming the fragments with the largest unexplained time, and the
        model JSON carries the result (``self_check``, docs/model-schema.md). With
        ``reference`` (default) the unmodified program is built from the same sources and
        commands and run as many times as the estimation code (at most three), and the
        self-check compares with its runs combined as ``combine`` combines the estimation
        runs (the fastest for ``"min"``): the estimation code is slower than the
        program, by more than its probes' estimated cost where they stop an optimisation.
        A lone run (``repeat=1``) that took more than 1.5x the program's median time beyond
        its probes' estimated cost (a slow phase of the machine, or a lost optimisation) runs
        once more, and the faster of the two gives the block times, with a note.
        ``Estimation.overhead`` is the ratio of the two. When the probes' calibrated cost is
        more than the estimation code's time less the program's (a probe hidden in the idle
        slots of a loop's work), the time taken off the blocks for the probes is scaled to
        that difference, with a note.

        With ``price_by_size`` (default), ``malloc``/``free``/``memcpy``/``memset``/... are
        priced by the bytes they touch, through this machine's cost of each at 1 KiB ...
        256 MiB (measured once, a few seconds, and cached in ``~/.cache/parjava``), and loop
        nests whose working set moves to another cache level are scaled by the machine's cost
        per byte at each size.

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
        auto = repeat == "auto"
        if not auto and (isinstance(repeat, str) or int(repeat) < 1):
            raise UsageError(f"repeat must be at least 1 or 'auto', got {repeat!r}")
        if int(max_repeat) < 3 and auto:
            raise UsageError(f"max_repeat must be at least 3 with repeat='auto', got {max_repeat}")
        runs_wanted = int(max_repeat) if auto else int(repeat)
        if combine not in ("mean", "median", "min"):
            raise UsageError(f"combine must be 'mean', 'median' or 'min', got {combine!r}")
        fe = _load_frontend()
        keep = directory is not None
        work = (
            Path(directory).resolve()
            if keep
            else Path(tempfile.mkdtemp(prefix="parjava-estimate-"))
        )
        work.mkdir(parents=True, exist_ok=True)
        spec = self._spec
        threaded = any(n.get("kind") == "task_group" for n in self.nodes())
        try:
            steps = 3 + runs_wanted + (1 if reference and self_check else 0)
            with Progress(steps, "estimate", enabled=progress) as bar:
                inst, exe, repaired = code.instrument_and_compile(
                    lambda without: fe.instrument(
                        list(spec.sources),
                        list(spec.args),
                        spec.compile_commands,
                        spec.entry,
                        spec.name,
                        [str(a) for a in run],
                        spec.find_mpi,
                        str(work),
                        without,
                    ),
                    spec.args,
                    work,
                    compiler,
                    link_args,
                )
                bar.advance(note="instrumented")
                bar.advance(note="compiled")
                runs: list[list[str]] = []
                summaries: list[dict[str, Any]] = []
                records: list[report.RunRecord] = []
                exit_notes: list[str] = []
                seconds = 0.0

                def measure(k: int, out: Path) -> tuple[list[str], dict[str, Any], str]:
                    """Run the estimation code once into ``out``: its files, summary, stdout."""
                    nonlocal seconds
                    out.mkdir(exist_ok=True)
                    for old in out.glob("parjava-estimates.*.txt"):
                        old.unlink()
                    command, stdout, took, status = code.run_estimation(
                        exe, run, int(np), mpirun, timeout, out, threaded
                    )
                    if status != 0 and not any("exited with status" in n for n in exit_notes):
                        exit_notes.append(code.exit_status_note(status, "the estimation run"))
                    if code.UNFINALIZED in stdout and code.UNFINALIZED_NOTE not in exit_notes:
                        exit_notes.append(code.UNFINALIZED_NOTE)
                    seconds += took
                    files = sorted(str(p) for p in out.glob("parjava-estimates.*.txt"))
                    if not files:
                        raise RunError(
                            "the estimation run wrote no estimates file: the program must exit "
                            "normally (return from main or exit()). Command: "
                            f"{' '.join(command)}\n{stdout[-2000:]}"
                        )
                    summary = json.loads(fe.summarize(inst["plan"], files))
                    records.append(report.run_record(k, command, took, summary, int(np)))
                    if log is not None:
                        log(records[-1].describe())
                    return files, summary, stdout

                unmodified: reference_run.ReferenceRun | None = None
                launcher, unmodified_notes = (
                    _build_unmodified(
                        inst,
                        spec.args,
                        work / "unmodified",
                        compiler,
                        link_args,
                        run,
                        int(np),
                        mpirun,
                        timeout,
                        threaded,
                    )
                    if reference and self_check
                    else (None, [])
                )

                def beside(complete: tuple[int, int] | None = None) -> None:
                    """Run the unmodified program once (or up to ``complete``'s counts)."""
                    nonlocal unmodified, launcher
                    if launcher is None:
                        return
                    try:
                        if unmodified is None:
                            unmodified = launcher.start()
                        if complete is None:
                            launcher.once(unmodified)
                        else:
                            launcher.complete(unmodified, *complete)
                    except RunError as exc:
                        unmodified_notes.append(_unmodified_failed(exc))
                        launcher, unmodified = None, None

                for k in range(runs_wanted):
                    # One directory per run: each run's files are one set of measurements.
                    files, summary, stdout = measure(
                        k + 1, work / f"run-{k + 1}" if runs_wanted > 1 else work
                    )
                    runs.append(files)
                    summaries.append(summary)
                    took = records[-1].wall_seconds
                    # The program's run right after each estimation run: side by side, in the
                    # same phase of the machine (reference_run.Launcher).
                    beside()
                    bar.advance(note=f"run {k + 1}/{runs_wanted} in {took:.1f} s")
                    if auto and report.stable(summaries):
                        break
                if reference and self_check:
                    beside(_reference_times(records, len(runs)))
                    if unmodified is not None:
                        unmodified.combine = combine
                        if log is not None:
                            log(unmodified.describe())
                    bar.advance(note="unmodified program run")
                    slower = (
                        report.slower_than_program(records[0], unmodified.spans)
                        if runs_wanted == 1 and unmodified is not None and not unmodified.disturbed
                        else None
                    )
                    if slower is not None:
                        # A lone run far slower than the program, beyond its probes: a busy
                        # machine passes, a lost optimisation stays; the faster run is kept.
                        first = records[0].program_seconds or 0.0
                        files, summary, again = measure(2, work / "run-2")
                        if (records[-1].program_seconds or first) < first:
                            runs[0], summaries[0], stdout = files, summary, again
                        unmodified_notes.append(
                            f"the estimation run took {slower:.2f}x the unmodified program's time "
                            "beyond its probes' estimated cost; it ran once more in "
                            f"{records[-1].program_seconds or 0.0:.3g} s, and the faster of the "
                            "two runs gives the block times"
                        )
                costs = json.dumps(_library_costs.library_costs()) if price_by_size else ""
                scale, scaled = report.probe_scale(
                    records,
                    min(unmodified.spans)
                    if unmodified is not None and not unmodified.disturbed
                    else None,
                )
                if scaled is not None:
                    unmodified_notes.append(scaled)
                applied = fe.apply_estimates(
                    inst["model"],
                    inst["plan"],
                    runs,
                    float(alpha),
                    bool(reduce_loops),
                    combine,
                    costs,
                    scale,
                )
                bar.advance(note="loaded")
        finally:
            if not keep:
                shutil.rmtree(work, ignore_errors=True)
        self._replace(applied["model"])
        verdict, trust = report.trust_line(
            records, unmodified.spans if unmodified is not None and not unmodified.disturbed else ()
        )
        repairs = [
            Diagnostic(
                kind="estimation",
                severity="warning",
                message=f"the probes of {c.function} were removed because "
                + (c.why or f"the compiler rejected the estimation code at {c.where}: {c.message}")
                + "; the function runs unprobed, its blocks keep no measured time and its opaque "
                "conditions their default statistics",
                file=c.file,
                line=c.line,
                function=c.function,
            )
            for c in repaired
        ]
        repairs += [
            Diagnostic(kind="estimation", severity="note", message=m)
            for m in inst.get("link_notes", [])
        ]
        checked = None
        summary = json.loads(applied["summary"])
        params = self.arguments(run)
        capped = [
            Diagnostic(kind="estimation", severity="warning", message=m)
            for m in cap_data_exits(self, int(np), params, summary, machine)
        ]
        if self_check:
            usable = unmodified is not None and not unmodified.disturbed
            if unmodified is not None and unmodified.disturbed:
                unmodified_notes.append(
                    "the unmodified program's runs were slowed by neighbours (a rank had "
                    f"{100 * min(unmodified.cpu_shares):.0f}% of a CPU): the self-check compares "
                    "with the estimation runs less their probes' estimated cost"
                )
            checked = report.self_check(
                self,
                int(np),
                params,
                summary,
                machine,
                unmodified.seconds if usable and unmodified is not None else None,
                unmodified.spread if usable and unmodified is not None else 0.0,
                unmodified.spans if usable and unmodified is not None else (),
                combine,
            )
        checks = []
        if checked is not None and not checked.passed and verdict == "doubtful":
            checked.message += (
                " (the estimation runs were slowed by neighbours: part of the gap may be the "
                "machine's, not the model's)"
            )
        if checked is not None:
            # With the command line it checked, so that a prediction for another one can tell
            # which of its arguments the model does not read (_arguments.unread_differences).
            # And how trustworthy the timings were: a self-check passes on timings a loaded
            # machine inflated (the model follows its own estimation run), so a prediction
            # must still say that its block times may be the machine's (issue 13, item 5).
            # And the timed fragments the run never executed: a prediction that runs them
            # (another np, another input) has no time for them (_unmeasured_check.py).
            self._doc["self_check"] = {
                **checked.to_json(),
                "argv": [str(a) for a in run],
                "timings": {"verdict": verdict, "line": trust},
                "unmeasured": sorted(
                    int(n["node"]) for n in summary.get("nodes", []) if n["executions"] == 0
                ),
            }
            self._changed()
            checks.append(
                Diagnostic(
                    kind="estimation",
                    severity="note" if checked.passed else "warning",
                    message=checked.message,
                )
            )
        loaded = Diagnostic._from_json(applied["diagnostics"])
        checks = (
            [Diagnostic(kind="estimation", severity="warning", message=m) for m in exit_notes]
            + [Diagnostic(kind="estimation", severity="note", message=m) for m in unmodified_notes]
            + checks
        )
        self.diagnostics = (
            Diagnostic._from_json(inst["diagnostics"]) + repairs + loaded + capped + checks
        )
        self.estimation = Estimation(
            command=records[-1].command,
            np=int(np),
            seconds=seconds,
            runs=len(runs),
            stdout=stdout,
            directory=str(work) if keep else "",
            diagnostics=repairs + loaded + capped + checks,
            records=records,
            verdict=verdict,
            trust=trust,
            self_check=checked,
            summary=summary,
            params=params,
            reference=unmodified,
            probe_scale=scale,
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


def memory_costs(refresh: bool = False) -> dict[str, list[tuple[float, float]]]:
    """Return this machine's memory cost curves that ``estimate(price_by_size=True)`` uses.

    Name (``malloc``, ``free``, ``memcpy``, ``memmove``, ``memset``, ``calloc``,
    ``malloc_once``, ``free_once``, ``sweep_per_byte``) -> ``[(bytes, seconds), ...]`` at
    1 KiB ... 256 MiB: seconds per call, and for ``sweep_per_byte`` seconds per byte of a
    stencil-like sweep over a working set of that size (what loop nests are scaled by when
    their working set moves to another cache level, docs/frontend.md). Measured once (a few
    seconds) and cached in ``~/.cache/parjava`` (``PARJAVA_CACHE_DIR``); ``refresh`` measures
    again.
    """
    doc = _library_costs.library_costs(refresh)
    return {
        name: [(float(size), float(cost)) for size, cost in points]
        for name, points in doc["curves"].items()
    }


# A program shorter than this runs unmodified three times whatever the estimation runs: one
# launch of a 20-ms program on this VM is now and then 1.6x slower than the next with a full
# CPU (examples/model/jacobi2d.c: 0.036 s among runs of 0.022 s), and a single reference run
# failed a self-check that was right.
_SHORT_PROGRAM_SECONDS = 1.0


def _reference_times(records: Sequence[report.RunRecord], runs: int) -> tuple[int, int]:
    """Return how many times the unmodified program runs, and how many more if they differ.

    As many as the estimation code ran, at most 3 (3 for a short program), and 2 more for a
    short program whose three runs differ by over 10 % with a full CPU each.
    """
    seconds = [r.program_seconds for r in records if r.program_seconds is not None]
    if seconds and min(seconds) < _SHORT_PROGRAM_SECONDS:
        return 3, 2
    return min(3, runs), 0


def _build_unmodified(
    inst: dict[str, Any],
    args: Sequence[str],
    work: Path,
    compiler: str | None,
    link_args: Sequence[str],
    run: Sequence[str],
    np: int,
    mpirun: Sequence[str] | None,
    timeout: float,
    threaded: bool,
) -> tuple[reference_run.Launcher | None, list[str]]:
    """Build the unmodified program; on failure, None and a note saying why.

    The estimation does not depend on it: a program that will not build or run unmodified
    (its own flags missing from the command, no MPI_Finalize) keeps the estimation runs'
    self-check, and the note says so.
    """
    try:
        exe, shim, notes = reference_run.build(inst, args, work, compiler, link_args)
    except RunError as exc:
        return None, [_unmodified_failed(exc)]
    return reference_run.Launcher(exe, shim, run, np, mpirun, timeout, threaded), notes


def _unmodified_failed(exc: RunError) -> str:
    """Return the note for an unmodified program that would not build or run."""
    lines = str(exc).strip().splitlines() or [type(exc).__name__]
    # The build shares the estimation code's steps (and their messages).
    first = lines[0].replace("the estimation code", "the unmodified program")
    error = next((line.strip() for line in lines[1:] if "error" in line), "")
    return (
        f"the unmodified program was not run ({first[:300]}"
        + (f"; {error[:200]}" if error else "")
        + "): the self-check compares with the estimation runs less their probes' "
        "estimated cost"
    )
