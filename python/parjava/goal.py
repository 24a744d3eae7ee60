"""GOAL schedules and their LogGP simulation, exactly as LogGOPSim computes it.

A GOAL schedule (the input of LogGOPSim, https://github.com/spcl/LogGOPSim) lists, per rank,
``send``/``recv``/``calc`` operations and ``requires``/``irequires`` dependencies between them.
:func:`load` reads the text form, :func:`pattern` builds Schedgen-like collective patterns in
memory, and :meth:`Schedule.simulate` runs the LogGP discrete-event simulation::

    >>> import parjava as pj
    >>> s = pj.goal.pattern("allreduce_recursive_doubling", ranks=1024, bytes=8)
    >>> r = s.simulate(L=2500, o=1500, g=1000, G=6, O=0, S=65535)
    >>> r.max_end_time, r.events
    (109922, 61440)

Host end times equal LogGOPSim's to the nanosecond and ``events`` is LogGOPSim's event count.
Parameters are integers in nanoseconds (bytes for ``S``), with LogGOPSim's defaults. When more
than 16 operations become ready at once on a host, LogGOPSim's order of them is that of
libstdc++'s unstable ``std::sort``; ``order="loggopsim"`` reproduces it (including the
spurious deadlocks it causes), while the default ``order="stable"`` keeps the schedule's order,
which is the one MPI's non-overtaking rule implies.
"""

from __future__ import annotations

import argparse
import numbers
import os
from collections.abc import Callable
from dataclasses import dataclass, fields
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

from . import _progress
from ._core_loader import load_core
from .errors import DeadlockError, ModelError, UsageError

if TYPE_CHECKING:
    import numpy as np

PathLike = Union[str, "os.PathLike[str]"]

ORDERS = ("stable", "loggopsim")
_KIND_NAMES = {1: "send", 2: "recv", 3: "calc"}
_LOGGOPSIM_BIN_COOKIES = (4223, 2342)  # txt2bin's magic cookie, and its "invalidated" cookie


@dataclass(frozen=True)
class LogGP:
    """LogGP(S) parameters in LogGOPSim's units: integer nanoseconds (``G``, ``O`` per byte).

    ``S`` is the eager/rendezvous threshold in bytes: messages of at most ``S`` bytes are eager.
    The defaults are LogGOPSim's command-line defaults.
    """

    L: int = 2500
    o: int = 1500
    g: int = 1000
    G: int = 6
    O: int = 0  # noqa: E741
    S: int = 65535

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise UsageError(
                    f"LogGP parameter {f.name} must be an integer number of nanoseconds"
                    f"{' (bytes)' if f.name == 'S' else ''}, got {value!r}"
                )
            if value < 0 or value >= 2**63:
                raise UsageError(f"LogGP parameter {f.name} must be >= 0, got {value}")

    @classmethod
    def from_machine(cls, machine: Any, network: str = "inter") -> LogGP:
        """Take the LogGP network of a :class:`parjava.Machine`, converted to nanoseconds.

        ``network`` chooses ``"inter"`` (between nodes; the default, falling back to the
        intra-node network of a one-node machine) or ``"intra"``. A GOAL schedule has no
        placement, so one network prices every message.
        """
        if network not in ("inter", "intra"):
            raise UsageError(f"network must be 'inter' or 'intra', got {network!r}")
        try:
            net = machine.inter_node if network == "inter" else machine.intra_node
            if net is None:
                net = machine.intra_node
            kind = net.kind
            params = net.parameters
        except AttributeError as exc:
            raise UsageError(
                f"expected a parjava.Machine, got {type(machine).__name__} ({exc})"
            ) from exc
        if kind != "loggp":
            raise UsageError(
                f"the machine's {network}-node network is a {kind} model; GOAL simulation "
                "needs LogGP parameters (build it with parjava.machine.Network.loggp, or pass "
                "L=, o=, g=, G=, O=, S= explicitly)"
            )

        def ns(key: str) -> int:
            return round(float(params[key]) * 1e9)

        return cls(L=ns("L"), o=ns("o"), g=ns("g"), G=ns("G"), O=ns("O"), S=int(params["S"]))

    def _to_core(self) -> Any:
        core = load_core().LogGPParameters()
        for f in fields(self):
            setattr(core, f.name, int(getattr(self, f.name)))
        return core


