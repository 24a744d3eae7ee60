"""The target machine: nodes, networks, thread costs (``parjava.Machine``).

A :class:`Machine` is what the interpreter and the pattern scanner know about the computer a
program runs on: how many nodes, cores and ranks per node; how long a point-to-point message
takes inside a node and between nodes (Hockney, LogGP or a measured table); the eager limit;
the costs of thread primitives; and the processor speed ratio ``power``. Units are SI
(seconds, bytes, bytes per second); wherever a quantity is accepted, a string with a unit
works too (``"1.27 us"``, ``"12.4 GB/s"``, ``"4 KiB"``).

Get one with :meth:`Machine.measure` (runs netbench under mpirun), :meth:`Machine.load`,
:meth:`Machine.preset`, :meth:`Machine.from_predictor_par`, or build one by hand::

    import parjava as pj
    m = pj.Machine.measure(np=2)
    m.p2p_time(4096)                       # seconds, intra-node
    cluster = m.with_layout(nodes=64).with_networks(
        inter_node=pj.Machine.preset("infiniband-edr").inter_node)
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Union

from ._core_loader import load_core
from ._paths import external_program, tool_path
from ._progress import Progress
from .errors import MachineError, RunError, UsageError
from .topology import Topology

_core = load_core()

Quantity = Union[float, int, str]
PathLike = Union[str, "os.PathLike[str]"]

__all__ = ["Machine", "Network", "ThreadCosts", "format_bandwidth", "format_size", "format_time"]

format_time = _core.format_time
format_bandwidth = _core.format_bandwidth
format_size = _core.format_size

_Dimension = _core.Dimension


def _quantity(value: Quantity, dimension: Any, field: str) -> float:
    """Return a number in SI units, or a string with a unit, as SI."""
    if isinstance(value, bool):
        raise UsageError(f"{field}: expected a number or a string with a unit, got {value!r}")
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        return float(_core.parse_quantity(value, dimension, field))
    raise UsageError(
        f"{field}: expected a number or a string with a unit, got {type(value).__name__}"
    )


def _size(value: Quantity, field: str) -> int:
    """Bytes as a whole number; "unlimited" for an eager limit that never ends."""
    if isinstance(value, str) and value.strip() == "unlimited":
        return int(_core.unlimited_eager)
    number = _quantity(value, _Dimension.Size, field)
    if number < 0 or number != int(number):
        raise UsageError(f"{field}: a size must be a whole number of bytes >= 0, got {value!r}")
    return int(number)


class Network:
    """One network (intra-node or inter-node): how long a message of n bytes takes.

    Build with :meth:`hockney`, :meth:`loggp` or :meth:`table`; ``p2p_time`` gives the one-way
    time (see ``cpp/include/parjava/machine/network.hpp`` for each model's exact formula).
    """

    def __init__(self, core: Any) -> None:
        self._core = core

    @classmethod
    def hockney(cls, latency: Quantity, bandwidth: Quantity, eager_limit: Quantity) -> Network:
        """Hockney's model: ``latency + n / bandwidth``."""
        return cls(
            _core.Network.hockney(
                _quantity(latency, _Dimension.Time, "latency"),
                _quantity(bandwidth, _Dimension.Bandwidth, "bandwidth"),
                _size(eager_limit, "eager_limit"),
            )
        )

    @classmethod
    def loggp(
        cls,
        L: Quantity,  # noqa: N803 - the model's own parameter names
        o: Quantity,
        g: Quantity,
        G: Quantity,  # noqa: N803
        O: Quantity,  # noqa: N803, E741
        S: Quantity,  # noqa: N803
    ) -> Network:
        """LogGP(S) with LogGOPSim's meaning: one-way time ``2o + L + (n-1) max(G, O)``."""
        return cls(
            _core.Network.loggp(
                _quantity(L, _Dimension.Time, "L"),
                _quantity(o, _Dimension.Time, "o"),
                _quantity(g, _Dimension.Time, "g"),
                _quantity(G, _Dimension.TimePerByte, "G"),
                _quantity(O, _Dimension.TimePerByte, "O"),
                _size(S, "S"),
            )
        )

    @classmethod
    def table(cls, points: Iterable[tuple[Quantity, Quantity]], eager_limit: Quantity) -> Network:
        """Build a measured size -> one-way time table, interpolated linearly between points."""
        pairs = [
            (
                _size(n, f"points[{i}].bytes"),
                _quantity(t, _Dimension.Time, f"points[{i}].seconds"),
            )
            for i, (n, t) in enumerate(points)
        ]
        return cls(_core.Network.table(pairs, _size(eager_limit, "eager_limit")))

    @property
    def kind(self) -> str:
        """``"hockney"``, ``"loggp"`` or ``"table"``."""
        return str(self._core.kind)

    @property
    def eager_limit(self) -> int:
        """The largest message size sent eagerly, in bytes."""
        return int(self._core.eager_limit)

    @property
    def parameters(self) -> dict[str, float]:
        """The model's parameters in SI units (empty but for the eager limit for a table)."""
        return dict(self._core.parameters)

    @property
    def points(self) -> list[tuple[int, float]]:
        """The (bytes, seconds) points of a measured table; empty for the other kinds."""
        return list(self._core.points)

    def p2p_time(self, nbytes: Any) -> Any:
        """One-way time in seconds for ``nbytes`` (an int, or an array of sizes)."""
        return self._core.p2p_time(nbytes)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Network) and bool(self._core == other._core)

    def __hash__(self) -> int:
        return hash(self._core.describe())

    def __repr__(self) -> str:
        return f"<Network {self._core.describe()}>"


