"""The program model: ParJava's control tree, built by hand, from JSON or by the frontend.

A model is a tree per function whose internal nodes are statements (sequence, if, if-else,
switch, for, while, do-while, task groups) and whose leaves are blocks: computational blocks
with a time, calls, communication operations (MPI, threads, PGAS), returns, breaks and reduced
blocks (seed 000 notes §2.3-§2.7). Loop bounds, conditions, times and communication arguments
are expressions over program parameters, ``rank``, ``size``, ``thread``, ``nthreads`` and
variables. The JSON schema is documented in ``docs/model-schema.md``.

Build one by hand::

    m = pj.Model("ring", params={"niter": 100, "N": 4096}, file="ring.c")
    with m.loop("i", 0, "niter", line=10):
        m.compute("2e-9 * N * N / size", line=11)
        m.sendrecv(dest="(rank + 1) % size", sendbytes="8 * N",
                   source="(rank - 1 + size) % size", line=12)
    m.allreduce(bytes=8, line=14)
    pred = pj.interpret(m, machine, np=[1, 2, 4, 8])
"""

from __future__ import annotations

import copy
import html
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Union

from . import _arguments
from ._core_loader import load_core
from .errors import ModelError, UsageError

Expr = Union[str, int, float]
"""An expression: text such as ``"N / size"`` or a number."""

TimeLike = Union[float, int, str, tuple, Mapping[str, Any]]
"""A time: seconds, an expression string, ``(mean, sigma, samples)`` or a dict of those."""

_STATEMENTS = {"seq", "if", "if-else", "switch", "for", "while", "do-while", "task_group"}


def measured(mean: float, sigma: float = 0.0, samples: int = 1) -> dict[str, Any]:
    """Describe a measured block time: mean and deviation (s) over ``samples`` runs."""
    return {"mean": float(mean), "sigma": float(sigma), "samples": int(samples)}


def measured_arg(expr: Expr, by_rank: Sequence[Sequence[int]]) -> dict[str, Any]:
    """Describe a communication argument measured per rank (docs/model-schema.md).

    ``by_rank[r]`` is the sequence of values rank ``r`` passed at the call site in a run at
    ``np = len(by_rank)``; ``expr`` is used at other process counts (with a warning). Use it as
    an argument of a communication leaf: ``m.send(dest=measured_arg(0, [[1], [0]]), bytes=8)``.
    """
    return {"expr": _expr(expr), "by_rank": [[int(v) for v in values] for values in by_rank]}


def _arg(value: Any) -> Any:
    """Check a cfc argument: an expression, or a measured ``{expr, by_rank}`` mapping."""
    if isinstance(value, Mapping):
        if set(value) - {"expr", "by_rank"} or "expr" not in value:
            raise UsageError(
                "a measured argument is {'expr': fallback expression, 'by_rank': [[values], ...]}"
            )
        return measured_arg(value["expr"], value.get("by_rank", []))
    return _expr(value)


def _by_rank(by_rank: Sequence[Mapping[str, Any]] | None) -> list[dict[str, Any]] | None:
    """Per-rank opaque statistics (docs/model-schema.md): one mapping per estimation rank."""
    if by_rank is None:
        return None
    out = []
    for entry in by_rank:
        if not isinstance(entry, Mapping):
            raise UsageError(
                "by_rank entries are mappings such as {'probability': 0.5, 'samples': 10}"
            )
        out.append(dict(entry))
    return out


def _expr(value: Expr) -> str | int | float:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float, str)):
        return value
    raise UsageError(f"an expression must be a string or a number, not {type(value).__name__}")


def _atom(value: Expr) -> str:
    """Return the expression as an operand, parenthesised unless it is a name or a number."""
    text = str(_expr(value))
    if text.replace("_", "a").replace(".", "0").isalnum():
        return text
    return f"({text})"


def _time(value: TimeLike) -> Any:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        return value
    if isinstance(value, tuple) and len(value) == 3:
        return measured(*value)
    if isinstance(value, Mapping):
        return dict(value)
    raise UsageError(
        "a time is seconds (a number), an expression (a string) or (mean, sigma, samples)"
    )