@dataclass(frozen=True)
class UnfinishedOp:
    """An operation that did not complete in a simulation, and why."""

    rank: int
    offset: int  # index of the op within its rank (LogGOPSim's "offset")
    reason: str  # never_ready, receive_not_matched or message_not_received
    description: str  # e.g. "recv 8b from 3 tag 0"
    waiting_for: int  # never_ready: number of unsatisfied dependencies
    line: int  # line in the GOAL file (0 when unknown)

    def __str__(self) -> str:
        where = f" (line {self.line})" if self.line else ""
        extra = (
            f", {self.waiting_for} dependencies unsatisfied" if self.reason == "never_ready" else ""
        )
        return (
            f"rank {self.rank} op #{self.offset}{where}: {self.description}: "
            f"{self.reason.replace('_', ' ')}{extra}"
        )


class SimulationResult:
    """The outcome of :meth:`Schedule.simulate`.

    ``end_times`` are per host, in nanoseconds: the time its last CPU became free (LogGOPSim's
    "Host i"). ``events`` is LogGOPSim's event count, ``events_per_second`` it divided by the
    wall-clock time of the event loop (``seconds``; ``cpu_seconds`` is the loop's CPU time).
    """

    def __init__(self, core: Any, schedule: Schedule, parameters: LogGP, order: str) -> None:
        self._core = core
        self.schedule = schedule
        self.parameters = parameters
        self.order = order
        self.max_end_time = int(core.max_end_time)
        self.max_host = int(core.max_host)
        self.events = int(core.events)
        self.seconds = float(core.seconds)
        self.cpu_seconds = float(core.cpu_seconds)
        self.complete = bool(core.complete)
        self.queue_pops = int(core.queue_pops)
        self.blocked_checks = int(core.blocked_checks)
        self.ops_completed = int(core.ops_completed)
        self.unfinished_count = int(core.unfinished_count)
        self.receive_queue_left = int(core.receive_queue_left)
        self.unexpected_queue_left = int(core.unexpected_queue_left)
        self._unfinished: list[UnfinishedOp] | None = None

    @cached_property
    def end_times(self) -> np.ndarray:
        """Per-host end times in nanoseconds (uint64; NumPy is imported on first use)."""
        import numpy as np

        return np.asarray(self._core.end_times, dtype=np.uint64)

    @property
    def events_per_second(self) -> float:
        """LogGOPSim's events per second of event-loop wall-clock time."""
        return self.events / self.seconds if self.seconds > 0 else float("inf")

    @property
    def max(self) -> int:
        """The program's end time: the latest host end time, in nanoseconds."""
        return self.max_end_time

    @property
    def unfinished(self) -> list[UnfinishedOp]:
        """The first (up to 64) operations that did not complete, with file lines if known."""
        if self._unfinished is None:
            self._unfinished = self.schedule._describe_unfinished(self._core)
        return self._unfinished

    def report(self) -> str:
        """Format the result as LogGOPSim prints it (handy for diffing against the tool)."""
        p = self.parameters
        ranks = self.schedule.ranks
        lines = [
            f"LogGP network backend; size: {ranks} ({self.schedule.cpus} CPUs, "
            f"{self.schedule.nics} NICs); L={p.L}, o={p.o} g={p.g}, G={p.G}, O={p.O}, "
            f"P={ranks}, S={p.S}",
            f"PERFORMANCE: Processes: {ranks} \t Events: {self.events} \t "
            f"Time: {self.seconds:.3f} s \t Speed: {self.events_per_second:.2f} ev/s",
        ]
        if not self.complete:
            lines.append(f"INCOMPLETE: {self._core_description()}")
        elif ranks <= 16:
            lines.append("Times: ")
            lines += [f"Host {i}: {int(self._core.end_time(i))}" for i in range(ranks)]
        else:
            lines.append(
                f"Maximum finishing time at host {self.max_host}: {self.max_end_time} "
                f"({self.max_end_time / 1e9:g} s)"
            )
        return "\n".join(lines)

    def _core_description(self) -> str:
        core = load_core()
        return str(core.describe_unfinished(self.schedule._core, self._core))

    def __repr__(self) -> str:
        state = "complete" if self.complete else f"INCOMPLETE ({self.unfinished_count} ops stuck)"
        return (
            f"<parjava.goal.SimulationResult {state}: max {self.max_end_time} ns at host "
            f"{self.max_host}, {self.events} events in {self.seconds:.3g} s "
            f"({self.events_per_second / 1e6:.3g} M ev/s), order={self.order}>"
        )