class ThreadCosts:
    """Costs of thread primitives in seconds (notes 000 §3.6); ``copy_per_byte`` per byte.

    Fields: create, start, lock, try_lock, release, atomic_create, atomic_cas,
    semaphore_create, copy_per_byte, team_start. Every field is required when building by hand
    but ``team_start`` (an OpenMP region's fork/join per team thread), which defaults to
    ``start``.
    """

    FIELDS: tuple[str, ...] = tuple(_core.ThreadCosts.field_names)

    def __init__(self, core: Any = None, **costs: Quantity) -> None:
        if core is not None:
            self._core = core
            return
        if "team_start" not in costs and "start" in costs:
            costs = {**costs, "team_start": costs["start"]}
        missing = [name for name in self.FIELDS if name not in costs]
        unknown = sorted(set(costs) - set(self.FIELDS))
        if unknown:
            raise UsageError(
                f"unknown thread cost(s) {', '.join(unknown)} (known: {', '.join(self.FIELDS)})"
            )
        if missing:
            raise UsageError(
                f"missing thread cost(s) {', '.join(missing)}; give all of {', '.join(self.FIELDS)}"
            )
        self._core = _core.ThreadCosts()
        for name in self.FIELDS:
            dimension = _Dimension.TimePerByte if name == "copy_per_byte" else _Dimension.Time
            self._core.set(name, _quantity(costs[name], dimension, f"threads.{name}"))
        self._core.validate("threads")

    @classmethod
    def zero(cls) -> ThreadCosts:
        """All costs zero (ParJava's simplification for the negligible ones, taken to all)."""
        return cls(**dict.fromkeys(cls.FIELDS, 0.0))

    def __getattr__(self, name: str) -> float:
        if name in ThreadCosts.FIELDS:
            return float(self._core.get(name))
        raise AttributeError(name)

    def to_dict(self) -> dict[str, float]:
        """Return the costs by name, in seconds."""
        return {name: float(self._core.get(name)) for name in self.FIELDS}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ThreadCosts) and bool(self._core == other._core)

    def __hash__(self) -> int:
        return hash(tuple(self.to_dict().values()))

    def __repr__(self) -> str:
        inner = ", ".join(
            f"{name}={format_time(value)}" + ("/B" if name == "copy_per_byte" else "")
            for name, value in self.to_dict().items()
        )
        return f"ThreadCosts({inner})"


def _mpirun() -> str:
    return external_program(
        "mpirun",
        "install an MPI (`apt-get install -y openmpi-bin libopenmpi-dev`) or put mpirun on PATH",
    )


