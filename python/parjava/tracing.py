"""Run MPI and OpenSHMEM programs under the parjava tracer and get their OTF2 trace.

``parjava.trace(["./app", "512"], np=4)`` starts ``mpirun --oversubscribe -np 4 ./app 512``
with ``libparjava_tracer.so`` preloaded into every rank (PMPI and pshmem interposition, no
relinking), then assembles the fragments the ranks wrote into one OTF2 archive
(``<output>/traces.otf2``) and returns it. The trace is assembled by this process, which
outlives the run, so a program that aborts, exits early, crashes or is interrupted still
leaves everything it recorded up to then.

Function groups (seed 000 §5.2) select what is recorded: ``coll``, ``p2p-blocking``,
``p2p-nonblocking``, ``wait-test``, ``other``, ``shmem`` (default: all). Programs can pause
and resume recording with ``MPI_Pcontrol(0)`` / ``MPI_Pcontrol(1)`` and mark intervals with
``parjava/interval.h`` (compile with ``-I`` :func:`include_dir`).
"""

from __future__ import annotations

import functools
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

from ._paths import PACKAGE_DIR, _package_dirs, external_program, tool_path
from .errors import MissingDependencyError, RunError, TraceError, UsageError

__all__ = [
    "GROUPS",
    "LAUNCHERS",
    "TIMEOUT_GRACE_S",
    "TracedRun",
    "TracedRunError",
    "assemble",
    "include_dir",
    "run_traced",
    "trace",
    "tracer_library",
]

#: Tracer function groups (seed 000 §5.2), as ``PARJAVA_TRACE_GROUPS`` accepts them.
GROUPS = ("coll", "p2p-blocking", "p2p-nonblocking", "wait-test", "other", "shmem")
#: Program names recognised as MPI/OpenSHMEM launchers at the start of a command.
LAUNCHERS = ("mpirun", "mpiexec", "orterun", "oshrun", "shmemrun", "mpiexec.hydra")

_STDERR_TAIL_LINES = 20
# Open MPI (4.1) ends a failed or interrupted job with SIGCONT, then after
# odls_base_sigkill_timeout seconds SIGTERM, then after at most as long SIGKILL. Each rank that
# dies interrupts that last wait, which resumes for the whole seconds left only, so with the
# default of 1 s SIGKILL follows SIGTERM within milliseconds and a rank that a busy node did
# not schedule meanwhile never runs the tracer's SIGTERM handler (it then lacks its end of
# program). A timeout of one second per local rank leaves the last one at least a second;
# capped so that Ctrl-C on a large run does not take long (the tracer writes through from
# SIGCONT on, so those ranks lose at most how they ended).
_SIGKILL_GRACE_MIN_S = 2
_SIGKILL_GRACE_MAX_S = 8
#: Seconds a run with ``timeout`` may take past it, archive included. At the timeout this
#: process sends SIGTERM to the traced ranks itself (their tracers write out what they hold
#: and exit; Open MPI's own sequence above would take ``_SIGKILL_GRACE_MIN_S`` or more) and to
#: the launcher; whatever still runs ``_TIMEOUT_KILL_S`` later is killed, then the archive is
#: assembled.
TIMEOUT_GRACE_S = 2.0
_TIMEOUT_KILL_S = 1.0
# How long mpirun gets to end the job after an interrupt (its SIGCONT, sleep, SIGTERM sequence
# takes about a second) before the tracer ends it itself.
_INTERRUPT_GRACE_S = 10.0
#: The files of an archive the assembler writes into the output directory.
_ARCHIVE_FILES = ("traces.otf2", "traces.def", "traces")

Command = Union[str, Sequence[str]]


class TracedRunError(RunError):
    """The traced program failed; the partial trace it left is in :attr:`archive`."""

    def __init__(
        self, message: str, *, archive: Path | None, returncode: int, stderr_tail: str
    ) -> None:
        super().__init__(message)
        self.archive = archive
        self.returncode = returncode
        self.stderr_tail = stderr_tail