class Model:
    """A program model; build it with the methods below or load it with :meth:`load`.

    Every builder method appends a node to the innermost open statement and returns its id.
    Statements are context managers: ``with m.loop(...):`` opens the loop body.
    """

    def __init__(
        self,
        name: str = "model",
        params: Mapping[str, int | float] | None = None,
        file: str | None = None,
        entry: str = "main",
    ) -> None:
        self._doc: dict[str, Any] = {
            "format": "parjava-model",
            "version": 1,
            "name": name,
            "entry": entry,
            "files": [file] if file else [],
            "parameters": dict(params or {}),
            "functions": [],
            "nodes": [],
        }
        self._nodes: dict[int, dict[str, Any]] = {}
        self._next_id = 1
        self._stack: list[int] = []  # open statements (node ids), innermost last
        self._last_closed: int | None = None
        self._native: Any = None
        self._base_dir: Path | None = None
        # The entry function is always open at the bottom of the stack, so simple models need
        # no `with m.function(...)`.
        self._stack = [self._ensure_function(entry, (), None)]

    # ---- loading and saving -------------------------------------------------------------

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Model:
        """Read and validate a model JSON file (raises :class:`parjava.ModelError`)."""
        core = load_core()
        native = core.Model.load(str(path))
        model = cls._from_native(native)
        model._base_dir = Path(path).resolve().parent
        return model

    @classmethod
    def from_json(cls, text: str) -> Model:
        """Parse and validate a model from JSON text."""
        core = load_core()
        return cls._from_native(core.Model.from_json(text, "<string>"))

    @classmethod
    def _from_native(cls, native: Any) -> Model:
        model = cls.__new__(cls)
        model._doc = json.loads(native.to_json(-1))
        model._nodes = {n["id"]: n for n in model._doc["nodes"]}
        model._next_id = max(model._nodes, default=0) + 1
        model._last_closed = None
        model._native = native
        model._base_dir = None
        entry = [f for f in model._doc["functions"] if f["name"] == model._doc["entry"]]
        model._stack = [entry[0]["body"]] if entry else []
        return model

    def to_json(self, indent: int | None = 1) -> str:
        """Return the validated JSON text of the model (schema in docs/model-schema.md)."""
        return self.native().to_json(-1 if indent is None else indent)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Validate and write the model as JSON."""
        self.native().save(str(path))

    def copy(self) -> Model:
        """Return an independent copy (for what-if edits)."""
        return Model.from_json(self.to_json(None))

    def native(self) -> Any:
        """Return the validated C++ model (``parjava._core.Model``); ModelError if invalid."""
        if len(self._stack) > 1:
            open_ids = ", ".join(str(i) for i in self._stack[1:])
            raise ModelError(f"model '{self.name}': statements {open_ids} are still open")
        if self._native is None:
            core = load_core()
            self._native = core.Model.from_json(json.dumps(self._doc), f"model '{self.name}'")
        return self._native

    def validate(self) -> Model:
        """Check the whole model; raises :class:`parjava.ModelError` naming node and field."""
        self.native()
        return self

    # ---- facts ----------------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The model's name."""
        return str(self._doc["name"])

    @property
    def parameters(self) -> dict[str, int | float]:
        """Program parameters and their default values."""
        out: dict[str, int | float] = {}
        for key, value in self._doc["parameters"].items():
            out[key] = value["value"] if isinstance(value, dict) else value
        return out

    def arguments(self, argv: Sequence[str]) -> dict[str, int | float]:
        """Return the parameters a command line sets (``argv[0]``, the program, first).

        ``argc``/``argv<k>`` come from their positions; the inputs the model builder named
        after their variables (``nSteps``, ``nx``) from the options that set them (``-N 100``,
        ``--nSteps=100``, ``-N100``), else the program's default. Use the result as ``params=``
        of :func:`parjava.interpret`, e.g. ``model.arguments(["./jacobi2d", "4096", "100"])``.
        """
        check = self._doc.get("self_check") or {}
        return _arguments.arguments(self._doc["parameters"], argv, check.get("argv"))

    def resolve_params(self, params: Mapping[str, int | float] | None) -> dict[str, int | float]:
        """Map the names of ``params=`` to parameter names.

        Besides a parameter's name, a key may be an option that sets it (``"--nSteps"``) or a
        variable it sets (``"cmd.nSteps"``); an unknown key is a :class:`parjava.UsageError`.
        """
        return _arguments.resolve(self._doc["parameters"], params)

    @property
    def self_check(self) -> dict[str, Any] | None:
        """The estimation's self-check (docs/model-schema.md), None when the model has none."""
        check = self._doc.get("self_check")
        return dict(check) if isinstance(check, dict) else None

    @property
    def files(self) -> list[str]:
        """Source files the nodes refer to."""
        return list(self._doc["files"])

    @property
    def functions(self) -> list[str]:
        """Names of the model's functions."""
        return [f["name"] for f in self._doc["functions"]]

    def node(self, node_id: int) -> dict[str, Any]:
        """Return the JSON description of one node (a copy)."""
        try:
            return copy.deepcopy(self._nodes[node_id])
        except KeyError:
            raise UsageError(f"model '{self.name}' has no node {node_id}") from None

    def nodes(self) -> list[dict[str, Any]]:
        """JSON descriptions of all nodes."""
        return copy.deepcopy(self._doc["nodes"])

    def __len__(self) -> int:
        return len(self._doc["nodes"])

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v}" for k, v in self.parameters.items())
        return (
            f"<parjava.Model '{self.name}': {len(self)} nodes, "
            f"{len(self._doc['functions'])} function(s){', ' + params if params else ''}>"
        )

    # ---- reduction (notes 000 §3.4, §3.7) --------------------------------------------------

    def mark_simple(self) -> list[int]:
        """Mark simple fragments; returns the ids of the maximal simple statements."""
        native = self.native()
        ids = list(native.mark_simple())
        self._reload(native)
        return ids

    def reducibility(self, node_id: int) -> tuple[bool, str]:
        """Whether the subtree at ``node_id`` is simple, and if not, why."""
        simple, reason = self.native().reducibility(node_id)
        return bool(simple), str(reason)

    def reduce(
        self, node_id: int, time: TimeLike, assign: Sequence[tuple[str, Expr]] = ()
    ) -> Model:
        """Replace the subtree at ``node_id`` by a reduced block with the given time.

        ``assign`` gives the control variables the subtree sets that are read after it.
        Returns ``self``.
        """
        native = self.native()
        t = _time(time)
        if isinstance(t, dict):
            t = (t["mean"], t.get("sigma", 0.0), t.get("samples", 1))
        native.reduce(node_id, t, [(v, str(e)) for v, e in assign])
        self._reload(native)
        return self

    def _reload(self, native: Any) -> None:
        self._doc = json.loads(native.to_json(-1))
        self._nodes = {n["id"]: n for n in self._doc["nodes"]}
        self._native = native

    # ---- building: structure ---------------------------------------------------------------

    def _changed(self) -> None:
        self._native = None

    def _source(self, line: int | None, column: int | None, file: str | None) -> dict[str, int]:
        if line is None:
            return {}
        src: dict[str, int] = {"line": int(line)}
        if column is not None:
            src["column"] = int(column)
        files: list[str] = self._doc["files"]
        if file is not None:
            if file not in files:
                files.append(file)
            src["file"] = files.index(file)
        elif files:
            src["file"] = 0
        return src

    def _add(
        self,
        kind: str,
        fields: dict[str, Any],
        line: int | None = None,
        column: int | None = None,
        file: str | None = None,
        label: str | None = None,
        parent: bool = True,
    ) -> int:
        node: dict[str, Any] = {"id": self._next_id, "kind": kind}
        self._next_id += 1
        if label:
            node["label"] = label
        src = self._source(line, column, file)
        if src:
            node["source"] = src
        node.update({k: v for k, v in fields.items() if v is not None})
        if kind in _STATEMENTS:
            node.setdefault("children", [])
        self._doc["nodes"].append(node)
        self._nodes[node["id"]] = node
        if parent:
            if not self._stack:
                raise UsageError("no open function: call model.function(name) first")
            self._append_child(self._nodes[self._stack[-1]], node["id"])
        self._last_closed = None
        self._changed()
        return int(node["id"])

    def _append_child(self, parent: dict[str, Any], child: int) -> None:
        if parent["kind"] == "switch":
            raise UsageError("inside a switch, open a case first: with m.case(...):")
        parent["children"].append(child)

    def _body(self, statement_id: int, line: int | None) -> int:
        """Create the body sequence of a statement and return its id."""
        body = self._add("seq", {}, line=line, parent=False)
        self._nodes[statement_id]["children"].append(body)
        return body

    @contextmanager
    def _open(self, statement_id: int, body_id: int) -> Iterator[int]:
        self._stack.append(body_id)
        try:
            yield statement_id
        finally:
            self._stack.pop()
            self._last_closed = statement_id

    def _ensure_function(self, name: str, params: Sequence[str], line: int | None) -> int:
        for f in self._doc["functions"]:
            if f["name"] == name:
                return int(f["body"])
        body = self._add("seq", {}, line=line, parent=False, label=name)
        entry: dict[str, Any] = {"name": name, "params": list(params), "body": body}
        src = self._source(line, None, None)
        if src:
            entry["source"] = src
        self._doc["functions"].append(entry)
        return body

    @contextmanager
    def function(
        self, name: str, params: Sequence[str] = (), line: int | None = None
    ) -> Iterator[int]:
        """Define (or reopen) a function; its body is built inside the ``with`` block."""
        body = self._ensure_function(name, params, line)
        saved = self._stack
        self._stack = [body]
        try:
            yield body
        finally:
            self._stack = saved
            self._changed()

    def parameter(self, name: str, value: int | float, doc: str = "") -> None:
        """Declare or change a program parameter's default value."""
        self._doc["parameters"][name] = {"value": value, "doc": doc} if doc else value
        self._changed()

    def global_variable(self, name: str, init: Expr = 0) -> None:
        """Declare a global control variable (one copy per process)."""
        self._doc.setdefault("globals", []).append({"name": name, "init": _expr(init)})
        self._changed()

    def loop(
        self,
        var: str,
        start: Expr,
        stop: Expr,
        step: Expr = 1,
        *,
        cond_time: TimeLike | None = None,
        line: int | None = None,
        label: str | None = None,
    ) -> Any:
        """Open a counted ``for`` loop: ``for (var = start; var < stop; var += step)``.

        A negative constant step counts down (``var > stop``).
        """
        down = isinstance(step, (int, float)) and step < 0
        cond = f"{var} {'>' if down else '<'} {_atom(stop)}"
        update = f"{var} - {_atom(-step)}" if down else f"{var} + {_atom(step)}"  # type: ignore[operator]
        return self.for_(
            init=[(var, start)],
            cond=cond,
            update=[(var, update)],
            cond_time=cond_time,
            line=line,
            label=label or f"for {var}",
        )

    def for_(
        self,
        init: Sequence[tuple[str, Expr]] = (),
        cond: Expr | None = None,
        update: Sequence[tuple[str, Expr]] = (),
        *,
        trips: float | None = None,
        distribution: Sequence[tuple[int, float]] | None = None,
        samples: int | None = None,
        by_rank: Sequence[Mapping[str, Any]] | None = None,
        cond_time: TimeLike | None = None,
        line: int | None = None,
        label: str | None = None,
    ) -> Any:
        """Open a general ``for``; give ``cond`` or, for data-dependent loops, ``trips``.

        ``by_rank`` adds per-rank statistics (``[{"trips": 3, "samples": 10}, ...]``, one per
        rank of the estimation run; docs/model-schema.md "Opaque conditions").
        """
        fields: dict[str, Any] = {
            "init": [[v, _expr(e)] for v, e in init] or None,
            "cond": _expr(cond) if cond is not None else None,
            "update": [[v, _expr(e)] for v, e in update] or None,
            "opaque": _opaque(None, trips, distribution, samples, by_rank),
            "cond_time": _time(cond_time) if cond_time is not None else None,
        }
        node = self._add("for", fields, line=line, label=label)
        return self._open(node, self._body(node, None))

    def while_(
        self,
        cond: Expr | None = None,
        *,
        probability: float | None = None,
        trips: float | None = None,
        distribution: Sequence[tuple[int, float]] | None = None,
        samples: int | None = None,
        by_rank: Sequence[Mapping[str, Any]] | None = None,
        cond_time: TimeLike | None = None,
        line: int | None = None,
        label: str | None = None,
    ) -> Any:
        """Open a ``while`` loop with a condition, or opaque ``trips`` / ``probability``."""
        return self._loop_like(
            "while",
            cond,
            probability,
            trips,
            distribution,
            samples,
            cond_time,
            line,
            label,
            by_rank,
        )

    def do_while(
        self,
        cond: Expr | None = None,
        *,
        probability: float | None = None,
        trips: float | None = None,
        distribution: Sequence[tuple[int, float]] | None = None,
        samples: int | None = None,
        by_rank: Sequence[Mapping[str, Any]] | None = None,
        cond_time: TimeLike | None = None,
        line: int | None = None,
        label: str | None = None,
    ) -> Any:
        """Open a ``do-while`` loop (body first), with a condition or opaque statistics."""
        return self._loop_like(
            "do-while",
            cond,
            probability,
            trips,
            distribution,
            samples,
            cond_time,
            line,
            label,
            by_rank,
        )

    def _loop_like(
        self,
        kind: str,
        cond: Expr | None,
        probability: float | None,
        trips: float | None,
        distribution: Sequence[tuple[int, float]] | None,
        samples: int | None,
        cond_time: TimeLike | None,
        line: int | None,
        label: str | None,
        by_rank: Sequence[Mapping[str, Any]] | None = None,
    ) -> Any:
        fields = {
            "cond": _expr(cond) if cond is not None else None,
            "opaque": _opaque(probability, trips, distribution, samples, by_rank),
            "cond_time": _time(cond_time) if cond_time is not None else None,
        }
        node = self._add(kind, fields, line=line, label=label)
        return self._open(node, self._body(node, None))

    def if_(
        self,
        cond: Expr | None = None,
        *,
        probability: float | None = None,
        samples: int | None = None,
        by_rank: Sequence[Mapping[str, Any]] | None = None,
        cond_time: TimeLike | None = None,
        line: int | None = None,
        label: str | None = None,
    ) -> Any:
        """Open an ``if``; follow the ``with`` block by ``with m.else_():`` for an if-else.

        An opaque ``if`` takes ``probability`` (pooled over ranks) and optionally ``by_rank``:
        ``[{"probability": 1.0, "samples": 50}, {"probability": 0.0, "samples": 50}]``.
        """
        fields = {
            "cond": _expr(cond) if cond is not None else None,
            "opaque": _opaque(probability, None, None, samples, by_rank),
            "cond_time": _time(cond_time) if cond_time is not None else None,
        }
        node = self._add("if", fields, line=line, label=label)
        return self._open(node, self._body(node, None))

    def else_(self, line: int | None = None) -> Any:
        """Open the else branch of the ``if`` just closed (turns it into an if-else)."""
        last = self._last_closed
        if last is None or self._nodes[last]["kind"] != "if":
            raise UsageError("else_() must directly follow the with-block of an if_()")
        node = self._nodes[last]
        node["kind"] = "if-else"
        body = self._body(last, line)
        self._changed()
        return self._open(last, body)

    def switch(
        self,
        value: Expr | None = None,
        *,
        samples: int | None = None,
        by_rank: Sequence[Mapping[str, Any]] | None = None,
        cond_time: TimeLike | None = None,
        line: int | None = None,
        label: str | None = None,
    ) -> Any:
        """Open a ``switch`` on ``value``; open cases inside it with :meth:`case`.

        Without a value the switch is opaque and every case needs a ``weight``; ``by_rank``
        then gives per-rank case weights: ``[{"weights": [1, 0], "samples": 8}, ...]``.
        """
        if value is not None and (by_rank is not None or samples is not None):
            raise UsageError("samples= and by_rank= describe an opaque switch (no value)")
        fields = {
            "value": _expr(value) if value is not None else None,
            "cases": [],
            "samples": int(samples) if samples is not None else None,
            "by_rank": _by_rank(by_rank),
            "cond_time": _time(cond_time) if cond_time is not None else None,
        }
        node = self._add("switch", fields, line=line, label=label)

        @contextmanager
        def opened() -> Iterator[int]:
            self._stack.append(node)
            try:
                yield node
            finally:
                self._stack.pop()
                self._last_closed = node

        return opened()

    @contextmanager
    def case(
        self,
        *labels: int,
        default: bool = False,
        weight: float | None = None,
        line: int | None = None,
    ) -> Iterator[int]:
        """One case of the enclosing switch (falls through unless it ends with ``break_``)."""
        if not self._stack or self._nodes[self._stack[-1]]["kind"] != "switch":
            raise UsageError("case() must be used directly inside a switch()")
        switch = self._nodes[self._stack[-1]]
        entry: dict[str, Any] = {}
        if labels:
            entry["labels"] = [int(v) for v in labels]
        if default:
            entry["default"] = True
        if weight is not None:
            entry["weight"] = float(weight)
        switch["cases"].append(entry)
        body = self._add("seq", {}, line=line, parent=False)
        switch["children"].append(body)
        self._changed()
        self._stack.append(body)
        try:
            yield body
        finally:
            self._stack.pop()

    def task_group(
        self,
        tasks: Expr | None = None,
        *,
        team: bool = False,
        line: int | None = None,
        label: str | None = None,
    ) -> Any:
        """Fork ``tasks`` tasks (default ``nthreads``) to the thread pool and join them.

        Inside, ``task`` is the task index and ``thread`` the pool thread running it
        (notes 000 §2.7 fork/join clock rule). ``team=True`` makes it an OpenMP parallel
        region: without ``tasks`` it has the team size the process last set
        (:meth:`set_team`), and the pool grows to its team instead of queueing the tasks.
        """
        fields: dict[str, Any] = {"tasks": _expr(tasks) if tasks is not None else None}
        if team:
            fields["team"] = True
        node = self._add("task_group", fields, line=line, label=label)
        return self._open(node, self._body(node, None))

    def _innermost(self, kinds: set[str]) -> int:
        for body in reversed(self._stack):
            # the statement owning this body sequence
            for node in self._doc["nodes"]:
                if body in node.get("children", []) and node["kind"] in kinds:
                    return int(node["id"])
        raise UsageError(f"no enclosing {' or '.join(sorted(kinds))} to leave")

    # ---- building: leaves ------------------------------------------------------------------

    def compute(
        self,
        time: TimeLike = 0.0,
        *,
        assign: Sequence[tuple[str, Expr]] = (),
        line: int | None = None,
        column: int | None = None,
        file: str | None = None,
        label: str | None = None,
    ) -> int:
        """Add a computational block (cb) taking ``time`` (seconds, expression or measured)."""
        fields = {
            "time": _time(time),
            "assign": [[v, _expr(e)] for v, e in assign] or None,
        }
        return self._add("cb", fields, line=line, column=column, file=file, label=label)

    def assign(self, var: str, value: Expr, *, line: int | None = None) -> int:
        """Set a control variable (a cb with no time and one assignment)."""
        return self._add("cb", {"assign": [[var, _expr(value)]]}, line=line, label=f"{var} =")

    def reduced(
        self,
        time: TimeLike,
        *,
        assign: Sequence[tuple[str, Expr]] = (),
        line: int | None = None,
        label: str | None = None,
    ) -> int:
        """Add a reduced block (rb): a fragment whose time is known."""
        fields = {"time": _time(time), "assign": [[v, _expr(e)] for v, e in assign] or None}
        return self._add("rb", fields, line=line, label=label)

    def call(
        self, function: str, *args: Expr, context: int | None = None, line: int | None = None
    ) -> int:
        """Call a function of the model (ufc) with actual parameters or a calling context."""
        fields: dict[str, Any] = {"callee": function}
        if context is not None:
            fields["context"] = int(context)
        else:
            fields["args"] = [_expr(a) for a in args]
        return self._add("ufc", fields, line=line, label=function)

    def external(
        self,
        function: str,
        time: TimeLike,
        *,
        assign: Sequence[tuple[str, Expr]] = (),
        line: int | None = None,
    ) -> int:
        """Call an external (library) function (efc) taking ``time``."""
        fields = {
            "callee": function,
            "time": _time(time),
            "assign": [[v, _expr(e)] for v, e in assign] or None,
        }
        return self._add("efc", fields, line=line, label=function)

    def ret(self, *, line: int | None = None) -> int:
        """Return from the current function."""
        return self._add("ret", {}, line=line)

    def break_(self, target: int | None = None, *, line: int | None = None) -> int:
        """Leave the innermost loop or switch (or the statement ``target``)."""
        if target is None:
            target = self._innermost({"for", "while", "do-while", "switch"})
        return self._add("break", {"target": int(target)}, line=line)

    def continue_(self, target: int | None = None, *, line: int | None = None) -> int:
        """Start the next iteration of the innermost loop (or of loop ``target``)."""
        if target is None:
            target = self._innermost({"for", "while", "do-while"})
        return self._add("continue", {"target": int(target)}, line=line)

    def op(
        self,
        operation: str,
        *,
        line: int | None = None,
        column: int | None = None,
        file: str | None = None,
        time: TimeLike | None = None,
        **args: Any,
    ) -> int:
        """Any communication operation (cfc) by name: ``m.op("MPI_Send", dest=1, bytes=8)``.

        ``parjava.model.operations()`` lists the operations and their arguments.
        """
        fields: dict[str, Any] = {
            "op": operation,
            "args": {k: _arg(v) for k, v in args.items() if v is not None},
        }
        if time is not None:
            fields["time"] = _time(time)
        return self._add("cfc", fields, line=line, column=column, file=file)

    # MPI point-to-point
    def send(self, dest: Expr, bytes: Expr, tag: Expr = 0, **kw: Any) -> int:
        """MPI_Send (standard mode: eager up to the machine's eager limit, else rendezvous)."""
        return self.op("MPI_Send", dest=dest, bytes=bytes, tag=tag, **kw)

    def bsend(self, dest: Expr, bytes: Expr, tag: Expr = 0, **kw: Any) -> int:
        """MPI_Bsend (buffered: always eager, plus a local copy)."""
        return self.op("MPI_Bsend", dest=dest, bytes=bytes, tag=tag, **kw)

    def ssend(self, dest: Expr, bytes: Expr, tag: Expr = 0, **kw: Any) -> int:
        """MPI_Ssend (synchronous: always rendezvous)."""
        return self.op("MPI_Ssend", dest=dest, bytes=bytes, tag=tag, **kw)

    def rsend(self, dest: Expr, bytes: Expr, tag: Expr = 0, **kw: Any) -> int:
        """MPI_Rsend (ready: always eager; the receive must be posted)."""
        return self.op("MPI_Rsend", dest=dest, bytes=bytes, tag=tag, **kw)

    def isend(
        self, dest: Expr, bytes: Expr, request: str, index: Expr = 0, tag: Expr = 0, **kw: Any
    ) -> int:
        """MPI_Isend into ``request[index]``."""
        return self.op(
            "MPI_Isend", dest=dest, bytes=bytes, tag=tag, request=request, index=index, **kw
        )

    def ibsend(
        self, dest: Expr, bytes: Expr, request: str, index: Expr = 0, tag: Expr = 0, **kw: Any
    ) -> int:
        """MPI_Ibsend into ``request[index]``."""
        return self.op(
            "MPI_Ibsend", dest=dest, bytes=bytes, tag=tag, request=request, index=index, **kw
        )

    def issend(
        self, dest: Expr, bytes: Expr, request: str, index: Expr = 0, tag: Expr = 0, **kw: Any
    ) -> int:
        """MPI_Issend into ``request[index]``."""
        return self.op(
            "MPI_Issend", dest=dest, bytes=bytes, tag=tag, request=request, index=index, **kw
        )

    def irsend(
        self, dest: Expr, bytes: Expr, request: str, index: Expr = 0, tag: Expr = 0, **kw: Any
    ) -> int:
        """MPI_Irsend into ``request[index]``."""
        return self.op(
            "MPI_Irsend", dest=dest, bytes=bytes, tag=tag, request=request, index=index, **kw
        )

    def recv(self, source: Expr, tag: Expr = "ANY_TAG", **kw: Any) -> int:
        """MPI_Recv; ``status_source=``, ``status_tag=``, ``status_bytes=`` name variables."""
        return self.op("MPI_Recv", source=source, tag=tag, **kw)

    def irecv(
        self, source: Expr, request: str, index: Expr = 0, tag: Expr = "ANY_TAG", **kw: Any
    ) -> int:
        """MPI_Irecv into ``request[index]``."""
        return self.op("MPI_Irecv", source=source, tag=tag, request=request, index=index, **kw)

    def sendrecv(
        self,
        dest: Expr,
        sendbytes: Expr,
        source: Expr,
        sendtag: Expr = 0,
        recvtag: Expr = "ANY_TAG",
        **kw: Any,
    ) -> int:
        """MPI_Sendrecv."""
        return self.op(
            "MPI_Sendrecv",
            dest=dest,
            sendbytes=sendbytes,
            source=source,
            sendtag=sendtag,
            recvtag=recvtag,
            **kw,
        )

    def wait(self, request: str, index: Expr = 0, **kw: Any) -> int:
        """MPI_Wait on ``request[index]``."""
        return self.op("MPI_Wait", request=request, index=index, **kw)

    def waitall(self, request: str | None = None, **kw: Any) -> int:
        """MPI_Waitall on every pending request of ``request`` (all when None)."""
        return self.op("MPI_Waitall", request=request, **kw)

    def waitany(self, request: str, status_index: str | None = None, **kw: Any) -> int:
        """MPI_Waitany; ``status_index`` names the variable receiving the index."""
        return self.op("MPI_Waitany", request=request, status_index=status_index, **kw)

    def test(self, request: str, index: Expr = 0, flag: str | None = None, **kw: Any) -> int:
        """MPI_Test; ``flag`` names the variable set to 1 when complete."""
        return self.op("MPI_Test", request=request, index=index, flag=flag, **kw)

    def testall(self, request: str, flag: str | None = None, **kw: Any) -> int:
        """MPI_Testall."""
        return self.op("MPI_Testall", request=request, flag=flag, **kw)

    def probe(self, source: Expr, tag: Expr = "ANY_TAG", **kw: Any) -> int:
        """MPI_Probe."""
        return self.op("MPI_Probe", source=source, tag=tag, **kw)

    def iprobe(
        self, source: Expr, tag: Expr = "ANY_TAG", flag: str | None = None, **kw: Any
    ) -> int:
        """MPI_Iprobe."""
        return self.op("MPI_Iprobe", source=source, tag=tag, flag=flag, **kw)

    # MPI collectives
    def barrier(self, **kw: Any) -> int:
        """MPI_Barrier."""
        return self.op("MPI_Barrier", **kw)

    def bcast(self, bytes: Expr, root: Expr = 0, **kw: Any) -> int:
        """MPI_Bcast."""
        return self.op("MPI_Bcast", bytes=bytes, root=root, **kw)

    def reduce_op(self, bytes: Expr, root: Expr = 0, **kw: Any) -> int:
        """MPI_Reduce (named reduce_op: :meth:`reduce` is model reduction)."""
        return self.op("MPI_Reduce", bytes=bytes, root=root, **kw)

    def allreduce(self, bytes: Expr, **kw: Any) -> int:
        """MPI_Allreduce."""
        return self.op("MPI_Allreduce", bytes=bytes, **kw)

    def gather(self, bytes: Expr, root: Expr = 0, **kw: Any) -> int:
        """MPI_Gather of ``bytes`` per rank."""
        return self.op("MPI_Gather", bytes=bytes, root=root, **kw)

    def gatherv(self, bytes: Expr, root: Expr = 0, **kw: Any) -> int:
        """MPI_Gatherv; ``bytes`` is the size of rank ``peer``'s block."""
        return self.op("MPI_Gatherv", bytes=bytes, root=root, **kw)

    def scatter(self, bytes: Expr, root: Expr = 0, **kw: Any) -> int:
        """MPI_Scatter of ``bytes`` per rank."""
        return self.op("MPI_Scatter", bytes=bytes, root=root, **kw)

    def scatterv(self, bytes: Expr, root: Expr = 0, **kw: Any) -> int:
        """MPI_Scatterv; ``bytes`` is the size of rank ``peer``'s block."""
        return self.op("MPI_Scatterv", bytes=bytes, root=root, **kw)

    def allgather(self, bytes: Expr, **kw: Any) -> int:
        """MPI_Allgather of ``bytes`` per rank."""
        return self.op("MPI_Allgather", bytes=bytes, **kw)

    def allgatherv(self, bytes: Expr, **kw: Any) -> int:
        """MPI_Allgatherv; ``bytes`` is the size of rank ``peer``'s block."""
        return self.op("MPI_Allgatherv", bytes=bytes, **kw)

    def alltoall(self, bytes: Expr, **kw: Any) -> int:
        """MPI_Alltoall of ``bytes`` per pair."""
        return self.op("MPI_Alltoall", bytes=bytes, **kw)

    def alltoallv(self, bytes: Expr, **kw: Any) -> int:
        """MPI_Alltoallv; ``bytes`` is what this rank sends to ``peer``."""
        return self.op("MPI_Alltoallv", bytes=bytes, **kw)

    def scan(self, bytes: Expr, **kw: Any) -> int:
        """MPI_Scan."""
        return self.op("MPI_Scan", bytes=bytes, **kw)

    def exscan(self, bytes: Expr, **kw: Any) -> int:
        """MPI_Exscan."""
        return self.op("MPI_Exscan", bytes=bytes, **kw)

    def reduce_scatter(self, bytes: Expr, **kw: Any) -> int:
        """MPI_Reduce_scatter; ``bytes`` is the size of rank ``peer``'s result block."""
        return self.op("MPI_Reduce_scatter", bytes=bytes, **kw)

    def comm_split(
        self, newcomm: str, color: Expr, key: Expr = "rank", comm: str = "world", **kw: Any
    ) -> int:
        """MPI_Comm_split of ``comm`` into ``newcomm`` by ``color``, ordered by ``key``."""
        return self.op("MPI_Comm_split", newcomm=newcomm, color=color, key=key, comm=comm, **kw)

    def comm_dup(self, newcomm: str, comm: str = "world", **kw: Any) -> int:
        """MPI_Comm_dup of ``comm`` into ``newcomm``."""
        return self.op("MPI_Comm_dup", newcomm=newcomm, comm=comm, **kw)

    # threads (notes 000 §2.7)
    def thread_pool(self, threads: Expr = "nthreads", **kw: Any) -> int:
        """Create the thread pool (threads x time_tCreate)."""
        return self.op("thread_pool_create", threads=threads, **kw)

    def semaphore(self, lock: str, permits: Expr = 1, index: Expr = 0, **kw: Any) -> int:
        """Create a semaphore (permits 1: a mutex)."""
        return self.op("semaphore_create", lock=lock, permits=permits, index=index, **kw)

    def lock(self, lock: str, index: Expr = 0, **kw: Any) -> int:
        """Enter a critical region (pr_Lock)."""
        return self.op("lock", lock=lock, index=index, **kw)

    def trylock(self, lock: str, index: Expr = 0, flag: str | None = None, **kw: Any) -> int:
        """Try to enter a critical region (pr_TryLock); ``flag`` gets 1 on success."""
        return self.op("trylock", lock=lock, index=index, flag=flag, **kw)

    def unlock(self, lock: str, index: Expr = 0, **kw: Any) -> int:
        """Leave a critical region (pr_Unlock)."""
        return self.op("unlock", lock=lock, index=index, **kw)

    def atomic_create(self, count: Expr = 1, **kw: Any) -> int:
        """Create atomic variables (pr_CreateAtomic)."""
        return self.op("atomic_create", count=count, **kw)

    def atomic_cas(self, count: Expr = 1, **kw: Any) -> int:
        """Atomic compare-and-set / get-and-add operations (pr_CompareAndSet)."""
        return self.op("atomic_cas", count=count, **kw)

    def set_team(self, threads: Expr, **kw: Any) -> int:
        """omp_set_num_threads: the team size of later ``team`` task groups without tasks."""
        return self.op("set_team", threads=threads, **kw)

    def copy_bytes(self, bytes: Expr, **kw: Any) -> int:
        """Copy ``bytes`` in memory (pr_Copy)."""
        return self.op("copy", bytes=bytes, **kw)

    # PGAS (seed 001)
    def pgas(self, operation: str, **kw: Any) -> int:
        """Add a PGAS operation: ``m.pgas("broadcast", bytes=64, sync_in="mysync")``."""
        name = operation if operation.startswith("pgas_") else f"pgas_{operation}"
        return self.op(name, **kw)

    # ---- display ---------------------------------------------------------------------------

    def show(self, prediction: Any = None, max_nodes: int = 2000) -> ModelView:
        """Return an HTML view of the control tree with source lines (Jupyter renders it).

        Statements and blocks are coloured differently, as in ParJava's model view. With a
        ``prediction`` the Time and Freq of every node are shown too.
        """
        return ModelView(self, prediction, max_nodes)

    def _repr_html_(self) -> str:
        return ModelView(self, None, 500)._repr_html_()

    def source_line(self, file_index: int, line: int) -> str | None:
        """Return the text of a source line, when the file can be found."""
        files = self._doc["files"]
        if not 0 <= file_index < len(files):
            return None
        path = Path(files[file_index])
        if not path.is_absolute() and self._base_dir is not None and not path.exists():
            path = self._base_dir / path
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                for i, text in enumerate(f, start=1):
                    if i == line:
                        return text.rstrip("\n")
        except OSError:
            return None
        return None