class Schedule:
    """A GOAL schedule held in memory: 16 bytes per operation plus a few per rank.

    Each distinct (kind, size, tag, cpu, nic) is stored once (16 bytes), and a dependency costs
    4 bytes only when the operation record does not imply it (a dependent that closely follows
    its prerequisite in the rank is implied).

    Build with :func:`load`, :func:`parse` or :func:`pattern`; simulate with :meth:`simulate`.
    """

    def __init__(self, core: Any, path: Path | None = None) -> None:
        self._core = core
        self.path = path

    @property
    def ranks(self) -> int:
        """Number of ranks (hosts)."""
        return int(self._core.num_ranks)

    @property
    def ops(self) -> int:
        """Number of operations."""
        return int(self._core.num_ops)

    @property
    def cpus(self) -> int:
        """CPUs per host: max(cpu) + 1 over the whole schedule, as LogGOPSim counts them."""
        return int(self._core.num_cpus)

    @property
    def nics(self) -> int:
        """NICs per host: max(nic) + 1 over the whole schedule."""
        return int(self._core.num_nics)

    @property
    def dependencies(self) -> int:
        """Number of ``requires`` plus ``irequires`` edges."""
        return int(self._core.num_edges)

    @property
    def listed_dependencies(self) -> int:
        """Number of dependency edges stored as a list (the rest are implied by the op records)."""
        return int(self._core.num_listed_edges)

    @property
    def shapes(self) -> int:
        """Number of distinct (kind, size, tag, cpu, nic) the operation records point to."""
        return int(self._core.num_shapes)

    @property
    def sends(self) -> int:
        """Number of send operations."""
        return int(self._core.count("send"))

    @property
    def recvs(self) -> int:
        """Number of recv operations."""
        return int(self._core.count("recv"))

    @property
    def calcs(self) -> int:
        """Number of calc operations."""
        return int(self._core.count("calc"))

    @property
    def source(self) -> str:
        """Where the schedule came from (a path or a pattern description)."""
        return str(self._core.source)

    @property
    def memory_bytes(self) -> int:
        """Bytes held by the schedule's arrays."""
        return int(self._core.memory_bytes)

    def arrays(self) -> dict[str, np.ndarray]:
        """Return per-operation NumPy columns.

        Columns: rank, offset, kind (1 send, 2 recv, 3 calc), size, peer, tag, cpu, nic and
        dependencies (incoming edges). A peer or tag of -1 reads 4294967295.
        """
        import numpy as np

        columns = {k: np.asarray(v) for k, v in self._core.op_columns().items()}
        begins = np.asarray(self._core.rank_begins(), dtype=np.int64)
        counts = np.diff(begins)
        rank = np.repeat(np.arange(self.ranks, dtype=np.uint32), counts)
        offset = np.arange(self.ops, dtype=np.int64) - np.repeat(begins[:-1], counts)
        return {"rank": rank, "offset": offset.astype(np.uint32), **columns}

    def to_frame(self) -> Any:
        """Return the operations as a pandas DataFrame (``kind`` as send/recv/calc)."""
        import numpy as np
        import pandas as pd

        frame = pd.DataFrame(self.arrays())
        frame["kind"] = pd.Categorical.from_codes(
            frame["kind"].astype(np.int64) - 1, categories=["send", "recv", "calc"]
        )
        return frame

    def simulate(
        self,
        machine: Any = None,
        *,
        L: int | None = None,  # noqa: N803
        o: int | None = None,
        g: int | None = None,
        G: int | None = None,  # noqa: N803
        O: int | None = None,  # noqa: N803, E741
        S: int | None = None,  # noqa: N803
        order: str = "stable",
        check: bool = True,
        progress: bool | None = None,
    ) -> SimulationResult:
        """Simulate under LogGP and return a :class:`SimulationResult`.

        Parameters come from ``machine`` (a :class:`parjava.Machine` with a LogGP network, or
        a :class:`LogGP`) if given, else LogGOPSim's defaults; ``L``, ``o``, ``g``, ``G``,
        ``O`` (integer ns) and ``S`` (bytes) override single values. ``order`` is ``"stable"``
        or ``"loggopsim"`` (see the module documentation). With ``check=True`` an incomplete
        run (a deadlock: operations that never ran, recvs or messages left unmatched) raises
        :class:`parjava.DeadlockError` naming the stuck operations; with ``check=False`` the
        result is returned with ``complete=False``.
        """
        if order not in ORDERS:
            raise UsageError(f"order must be one of {', '.join(ORDERS)}, got {order!r}")
        if machine is None:
            base = LogGP()
        elif isinstance(machine, LogGP):
            base = machine
        else:
            base = LogGP.from_machine(machine)
        overrides = {"L": L, "o": o, "g": g, "G": G, "O": O, "S": S}
        values: dict[str, Any] = {}
        for f in fields(LogGP):
            given = overrides[f.name]
            values[f.name] = given if given is not None else getattr(base, f.name)
        params = LogGP(**values)
        core = load_core()
        total_events = max(2 * self.ops, 1)
        with _progress.Progress(total_events, "simulating", enabled=progress) as bar:
            last = [0]

            def report(processed: int) -> bool:
                bar.advance(processed - last[0])
                last[0] = processed
                return True

            raw = core.simulate_goal(self._core, params._to_core(), order, report)
        result = SimulationResult(raw, self, params, order)
        if check and not result.complete:
            stuck = "; ".join(str(u) for u in result.unfinished[:8])
            more = "; ..." if result.unfinished_count > 8 else ""
            hint = (
                " LogGOPSim's ready order permutes receives when more than 16 ops become "
                "ready at once; order='stable' avoids that."
                if order == "loggopsim"
                else ""
            )
            raise DeadlockError(
                f"{self.source}: {result.unfinished_count} of {self.ops} operations did not "
                f"complete ({result.receive_queue_left} recvs left posted, "
                f"{result.unexpected_queue_left} messages left unreceived): {stuck}{more}."
                f"{hint} Pass check=False to get the partial result."
            )
        return result

    def save(self, path: PathLike, format: str | None = None) -> Path:
        """Write the schedule as GOAL text or in parjava's binary form.

        ``format="goal"`` writes text LogGOPSim's txt2bin reads; ``format="binary"`` writes
        parjava's own form, which loads at disk speed. By default the suffix decides:
        ``.pjgoal`` is binary, anything else GOAL text.
        """
        target = Path(path)
        fmt = format or ("binary" if target.suffix == ".pjgoal" else "goal")
        core = load_core()
        if fmt == "goal":
            core.write_goal_file(self._core, str(target))
        elif fmt == "binary":
            core.write_goal_binary(self._core, str(target))
        else:
            raise UsageError(f"format must be 'goal' or 'binary', got {format!r}")
        return target

    def to_text(self) -> str:
        """Return the schedule as GOAL text."""
        return str(load_core().goal_text(self._core))

    def _describe_unfinished(self, raw: Any) -> list[UnfinishedOp]:
        items = list(raw.unfinished)
        lines: dict[int, int] = {}
        if self.path is not None and items:
            located = load_core().locate_goal_ops(
                self._core, str(self.path), [op for op, *_ in items]
            )
            lines = {op: line for (op, *_), (_, _, line, _) in zip(items, located)}
        import numpy as np

        begins = np.asarray(self._core.rank_begins(), dtype=np.int64)
        columns = self._core.op_columns() if items else {}
        out = []
        for op, rank, reason, waiting in items:
            out.append(
                UnfinishedOp(
                    rank=int(rank),
                    offset=int(op - begins[rank]),
                    reason=str(reason),
                    description=_describe(columns, op),
                    waiting_for=int(waiting),
                    line=int(lines.get(op, 0)),
                )
            )
        return out

    def __repr__(self) -> str:
        return (
            f"<parjava.goal.Schedule {self.source!r}: {self.ranks} ranks, {self.ops} ops "
            f"({self.sends} sends, {self.recvs} recvs, {self.calcs} calcs), "
            f"{self.dependencies} dependencies, {self.cpus} CPU(s), {self.nics} NIC(s)>"
        )