@dataclass
class TracedRun:
    """A finished run under the tracer: where its archive is and what the run reported."""

    archive: Path
    command: list[str]
    returncode: int
    report: dict[str, Any]
    stdout: str = ""
    stderr: str = ""
    warnings: list[str] = field(default_factory=list)
    fragments: Path | None = None

    @property
    def ranks(self) -> int:
        """Number of MPI ranks / OpenSHMEM PEs."""
        return int(self.report["ranks"])

    @property
    def events(self) -> int:
        """Events written to the archive."""
        return int(self.report["events"])

    @property
    def calls(self) -> dict[str, int]:
        """Enter events per region name (runtime routines and intervals), all ranks together."""
        return {str(k): int(v) for k, v in self.report["calls"].items()}

    @property
    def overhead_ns(self) -> int:
        """The tracer's measured cost per wrapped call (median over ranks), -1 if unknown."""
        return int(self.report["overhead_ns"])

    def open(self) -> Any:
        """Load the archive as a :class:`parjava.Trace`."""
        import parjava

        # Importing the submodule parjava.trace rebinds the package attribute `trace`; keep
        # it the function parjava.trace().
        function = parjava.__dict__.get("trace")
        from .trace import Trace  # the trace part

        if callable(function) and not isinstance(function, type(sys)):
            parjava.trace = function  # type: ignore[attr-defined]
        return Trace.open(self.archive)

    def __repr__(self) -> str:
        return (
            f"TracedRun(archive={str(self.archive)!r}, ranks={self.ranks}, "
            f"events={self.events}, returncode={self.returncode}, "
            f"warnings={len(self.warnings)})"
        )


def include_dir(header: str = "interval.h") -> Path:
    """Directory to add with ``-I`` to compile against parjava's C headers.

    ``parjava/interval.h`` marks intervals for the tracer; ``parjava/model.h`` names program
    inputs for the model builder (``PARJAVA_PARAM``).
    """
    for directory in _package_dirs():
        if (directory / "include" / "parjava" / header).exists():
            return directory / "include"
    source_tree = PACKAGE_DIR.parent.parent / "cpp" / "include"
    if (source_tree / "parjava" / header).exists():
        return source_tree
    raise MissingDependencyError(
        f"parjava/{header} is not installed with this parjava; rebuild with `make build` "
        "or `pip install .`"
    )


def tracer_library() -> Path:
    """Path of ``libparjava_tracer.so`` (preload it, or link with it: ``-lparjava_tracer``)."""
    return tool_path("libparjava_tracer.so", "lib")


def _as_list(cmd: Command) -> list[str]:
    if isinstance(cmd, str):
        return shlex.split(cmd)
    return [str(c) for c in cmd]


def _check_groups(groups: str | Sequence[str] | None) -> str:
    if groups is None:
        return "all"
    names = [g.strip() for g in groups.split(",")] if isinstance(groups, str) else list(groups)
    names = [n for n in names if n]
    if names == ["all"]:
        return "all"
    unknown = [n for n in names if n not in GROUPS]
    if unknown or not names:
        raise UsageError(
            f"unknown tracer group(s) {', '.join(unknown) or '(none given)'}: choose from "
            f"{', '.join(GROUPS)} or 'all'"
        )
    return ",".join(names)


# Launcher options followed by one or two values (Open MPI and Hydra spellings).
_LAUNCHER_OPTIONS_WITH_VALUE = set(
    "-np -n -c --np -x --map-by --bind-to -H --host -host --hostfile -hostfile -machinefile "
    "-wdir --wdir -ppn".split()
)
_LAUNCHER_OPTIONS_WITH_TWO_VALUES = {"--mca", "-mca", "-genv", "-env"}