def _is_open_mpi(mpirun: str) -> bool:
    try:
        out = subprocess.run(
            [mpirun, "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "Open MPI" in out.stdout or "OpenRTE" in out.stdout


def _mpi_environment() -> dict[str, str]:
    env = dict(os.environ)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        # Open MPI refuses to run as root without both of these.
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    return env


class Machine:
    """A machine description; see the module docstring and docs/guide/machine.md."""

    def __init__(
        self,
        *,
        name: str,
        nodes: int,
        cores_per_node: int,
        ranks_per_node: int,
        intra_node: Network,
        inter_node: Network | None,
        threads: ThreadCosts,
        power: Quantity = 1.0,
        description: str = "",
        sources: Sequence[str] = (),
    ) -> None:
        if not isinstance(intra_node, Network):
            raise UsageError("intra_node must be a parjava.Network (e.g. Network.hockney(...))")
        if inter_node is not None and not isinstance(inter_node, Network):
            raise UsageError("inter_node must be a parjava.Network or None")
        if not isinstance(threads, ThreadCosts):
            raise UsageError("threads must be a parjava.ThreadCosts (ThreadCosts.zero() for none)")
        self._core = _core.Machine(
            name,
            int(nodes),
            int(cores_per_node),
            int(ranks_per_node),
            intra_node._core,
            None if inter_node is None else inter_node._core,
            threads._core,
            _quantity(power, _Dimension.Ratio, "power"),
        )
        self._core.description = description
        self._core.sources = list(sources)

    @classmethod
    def _wrap(cls, core: Any) -> Machine:
        machine = cls.__new__(cls)
        machine._core = core
        return machine

    # ------------------------------------------------------------------ constructors

    @classmethod
    def preset(cls, name: str) -> Machine:
        """Return a preset: ``"infiniband-edr"``, ``"ethernet-10g"`` or ``"shared-memory"``.

        Their numbers and sources are listed in docs/guide/machine.md ("Machine presets") and in
        ``machine.sources``.
        """
        return cls._wrap(_core.Machine.preset(name))

    @staticmethod
    def preset_names() -> list[str]:
        """Return the names :meth:`preset` accepts."""
        return list(_core.Machine.preset_names())

    @classmethod
    def load(cls, path: PathLike) -> Machine:
        """Read a machine JSON file (strict: every problem is a :class:`MachineError`)."""
        return cls._wrap(_core.Machine.load(os.fspath(path)))

    @classmethod
    def from_json(cls, text: str, origin: str = "<string>") -> Machine:
        """Parse machine JSON text; ``origin`` names it in error messages."""
        return cls._wrap(_core.Machine.from_json(text, origin))

    @classmethod
    def from_predictor_par(cls, path: PathLike) -> Machine:
        """Read a DVM ``Predictor.par`` file (seed 002 §1.3.2); mapping in docs/guide/machine.md."""
        return cls._wrap(_core.Machine.from_predictor_par(os.fspath(path)))

    @classmethod
    def from_simgrid(cls, path: PathLike, **options: Any) -> Machine:
        """Read a SimGrid platform file (``<cluster>``, hosts, links, routes, SMPI factors).

        The same file then drives SimGrid/SMPI and parjava; options (``ranks_per_node``,
        ``smpi_defaults``, ``name``) and the mapping are in
        :func:`parjava.simgrid.machine_document` and docs/networks.md.
        """
        from .simgrid import machine_document

        document = machine_document(path, **options)
        return cls.from_json(json.dumps(document), os.fspath(path))

    @classmethod
    def measure(
        cls,
        np: int = 2,
        *,
        quick: bool = True,
        output: PathLike | None = None,
        name: str | None = None,
        max_bytes: Quantity | None = None,
        ci: float | None = None,
        mpirun_args: Sequence[str] = (),
        timeout: float | None = None,
        progress: bool | None = None,
    ) -> Machine:
        """Measure this machine with netbench under mpirun and return it.

        ``np`` ranks are started (with ``--oversubscribe`` under Open MPI, so more ranks than
        cores work); ``quick`` (default) takes seconds, ``quick=False`` is the thorough mode
        (about a minute). The JSON is written to ``output`` when given (else to a temporary
        file that is removed). ``mpirun_args`` are passed to mpirun before the program (e.g.
        ``["--host", "a,b"]``). Raises :class:`MissingDependencyError` when mpirun or netbench
        is missing and :class:`RunError` when the run fails, with the end of its error output.
        """
        if int(np) < 2:
            raise UsageError(f"netbench needs at least 2 ranks (np={np})")
        mpirun = _mpirun()
        netbench = str(tool_path("netbench", "bin"))
        if timeout is None:
            timeout = 600.0 if quick else 3600.0
        with tempfile.TemporaryDirectory(prefix="parjava-netbench-") as scratch:
            target = Path(output) if output is not None else Path(scratch) / "machine.json"
            target.parent.mkdir(parents=True, exist_ok=True)
            command = [mpirun]
            if _is_open_mpi(mpirun):
                command.append("--oversubscribe")
            command += ["-np", str(int(np)), *mpirun_args, netbench]
            command += ["--quick" if quick else "--thorough", "-o", str(target), "--progress"]
            if name is not None:
                command += ["--name", name]
            if max_bytes is not None:
                command += ["--max-bytes", str(_size(max_bytes, "max_bytes"))]
            if ci is not None:
                command += ["--ci", str(float(ci))]
            _run_with_progress(command, timeout, progress)
            try:
                return cls.load(target)
            except MachineError as exc:
                raise RunError(f"netbench finished but its output cannot be read: {exc}") from exc

    # ------------------------------------------------------------------ saving

    def save(self, path: PathLike) -> Path:
        """Write the machine as JSON (schema in docs/guide/machine.md); returns the path."""
        target = Path(path)
        self._core.save(os.fspath(target))
        return target

    def to_json(self, indent: int = 2) -> str:
        """Return the machine as JSON text."""
        return str(self._core.to_json(indent))

    # ------------------------------------------------------------------ contents

    @property
    def name(self) -> str:
        """The machine's name."""
        return str(self._core.name)

    @property
    def description(self) -> str:
        """What the machine is and where its numbers come from."""
        return str(self._core.description)

    @property
    def sources(self) -> list[str]:
        """The public sources or the measurement behind the numbers."""
        return list(self._core.sources)

    @property
    def nodes(self) -> int:
        """Number of nodes."""
        return int(self._core.nodes)

    @property
    def cores_per_node(self) -> int:
        """Cores (hardware threads) per node."""
        return int(self._core.cores_per_node)

    @property
    def ranks_per_node(self) -> int:
        """Ranks per node; ranks are placed in blocks of this many per node."""
        return int(self._core.ranks_per_node)

    @property
    def max_ranks(self) -> int:
        """Number of ranks the machine holds: nodes * ranks_per_node."""
        return int(self._core.max_ranks)

    @property
    def power(self) -> float:
        """DVM's processor speed ratio: measured-processor speed / target-processor speed."""
        return float(self._core.power)

    @property
    def intra_node(self) -> Network:
        """The network between ranks on one node."""
        return Network(self._core.intra_node)

    @property
    def inter_node(self) -> Network | None:
        """The network between nodes (None for a single-node machine)."""
        core = self._core.inter_node
        return None if core is None else Network(core)

    @property
    def threads(self) -> ThreadCosts:
        """Thread primitive costs."""
        return ThreadCosts(self._core.threads)

    @property
    def measurement(self) -> dict[str, Any] | None:
        """What netbench measured (raw tables, fits, probes, notes), or None."""
        if not self._core.has_measurement:
            return None
        document: dict[str, Any] = json.loads(self._core.to_json(-1))
        return document.get("measurement")

    def node_of(self, rank: int) -> int:
        """Return the node a rank runs on (by the machine's placement)."""
        return int(self._core.node_of(rank))

    # ------------------------------------------------------------------ wiring

    @property
    def topology(self) -> Topology:
        """How the nodes are wired (:class:`parjava.Topology`; a crossbar unless given)."""
        return Topology.from_dict(json.loads(self._core.topology_json))

    @property
    def placement(self) -> str | list[int]:
        """``"block"``, ``"round_robin"``, or the node of every rank (from a file)."""
        document = json.loads(self._core.placement_json)
        return list(document["nodes"]) if document["kind"] == "explicit" else document["kind"]

    @property
    def endpoint_contention(self) -> bool:
        """Whether the ranks of a node share its NIC (messages crossing it are serialised)."""
        return bool(self._core.endpoint_contention)

    @property
    def node_names(self) -> list[str]:
        """Names of the nodes (a SimGrid platform's host names), or an empty list."""
        return list(self._core.node_names)

    def with_topology(self, topology: Topology | dict[str, Any] | str) -> Machine:
        """Return a copy wired by ``topology`` (a Topology, its JSON dict, or ``"crossbar"``)."""
        if isinstance(topology, str):
            if topology != "crossbar":
                raise UsageError("a topology given by name can only be 'crossbar'")
            topology = Topology.crossbar()
        elif isinstance(topology, dict):
            topology = Topology.from_dict(topology)
        return Machine._wrap(self._core.with_topology_json(json.dumps(topology.to_dict())))

    def with_placement(
        self,
        placement: str | Sequence[int] = "block",
        *,
        file: PathLike | None = None,
    ) -> Machine:
        """Return a copy with another placement of the ranks.

        ``"block"``-wise, ``"round_robin"``, on the given node of every rank, or as a placement
        ``file`` says (one rank per line: a node index or name,
        optionally ``:count``; SMPI's hostfile form).
        """
        if file is not None:
            return Machine._wrap(self._core.with_placement_file(os.fspath(file)))
        if isinstance(placement, str):
            if placement not in ("block", "round_robin"):
                raise UsageError(
                    f"placement must be 'block', 'round_robin', a list of nodes or file=, "
                    f"got {placement!r}"
                )
            document: dict[str, Any] = {"kind": placement}
        else:
            document = {"kind": "explicit", "nodes": [int(n) for n in placement]}
        return Machine._wrap(self._core.with_placement_json(json.dumps(document)))

    def with_endpoint_contention(self, on: bool) -> Machine:
        """Return a copy whose NICs are (or are not) shared by the messages crossing them."""
        return Machine._wrap(self._core.with_endpoint_contention(bool(on)))

    def with_node_names(self, names: Sequence[str]) -> Machine:
        """Return a copy with names for its nodes (one per node)."""
        return Machine._wrap(self._core.with_node_names([str(n) for n in names]))

    def same_node(self, rank_a: int, rank_b: int) -> bool:
        """Whether two ranks share a node."""
        return bool(self._core.same_node(rank_a, rank_b))

    def eager_limit(self, intra_node: bool = True) -> int:
        """Return the largest message size (bytes) sent eagerly on the chosen network."""
        return int(self._core.eager_limit(intra_node))

    def p2p_time(self, nbytes: Any, intra_node: bool = True) -> Any:
        """One-way time in seconds of a message of ``nbytes`` (int or array of sizes)."""
        return self._core.p2p_time(nbytes, intra_node)

    def p2p_time_between(self, nbytes: int, rank_a: int, rank_b: int) -> float:
        """One-way time between two ranks, over the network their placement implies."""
        return float(self._core.p2p_time_between(nbytes, rank_a, rank_b))

    # ------------------------------------------------------------------ what-if copies

    def with_layout(
        self,
        nodes: int | None = None,
        cores_per_node: int | None = None,
        ranks_per_node: int | None = None,
    ) -> Machine:
        """Return a copy with another node count or layout (values not given are kept)."""
        return Machine._wrap(
            self._core.with_layout(
                self.nodes if nodes is None else int(nodes),
                self.cores_per_node if cores_per_node is None else int(cores_per_node),
                self.ranks_per_node if ranks_per_node is None else int(ranks_per_node),
            )
        )

    def with_networks(
        self, intra_node: Network | None = None, inter_node: Network | None = None
    ) -> Machine:
        """Return a copy with other networks (a network not given is kept)."""
        intra = self._core.intra_node if intra_node is None else intra_node._core
        inter = self._core.inter_node if inter_node is None else inter_node._core
        return Machine._wrap(self._core.with_networks(intra, inter))

    def with_threads(self, threads: ThreadCosts) -> Machine:
        """Return a copy with other thread costs."""
        return Machine._wrap(self._core.with_threads(threads._core))

    def with_power(self, power: Quantity) -> Machine:
        """Return a copy with another processor speed ratio."""
        return Machine._wrap(self._core.with_power(_quantity(power, _Dimension.Ratio, "power")))

    def fitted(self, model: str = "loggp") -> Machine:
        """Return a copy whose measured networks are replaced by a fit (``hockney``/``loggp``).

        Only for measured machines; the eager limit is kept.
        """
        measurement = self.measurement
        if measurement is None:
            raise UsageError(f"machine {self.name!r} was not measured, so it has no fits")
        if model not in ("hockney", "loggp"):
            raise UsageError(f"model must be 'hockney' or 'loggp', got {model!r}")
        networks: dict[str, Network] = {}
        for series in measurement["ping_pong"]:
            fit = series[model]
            if fit is None:
                raise UsageError(f"netbench could not fit {model} for {series['pair']}")
            if model == "hockney":
                networks[series["pair"]] = Network.hockney(
                    fit["latency"], fit["bandwidth"], series["eager_limit"]
                )
            else:
                networks[series["pair"]] = Network.loggp(
                    fit["L"], fit["o"], fit["g"], fit["G"], fit["O"], series["eager_limit"]
                )
        return self.with_networks(networks.get("intra_node"), networks.get("inter_node"))

    # ------------------------------------------------------------------ display

    def table(self, pair: str = "intra_node") -> Any:
        """Return the measured ping-pong table with the model's time next to each point.

        Columns: bytes, seconds (mean one-way), ci95, samples, discarded, model_seconds,
        model_error (relative). A pandas DataFrame when pandas is installed, else a list of
        dicts. For an unmeasured machine the rows are the model's times at netbench's sizes.
        """
        rows: list[dict[str, Any]] = []
        measurement = self.measurement
        intra = pair == "intra_node"
        if pair not in ("intra_node", "inter_node"):
            raise UsageError(f"pair must be 'intra_node' or 'inter_node', got {pair!r}")
        series = None
        if measurement is not None:
            series = next((s for s in measurement["ping_pong"] if s["pair"] == pair), None)
        if series is not None:
            for point in series["points"]:
                model = float(self.p2p_time(point["bytes"], intra))
                rows.append(
                    {
                        "bytes": point["bytes"],
                        "seconds": point["seconds"],
                        "ci95": point["ci95"],
                        "samples": point["samples"],
                        "discarded": point["discarded"],
                        "model_seconds": model,
                        "model_error": abs(model - point["seconds"]) / point["seconds"]
                        if point["seconds"] > 0
                        else 0.0,
                    }
                )
        else:
            if not intra and self.inter_node is None:
                raise UsageError(f"machine {self.name!r} has no inter-node network")
            sizes = [0] + [2**k for k in range(23)]
            for n in sizes:
                rows.append({"bytes": n, "model_seconds": float(self.p2p_time(n, intra))})
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - pandas is optional
            return rows
        return pd.DataFrame(rows)

    def summary(self) -> str:
        """Return a readable multi-line description (used by repr and the command line)."""
        return _summary_text(self)

    def __repr__(self) -> str:
        return self.summary()

    def _repr_html_(self) -> str:
        return _summary_html(self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Machine) and bool(self._core == other._core)

    def __hash__(self) -> int:
        return hash(self.to_json(-1))


# ---------------------------------------------------------------------- running netbench


def _run_with_progress(command: list[str], timeout: float, progress: bool | None) -> None:
    """Run netbench, turning its ``progress`` lines into a bar; raise RunError on failure."""
    try:
        process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_mpi_environment(),
        )
    except OSError as exc:
        raise RunError(f"cannot start {command[0]}: {exc}") from exc
    stdout_lines: list[str] = []
    reader = threading.Thread(target=lambda: stdout_lines.extend(process.stdout or []), daemon=True)
    reader.start()
    errors: list[str] = []
    deadline = time.monotonic() + timeout
    timer = threading.Timer(timeout, process.kill)
    timer.start()
    try:
        with Progress(1, "netbench", progress) as bar:
            assert process.stderr is not None
            for line in process.stderr:
                parts = line.rstrip("\n").split(" ", 3)
                if len(parts) >= 3 and parts[0] == "progress" and parts[1].isdigit():
                    bar.total = max(int(parts[2]), 1)
                    bar.advance(int(parts[1]) - bar.done, parts[3] if len(parts) > 3 else "")
                else:
                    errors.append(line.rstrip("\n"))
        status = process.wait()
    finally:
        timer.cancel()
    reader.join(timeout=5)
    if time.monotonic() >= deadline and status != 0:
        raise RunError(
            f"netbench did not finish within {timeout:.0f} s and was stopped; rerun with a "
            "longer timeout or quick=True\n  command: " + " ".join(command)
        )
    if status != 0:
        tail = "\n".join(f"  | {line}" for line in (errors + stdout_lines)[-20:]) or "  (no output)"
        raise RunError(
            f"netbench failed with exit status {status}\n  command: {' '.join(command)}\n"
            f"  last output:\n{tail}"
        )


# ---------------------------------------------------------------------- text and HTML


from ._machine_display import _summary_html, _summary_text, ping_pong_text  # noqa: E402, F401