def _describe(columns: dict[str, Any], op: int) -> str:
    kind = _KIND_NAMES[int(columns["kind"][op])]
    size = int(columns["size"][op])
    if kind == "calc":
        return f"calc {size}"
    peer = int(columns["peer"][op])
    tag = int(columns["tag"][op])
    peer_s = "-1" if peer == 0xFFFFFFFF else str(peer)
    tag_s = "-1" if tag == 0xFFFFFFFF else str(tag)
    direction = "to" if kind == "send" else "from"
    return f"{kind} {size}b {direction} {peer_s} tag {tag_s}"


def load(path: PathLike) -> Schedule:
    """Read a GOAL text file, or a schedule saved in parjava's binary form (``.pjgoal``).

    Malformed text raises :class:`parjava.ModelError` naming ``file:line:column`` and what
    was expected there.
    """
    target = Path(path)
    if not target.exists():
        raise UsageError(f"no such GOAL schedule: {target}")
    if target.is_dir():
        raise UsageError(f"{target} is a directory, not a GOAL schedule")
    core = load_core()
    if core.is_goal_binary(str(target)):
        return Schedule(core.read_goal_binary(str(target)), None)
    with open(target, "rb") as f:
        head = f.read(8)
    if len(head) == 8 and int.from_bytes(head, "little") in _LOGGOPSIM_BIN_COOKIES:
        raise ModelError(
            f"{target} is a LogGOPSim binary schedule (txt2bin output); parjava reads the "
            "GOAL text it was made from"
        )
    return Schedule(core.read_goal_file(str(target)), target)