def _opaque(
    probability: float | None,
    trips: float | None,
    distribution: Sequence[tuple[int, float]] | None,
    samples: int | None,
    by_rank: Sequence[Mapping[str, Any]] | None = None,
) -> dict[str, Any] | None:
    if probability is None and trips is None:
        if distribution is not None:
            raise UsageError("a trip-count distribution needs trips= (its mean)")
        if by_rank is not None:
            raise UsageError("by_rank= needs the pooled statistics too (probability= or trips=)")
        return None
    if probability is not None and trips is not None:
        raise UsageError("give probability= or trips=, not both")
    out: dict[str, Any] = {}
    if probability is not None:
        out["probability"] = float(probability)
    else:
        out["trips"] = float(trips)  # type: ignore[arg-type]
        if distribution is not None:
            out["distribution"] = [[int(c), float(f)] for c, f in distribution]
    if samples is not None:
        out["samples"] = int(samples)
    if by_rank is not None:
        out["by_rank"] = _by_rank(by_rank)
    return out


def operations() -> list[dict[str, Any]]:
    """Every communication operation a cfc leaf can perform, with its arguments."""
    return list(load_core().model_operations())


# Colours of ParJava's model view: statements (internal nodes) and blocks (leaves) differ;
# communication blocks get their own colour because they are where time goes to waiting.
_COLOURS = {"statement": "#dbe9f6", "block": "#fdf3d3", "comm": "#e4f4dd", "jump": "#eeeeee"}