def _program_name(command: list[str]) -> str:
    """Name the traced program (first argument after the launcher's options)."""
    args = command[1:] if command and Path(command[0]).name in LAUNCHERS else command
    i = 0
    while i < len(args):
        arg = args[i]
        if not arg.startswith("-"):
            return Path(arg).name
        if arg in _LAUNCHER_OPTIONS_WITH_TWO_VALUES:
            i += 3
        elif arg in _LAUNCHER_OPTIONS_WITH_VALUE:
            i += 2
        else:
            i += 1
    return "program"


def _default_output(command: list[str], np: int | None) -> Path:
    base = f"parjava-{_program_name(command)}" + (f"-np{np}" if np else "")
    candidate = Path.cwd() / base
    n = 1
    while candidate.exists():
        candidate = Path.cwd() / f"{base}.{n}"
        n += 1
    return candidate


@functools.lru_cache(maxsize=8)
def _is_open_mpi(launcher: str) -> bool:
    try:
        out = subprocess.run(
            [launcher, "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return True
    text = out.stdout + out.stderr
    return "Open MPI" in text or "OpenRTE" in text or "OpenSHMEM" in text


def _launch_command(
    cmd: list[str], np: int, launcher: str | None, env: dict[str, str]
) -> list[str]:
    """Build the full command, passing the tracer's environment to every rank."""
    if cmd and Path(cmd[0]).name in LAUNCHERS:
        program, rest = cmd[0], cmd[1:]
        resolved = shutil.which(program) or program
    else:
        name = launcher or "mpirun"
        resolved = external_program(
            name, "install Open MPI (`apt-get install -y openmpi-bin libopenmpi-dev`)"
        )
        rest = ["-np", str(np), *cmd]
        if Path(resolved).name in {"mpirun", "orterun", "oshrun"} and _is_open_mpi(resolved):
            rest = ["--oversubscribe", *rest]
    if shutil.which(resolved) is None and not Path(resolved).exists():
        raise MissingDependencyError(
            f"{resolved} was not found on PATH: install Open MPI "
            "(`apt-get install -y openmpi-bin libopenmpi-dev`)"
        )
    passed: list[str] = []
    if _is_open_mpi(resolved):
        for key, value in env.items():
            passed += ["-x", f"{key}={value}"]
    else:  # MPICH / Hydra
        for key, value in env.items():
            passed += ["-genv", key, value]
    return [resolved, *passed, *rest]


def _rank_count(full: list[str], np: int) -> int:
    """Return how many ranks the launch command starts (its -np/-n/-c option, else ``np``)."""
    for flag, value in zip(full, full[1:]):
        if flag in {"-np", "-n", "--np", "-c"} and value.isdigit():
            return int(value)
    return np


def _sigkill_grace_s(ranks: int) -> int:
    """Return the SIGTERM-to-SIGKILL timeout that lets every rank run its SIGTERM handler."""
    return max(_SIGKILL_GRACE_MIN_S, min(ranks, _SIGKILL_GRACE_MAX_S))


def _pump(stream: Any, sink: Any, tail: deque[str], keep: list[str] | None) -> None:
    for line in iter(stream.readline, ""):
        tail.append(line)
        if keep is not None:
            keep.append(line)
        if sink is not None:
            sink.write(line)
            sink.flush()
    stream.close()


def _claim_output(out: Path, force: bool) -> None:
    """Refuse an output directory that holds an archive, or with ``force`` remove that archive."""
    existing = [out / name for name in _ARCHIVE_FILES if (out / name).exists()]
    if not existing:
        return
    if not force:
        raise UsageError(
            f"{out} already holds a trace archive ({existing[0].name}); choose another output "
            "directory, or replace it with --force (force=True in Python)"
        )
    for path in existing:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()


def assemble(
    fragments: str | os.PathLike[str], output: str | os.PathLike[str], *, force: bool = False
) -> dict[str, Any]:
    """Assemble the fragments a traced run left in ``fragments`` into ``output/traces.otf2``.

    For runs started without :func:`trace` (e.g. batch jobs that preload the tracer with
    ``PARJAVA_TRACE_DIR`` set). Returns the assembler's report (ranks, events, calls,
    warnings, ...). Raises :class:`parjava.TraceError` when there is nothing to assemble and
    :class:`parjava.UsageError` when ``output`` already holds an archive, unless ``force``.
    """
    _claim_output(Path(output), force)
    assembler = tool_path("parjava-trace-assemble", "bin")
    proc = subprocess.run(
        [str(assembler), str(fragments), str(output)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        message = proc.stderr.strip().removeprefix("parjava-trace-assemble: ")
        raise TraceError(message or f"parjava-trace-assemble failed with status {proc.returncode}")
    report: dict[str, Any] = json.loads(proc.stdout)
    return report


def _runtime_crashed_in_finalize(report: dict[str, Any]) -> bool:
    """Every process wrote its trace in finalize and then died there (Debian's OpenSHMEM)."""
    processes = report.get("processes", [])
    return bool(processes) and all(
        p["reached_finalize"] and p["end_reason"] == "signal" for p in processes
    )


def run_traced(
    cmd: Command,
    np: int = 4,
    groups: str | Sequence[str] | None = None,
    output: str | os.PathLike[str] | None = None,
    *,
    launcher: str | None = None,
    timeout: float | None = None,
    env: dict[str, str] | None = None,
    keep_fragments: bool = False,
    echo: bool = False,
    force: bool = False,
) -> TracedRun:
    """Run ``cmd`` under the tracer and assemble its archive; see :func:`trace`.

    Returns a :class:`TracedRun` (archive path, exit status, the assembler's report).
    ``echo=True`` passes the program's output through to this process's stdout/stderr (the
    command line does this) instead of capturing it.
    """
    command = _as_list(cmd)
    if not command:
        raise UsageError("no command to trace: give the program and its arguments")
    if np < 1:
        raise UsageError(f"np must be at least 1, not {np}")
    if timeout is not None and not timeout > 0:
        raise UsageError(f"timeout must be a positive number of seconds, not {timeout}")
    group_spec = _check_groups(groups)
    library = tracer_library()
    tool_path("parjava-trace-assemble", "bin")  # fail before running if it is missing
    out = Path(output) if output is not None else _default_output(command, np)
    _claim_output(out, force)
    out.mkdir(parents=True, exist_ok=True)
    fragments = out / "fragments"
    if fragments.exists():
        shutil.rmtree(fragments)
    fragments.mkdir()

    preload = str(library)
    rank_env = {
        "LD_PRELOAD": preload,
        "PARJAVA_TRACE_DIR": str(fragments.resolve()),
        "PARJAVA_TRACE_GROUPS": group_spec,
    }
    full = _launch_command(command, np, launcher, rank_env)
    process_env = dict(os.environ)
    process_env.update(env or {})
    process_env.setdefault(
        "OMPI_MCA_odls_base_sigkill_timeout", str(_sigkill_grace_s(_rank_count(full, np)))
    )

    stdout_lines: list[str] = []
    stderr_lines: list[str] = []
    tail: deque[str] = deque(maxlen=_STDERR_TAIL_LINES)
    interrupted = False
    timed_out = False
    proc = subprocess.Popen(
        full,
        stdout=None if echo else subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=process_env,
    )
    threads = [
        threading.Thread(
            target=_pump,
            args=(proc.stderr, sys.stderr if echo else None, tail, stderr_lines),
            daemon=True,
        )
    ]
    if not echo:
        threads.append(
            threading.Thread(
                target=_pump, args=(proc.stdout, None, deque(maxlen=1), stdout_lines), daemon=True
            )
        )
    for t in threads:
        t.start()
    start = time.monotonic()
    # SIGTERM to this process is passed on to mpirun (which terminates the ranks, whose
    # tracers write out what they hold), and the partial trace is still assembled.
    terminated: list[int] = []
    previous_term = None
    if threading.current_thread() is threading.main_thread():

        def forward(signo: int, _frame: object) -> None:
            terminated.append(signo)
            proc.send_signal(signo)

        previous_term = signal.signal(signal.SIGTERM, forward)
    try:
        while proc.poll() is None:
            if timeout is not None and time.monotonic() - start > timeout:
                timed_out = True
                _end_run(proc, fragments)
                break
            time.sleep(0.02)
    except KeyboardInterrupt:
        # Keep what the ranks wrote. Ctrl-C at a terminal reaches mpirun too (same foreground
        # process group); a second SIGINT within 5 s makes Open MPI exit at once without its
        # orderly SIGCONT/SIGTERM sequence, so forward it only when mpirun did not get one.
        interrupted = True
        if not _in_terminal_foreground(proc.pid):
            proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=_INTERRUPT_GRACE_S)
        except subprocess.TimeoutExpired:
            # mpirun did not end the job (the signal reached it while it was still launching
            # the ranks, and it lost it): end the run as at a timeout, keeping what the ranks
            # recorded, rather than wait for a hung job forever.
            _end_run(proc, fragments)
    finally:
        if previous_term is not None:
            signal.signal(signal.SIGTERM, previous_term)
    interrupted = interrupted or bool(terminated)
    for t in threads:
        t.join(timeout=10)
    returncode = proc.returncode if proc.returncode is not None else -1
    stderr_tail = "".join(tail).rstrip()

    has_data = any(fragments.glob("p*.defs"))
    if not has_data:
        what = shlex.join(full)
        if returncode != 0:
            raise TracedRunError(
                f"{what} failed with exit status {returncode} before any rank was traced:\n"
                f"{stderr_tail}",
                archive=None,
                returncode=returncode,
                stderr_tail=stderr_tail,
            )
        raise TraceError(
            f"{what} produced no trace: no rank initialised MPI or OpenSHMEM with the tracer "
            "loaded (is the program statically linked, or does it not call MPI_Init / "
            "shmem_init? Tracing needs a dynamically linked MPI program)"
        )
    report = assemble(fragments, out, force=True)  # a stale archive was refused above
    archive = Path(report["archive"])
    warnings = list(report.get("warnings", []))
    run = TracedRun(
        archive=archive,
        command=full,
        returncode=returncode,
        report=report,
        stdout="".join(stdout_lines),
        stderr="".join(stderr_lines),
        warnings=warnings,
        fragments=fragments if keep_fragments else None,
    )
    if not keep_fragments:
        shutil.rmtree(fragments, ignore_errors=True)
    if interrupted:
        raise KeyboardInterrupt(f"traced run interrupted; partial trace in {archive}")
    if timed_out:
        raise TracedRunError(
            f"{shlex.join(command)} did not finish within {timeout:g} s and was terminated; "
            f"the trace up to then is in {archive}",
            archive=archive,
            returncode=returncode,
            stderr_tail=stderr_tail,
        )
    if returncode != 0:
        if _runtime_crashed_in_finalize(report):
            warnings.append(
                "every process wrote its trace and then crashed inside the runtime's "
                "finalize (a known defect of Debian's OpenSHMEM); the trace is complete"
            )
            return run
        raise TracedRunError(
            f"{shlex.join(command)} failed with exit status {returncode}; the trace up to the "
            f"failure is in {archive}. Last lines of its error output:\n{stderr_tail}",
            archive=archive,
            returncode=returncode,
            stderr_tail=stderr_tail,
        )
    return run


def _process_table() -> dict[int, tuple[int, str]]:
    """Return every process's parent and state (Linux /proc); empty without /proc."""
    table = {}
    try:
        entries = list(os.scandir("/proc"))
    except OSError:
        return {}
    for entry in entries:
        if not entry.name.isdigit():
            continue
        try:
            with open(os.path.join(entry.path, "stat"), encoding="utf-8", errors="replace") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # ended meanwhile
        table[int(entry.name)] = (int(fields[1]), fields[0])
    return table


def _descendants(pid: int) -> list[int]:
    """Return the live (not zombie) processes below ``pid``: the launcher's ranks, helpers."""
    table = _process_table()
    children: dict[int, list[int]] = {}
    for child, (parent, _) in table.items():
        children.setdefault(parent, []).append(child)
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if table[child][1] != "Z":
                found.append(child)
            todo.append(child)
    return found


def _alive(pids: Sequence[int]) -> list[int]:
    """Return those of ``pids`` that still run (zombies have finished writing)."""
    table = _process_table()
    return [pid for pid in pids if pid in table and table[pid][1] != "Z"]


def _signal_all(pids: Sequence[int], signo: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, signo)
        except (ProcessLookupError, PermissionError):
            pass


def _end_run(proc: subprocess.Popen[str], fragments: Path) -> None:
    """End a run at its timeout within ``TIMEOUT_GRACE_S``, keeping what the ranks recorded.

    The traced ranks (their fragment files are named after their pid) get SIGCONT and SIGTERM
    directly: the tracer's handler writes out the rank's events and exits, without waiting
    for Open MPI's SIGCONT, sleep, SIGTERM sequence. The launcher gets SIGTERM too, for ranks
    that have not started tracing yet. What still runs ``_TIMEOUT_KILL_S`` later is killed.
    """
    below = _descendants(proc.pid)
    traced = {int(f.stem[1:]) for f in fragments.glob("p*.defs") if f.stem[1:].isdigit()}
    ranks = [pid for pid in below if pid in traced]
    _signal_all(ranks, signal.SIGCONT)
    _signal_all(ranks, signal.SIGTERM)
    proc.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + _TIMEOUT_KILL_S
    # Done when the launcher has exited and no rank is left writing (reparented ones too).
    while time.monotonic() < deadline:
        if proc.poll() is not None and not _alive(below):
            return
        time.sleep(0.02)
    _signal_all([*below, *_descendants(proc.pid)], signal.SIGKILL)
    proc.kill()
    proc.wait()


def _in_terminal_foreground(pid: int) -> bool:
    """Whether ``pid`` is in the terminal's foreground process group (so it gets Ctrl-C)."""
    try:
        return os.getpgid(pid) == os.tcgetpgrp(sys.stdin.fileno())
    except (OSError, ValueError):  # no terminal, or the process is gone
        return False


def trace(
    cmd: Command,
    np: int = 4,
    groups: str | Sequence[str] | None = None,
    output: str | os.PathLike[str] | None = None,
    *,
    launcher: str | None = None,
    timeout: float | None = None,
    env: dict[str, str] | None = None,
    keep_fragments: bool = False,
    force: bool = False,
) -> Any:
    """Run a program under the parjava tracer and return its trace.

    ``cmd`` is the program with its arguments (``["./app", "512"]`` or ``"./app 512"``),
    started as ``mpirun --oversubscribe -np <np> ...``; a command that already starts with a
    launcher (``mpirun``, ``mpiexec``, ``oshrun``, ...) is used as given. ``groups`` limits
    recording to tracer groups (:data:`GROUPS`), ``output`` is the archive directory
    (default: a new ``parjava-<program>-np<N>`` in the current directory); a directory that
    already holds an archive is refused (:class:`parjava.UsageError`) unless ``force``.
    ``timeout`` (seconds) ends the run then: the ranks write out what they recorded, and the
    call returns (raising :class:`TracedRunError` with the archive) at most
    :data:`TIMEOUT_GRACE_S` later.

    Returns the loaded :class:`parjava.Trace` when the trace part is installed, otherwise the
    :class:`TracedRun` (whose ``archive`` is the OTF2 file). Raises :class:`TracedRunError`
    when the program fails (its ``archive`` holds the partial trace),
    :class:`parjava.MissingDependencyError` without mpirun or the tracer, and
    :class:`parjava.TraceError` when the run produced no trace.
    """
    run = run_traced(
        cmd,
        np=np,
        groups=groups,
        output=output,
        launcher=launcher,
        timeout=timeout,
        env=env,
        keep_fragments=keep_fragments,
        force=force,
    )
    try:
        return run.open()
    except ImportError:
        return run