def parse(text: str, name: str = "<text>") -> Schedule:
    """Parse GOAL text held in a string; ``name`` appears in error messages."""
    return Schedule(load_core().parse_goal_text(text, name), None)


def patterns() -> list[str]:
    """Names accepted by :func:`pattern`."""
    return list(load_core().pattern_names())


def pattern(
    name: str,
    ranks: int,
    bytes: int = 8,
    *,
    root: int = 0,
    segment: int = 1024,
    compute: int = 0,
    chain_receives: bool = False,
) -> Schedule:
    """Build a Schedgen-like collective pattern in memory (see :func:`patterns`).

    ``bytes`` is the message (or total) size, ``root`` the root of trees, gather and scatter,
    ``segment`` the segment size of ``pipelined_ring``; ``compute`` adds a ``calc`` of that
    many ns after each recv that a later send needs (a reduction); ``chain_receives`` makes
    each recv irequire the previous one, so at most a few ops become ready at once.
    """
    for label, value in (("ranks", ranks), ("bytes", bytes), ("segment", segment)):
        if value < (1 if label != "bytes" else 0):
            raise UsageError(f"{label} must be positive, got {value}")
    if compute < 0 or root < 0:
        raise UsageError("root and compute must be >= 0")
    core = load_core().generate_pattern(
        name, int(ranks), int(bytes), int(root), int(segment), int(compute), bool(chain_receives)
    )
    return Schedule(core, None)


# ---- command line (used by `parjava predict --goal FILE`) ---------------------------------


def add_cli_arguments(parser: argparse.ArgumentParser, short_flags: bool = True) -> None:
    """Add the GOAL simulation options (``--goal``, ``-L`` ... ``-S``, ``--order``).

    The LogGP parameters take LogGOPSim's flags: ``-L -o -g -G -O -S`` and its long forms
    ``--LogGOPS_L`` ... ``--LogGOPS_S``. A verb that needs one of the short letters for
    something else passes ``short_flags=False`` and keeps only the long forms.
    """
    group = parser.add_argument_group("GOAL schedules (LogGOPSim-compatible LogGP simulation)")
    group.add_argument(
        "--goal",
        metavar="FILE",
        help="simulate a GOAL schedule (LogGOPSim's text format, or .pjgoal) under LogGP",
    )
    defaults = LogGP()
    for flag, name, what in (
        ("-L", "L", "latency, ns"),
        ("-o", "o", "CPU overhead per message, ns"),
        ("-g", "g", "NIC gap per message, ns"),
        ("-G", "G", "gap per byte, ns"),
        ("-O", "O", "CPU overhead per byte, ns"),
        ("-S", "S", "eager/rendezvous threshold, bytes"),
    ):
        group.add_argument(
            *((flag,) if short_flags else ()),
            f"--LogGOPS_{name}",
            dest=f"loggp_{name}",
            type=int,
            metavar="N",
            default=None,
            help=f"{what} (default {getattr(defaults, name)})",
        )
    group.add_argument(
        "--order",
        choices=ORDERS,
        default="stable",
        help="order of ops that become ready together: 'stable' (schedule order, MPI's) or "
        "'loggopsim' (libstdc++ std::sort, bit-compatible with LogGOPSim) (default: stable)",
    )
    group.add_argument(
        "--allow-unfinished",
        action="store_true",
        help="report an incomplete (deadlocked) run instead of failing with exit status 2",
    )


def run_cli(args: argparse.Namespace, write: Callable[[str], Any] | None = None) -> int:
    """Run ``parjava predict --goal FILE``: print LogGOPSim's report and return 0.

    Errors (malformed file, deadlock without ``--allow-unfinished``) raise
    :class:`parjava.Error`, which the command line turns into exit status 2.
    """
    out = write or (lambda text: print(text))
    if not getattr(args, "goal", None):
        raise UsageError("--goal FILE is required")
    schedule = load(args.goal)
    overrides = {n: getattr(args, f"loggp_{n}", None) for n in ("L", "o", "g", "G", "O", "S")}
    result = schedule.simulate(
        **{k: v for k, v in overrides.items() if v is not None},
        order=args.order,
        check=not args.allow_unfinished,
    )
    out(result.report())
    if not result.complete:
        for u in result.unfinished[:16]:
            out(f"  {u}")
    return 0


__all__ = [
    "ORDERS",
    "LogGP",
    "Schedule",
    "SimulationResult",
    "UnfinishedOp",
    "add_cli_arguments",
    "load",
    "parse",
    "pattern",
    "patterns",
    "run_cli",
]