def _describe(node: dict[str, Any]) -> str:
    kind = node["kind"]
    parts: list[str] = []
    if kind == "cfc":
        args = ", ".join(f"{k}={v}" for k, v in node.get("args", {}).items())
        parts.append(f"{node['op']}({args})")
    elif kind in {"ufc", "efc"}:
        parts.append(f"{node['callee']}({', '.join(str(a) for a in node.get('args', []))})")
    elif kind == "for":
        init = "; ".join(f"{v}={e}" for v, e in node.get("init", []))
        upd = "; ".join(f"{v}={e}" for v, e in node.get("update", []))
        parts.append(f"for ({init}; {node.get('cond', '')}; {upd})")
    elif kind in {"if", "if-else", "while", "do-while"} and "cond" in node:
        parts.append(f"{kind} ({node['cond']})")
    elif kind == "switch" and "value" in node:
        parts.append(f"switch ({node['value']})")
    elif kind == "task_group":
        default = "team" if node.get("team") else "nthreads"
        parts.append(f"task_group({node.get('tasks', default)})")
    elif kind in {"break", "continue"}:
        parts.append(f"{kind} → {node['target']}")
    else:
        parts.append(kind)
    if "opaque" in node:
        o = node["opaque"]
        parts.append(
            f"[opaque p={o['probability']}]"
            if "probability" in o
            else f"[opaque trips={o['trips']}]"
        )
    if "time" in node:
        t = node["time"]
        if isinstance(t, dict):
            parts.append(
                f"time {t['mean']:.3g}±{t.get('sigma', 0):.2g} s (N={t.get('samples', 1)})"
            )
        elif isinstance(t, str):
            parts.append(f"time {t}")
        else:
            parts.append(f"time {t:.3g} s")
    for v, e in node.get("assign", []):
        parts.append(f"{v} = {e}")
    return "  ".join(parts)


class ModelView:
    """HTML rendering of a model's control tree (returned by :meth:`Model.show`)."""

    def __init__(self, model: Model, prediction: Any, max_nodes: int) -> None:
        self.model = model
        self.prediction = prediction
        self.max_nodes = max_nodes

    def _stats(self) -> dict[int, tuple[float, float]]:
        if self.prediction is None:
            return {}
        table = self.prediction.nodes()
        return {int(r["id"]): (float(r["time"]), float(r["freq"])) for r in table}

    def _repr_html_(self) -> str:
        doc = self.model._doc
        nodes = {n["id"]: n for n in doc["nodes"]}
        stats = self._stats()
        rows: list[str] = []

        def walk(node_id: int, depth: int) -> None:
            if len(rows) >= self.max_nodes:
                return
            node = nodes[node_id]
            kind = node["kind"]
            if kind in _STATEMENTS:
                colour = _COLOURS["statement"]
            elif kind == "cfc":
                colour = _COLOURS["comm"]
            elif kind in {"break", "continue", "ret"}:
                colour = _COLOURS["jump"]
            else:
                colour = _COLOURS["block"]
            src = node.get("source", {})
            where = ""
            text = ""
            if "line" in src:
                file_index = src.get("file", -1)
                name = doc["files"][file_index] if 0 <= file_index < len(doc["files"]) else "?"
                where = f"{os.path.basename(name)}:{src['line']}"
                text = self.model.source_line(file_index, src["line"]) or ""
            label = node.get("label", "")
            cells = [
                f"<td style='color:#888'>{node_id}</td>",
                f"<td style='padding-left:{depth * 16 + 4}px;background:{colour}'>"
                f"<b>{html.escape(kind)}</b> {html.escape(label)} "
                f"<span style='color:#444'>{html.escape(_describe(node))}</span></td>",
                f"<td style='color:#666'>{html.escape(where)}</td>",
                f"<td><code>{html.escape(text.strip())}</code></td>",
            ]
            if stats:
                t, f = stats.get(node_id, (0.0, 0.0))
                cells.append(f"<td style='text-align:right'>{t:.4g}</td>")
                cells.append(f"<td style='text-align:right'>{f:.0f}</td>")
            rows.append("<tr>" + "".join(cells) + "</tr>")
            for child in node.get("children", []):
                walk(child, depth + 1)

        for function in doc["functions"]:
            rows.append(
                f"<tr><td colspan='6' style='font-weight:bold;padding-top:6px'>"
                f"function {html.escape(function['name'])}"
                f"({', '.join(html.escape(p) for p in function.get('params', []))})</td></tr>"
            )
            walk(function["body"], 0)
        head = "<th>id</th><th>node</th><th>source</th><th>line</th>"
        if stats:
            head += "<th>Time [s]</th><th>Freq</th>"
        legend = " ".join(
            f"<span style='background:{c};padding:0 6px'>{k}</span>" for k, c in _COLOURS.items()
        )
        more = (
            f"<p>… {len(doc['nodes']) - self.max_nodes} more nodes not shown</p>"
            if len(doc["nodes"]) > self.max_nodes
            else ""
        )
        return (
            f"<div><p><b>{html.escape(self.model.name)}</b> — {len(doc['nodes'])} nodes. "
            f"{legend}</p><table style='font-family:monospace;font-size:12px'>"
            f"<tr>{head}</tr>{''.join(rows)}</table>{more}</div>"
        )

    def __repr__(self) -> str:
        return f"<ModelView of {self.model!r}>"
