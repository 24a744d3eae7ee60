"""Sweeps: interpret a model for every combination of machines, process counts and parameters.

``sweep(model, machines=[...], np=[...], params={"N": [...]})`` evaluates the Cartesian
product and returns one pandas DataFrame: the inputs as columns (``machine``, ``np``,
``threads``, one column per swept parameter), then ``time``, ``error_bound``, ``speedup``,
``efficiency``, ``coverage`` (the share of its estimation run the model explains, from the
model's self-check; NaN for a model without one), ``warnings``, ``status`` and ``error``.
Each point is an independent interpretation, so the points run on any
:class:`concurrent.futures.Executor`:

- ``executor=None``: a local process pool (``workers`` processes, default the core count);
- ``executor="serial"``: one after another in this process;
- ``mpi4py.futures.MPIPoolExecutor()``: the workers of an MPI job;
- ``distributed.Client(...).get_executor()``: the workers of a Dask cluster.

The model and the machines travel to each worker once, not with every task: a task carries a
key (a digest of the model, machine and option JSON), and a worker keeps what it has unpacked
under that key. A worker that has not seen the key answers "missing" and is sent the payload
once; the default process pool installs it when each worker starts, so it never misses. The
interpretation is deterministic, so the frame does not depend on the executor (the tests
compare them exactly).

A trace (a :class:`parjava.Trace` or an OTF2 archive) in place of the model is replayed
(:func:`parjava.replay`) on every machine and combination of ``params``, which then name replay
options (``balance``, ``power``, ``contention``, ``call_overhead``, ``network``) or computation
factors ``scale:KEY``; ``np`` is the trace's, ``speedup`` is the traced run's time over the
replayed one and ``error_bound``, ``efficiency`` and ``coverage`` are NaN (see
:mod:`parjava._trace_sweep`).

For a model, speedup and efficiency are relative to the smallest ``np x threads`` that
succeeded for the same machine and parameter values, as in :meth:`parjava.Prediction.speedup`.
A point that deadlocks or meets a model error is a row with ``status`` ``"failed"`` and the
error's first line; other errors (a bad parameter name, an unreadable machine) are raised.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import multiprocessing
import os
from collections.abc import Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from typing import Any, Union

from ._progress import Progress
from .errors import DeadlockError, ModelError, UsageError
from .model import Model

Number = Union[int, float]

# What a worker has unpacked, by payload key: (Model or Trace, [Machine, ...], options).
_CACHE: dict[str, tuple[Any, list[Any], dict[str, Any]]] = {}
_MISSING = "parjava-sweep-missing-payload"


def _install(key: str, payload: bytes) -> None:
    """Unpack a payload (model, machine and option JSON) into this process's cache."""
    if key in _CACHE:
        return
    from .machine import Machine

    doc = json.loads(payload.decode("utf-8"))
    if "trace" in doc:
        from .trace import Trace

        model: Any = Trace.open(doc["trace"])
    else:
        model = Model.from_json(doc["model"])
    machines = [
        Machine.from_json(text, f"sweep machine {i}") for i, text in enumerate(doc["machines"])
    ]
    _CACHE[key] = (model, machines, doc["options"])


def _evaluate_point(
    model: Any, machine: Any, options: Mapping[str, Any], point: tuple[Any, ...]
) -> tuple[float, float, str, str, str]:
    """Interpret one point: (time, error bound, warnings, status, error)."""
    from .prediction import interpret

    _, np_, threads, values = point
    if not isinstance(model, Model):
        from ._trace_sweep import replay_point

        return replay_point(model, machine, options, values)
    try:
        pred = interpret(model, machine, np=np_, threads=threads, params=values, **options)
    except (DeadlockError, ModelError) as exc:
        kind = "deadlock" if isinstance(exc, DeadlockError) else "model error"
        first = str(exc).splitlines()[0] if str(exc) else kind
        return math.nan, math.nan, "", "failed", f"{kind}: {first}"
    run = pred.runs[0]
    return run.time, run.error_bound, "; ".join(run.warnings), "ok", ""


def _evaluate_chunk(key: str, payload: bytes | None, points: list[tuple[Any, ...]]) -> Any:
    """Worker task: evaluate ``points`` with the model and machines cached under ``key``.

    Returns ``_MISSING`` when this worker has not seen ``key`` and no payload came along.
    """
    if key not in _CACHE:
        if payload is None:
            return _MISSING
        _install(key, payload)
    model, machines, options = _CACHE[key]
    return [_evaluate_point(model, machines[p[0]], options, p) for p in points]


def _machine_objects(machines: Any) -> list[Any]:
    from .machine import Machine

    items = machines if isinstance(machines, (list, tuple)) else [machines]
    if not items:
        raise UsageError("machines is empty")
    out = []
    for m in items:
        if isinstance(m, Machine):
            out.append(m)
        elif isinstance(m, (str, os.PathLike)):
            text = os.fspath(m)
            if text.lstrip().startswith("{"):
                out.append(Machine.from_json(text))
            elif os.path.exists(text):
                out.append(Machine.load(text))
            elif text in Machine.preset_names():
                out.append(Machine.preset(text))
            else:
                raise UsageError(
                    f"machine {text!r} is neither a file nor a preset "
                    f"({', '.join(Machine.preset_names())})"
                )
        else:
            raise UsageError(f"a machine must be a parjava.Machine, a path or a preset, not {m!r}")
    return out


def _machine_labels(machines: list[Any]) -> list[str]:
    names = [m.name for m in machines]
    # Two machines of one name (a preset and its variant) stay apart by their position.
    return [n if names.count(n) == 1 else f"{n}#{i}" for i, n in enumerate(names)]


def _counts(value: int | Sequence[int], name: str) -> list[int]:
    values = [value] if isinstance(value, int) else list(value)
    if not values:
        raise UsageError(f"{name} is empty")
    for v in values:
        if not isinstance(v, int) and not (hasattr(v, "__index__") and int(v) == v):
            raise UsageError(f"{name} values must be integers >= 1, not {v!r}")
        if int(v) < 1:
            raise UsageError(f"{name} values must be integers >= 1, not {v!r}")
    return [int(v) for v in values]


def _param_grid(
    params: Mapping[str, Any] | None, numeric: bool = True
) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Names and the Cartesian product of their values (numbers only, for a model's)."""
    names = list(params or {})
    columns = []
    for name in names:
        values = params[name]  # type: ignore[index]
        values = list(values) if isinstance(values, (list, tuple, range)) else [values]
        if not values:
            raise UsageError(f"params[{name!r}] has no values")
        for v in values:
            if numeric and (isinstance(v, bool) or not isinstance(v, (int, float))):
                raise UsageError(f"params[{name!r}] values must be numbers, not {v!r}")
        columns.append(values)
    return names, list(itertools.product(*columns))


def _workers_of(executor: Any) -> int:
    """How many tasks the executor runs at once, for chunking (a guess when it does not say)."""
    for attr in ("_max_workers", "num_workers"):
        n = getattr(executor, attr, None)
        if isinstance(n, int) and n > 0:
            return n
    client = getattr(executor, "_client", None)  # Dask's ClientExecutor
    if client is not None:
        try:
            return max(1, sum(client.nthreads().values()))
        except Exception:  # a guess only: chunking works with any count
            return 4
    return 4


def sweep(
    model: Model | str | os.PathLike[str],
    machines: Any,
    np: int | Sequence[int] = 1,
    params: Mapping[str, Number | Sequence[Number]] | None = None,
    *,
    threads: int | Sequence[int] = 1,
    executor: Executor | str | None = None,
    workers: int | None = None,
    chunksize: int | None = None,
    progress: bool | None = None,
    opaque: str = "expected",
    seed: int = 1,
    algorithms: Mapping[str, str] | None = None,
    reduction_seconds_per_byte: float = 0.0,
    endpoint_contention: bool = True,
    max_events: int = 0,
    max_depth: int = 10000,
    opaque_recursion: bool = False,
) -> Any:
    """Interpret ``model`` at every combination of machine, np, threads and parameter values.

    ``model`` may also be a trace (a :class:`parjava.Trace` or an OTF2 archive's path): each
    point is then a :func:`parjava.replay` of it, ``params`` name replay options or
    ``scale:KEY`` factors (module docstring), and ``np``/``threads`` stay the trace's.

    ``machines`` is a :class:`parjava.Machine`, a machine JSON path, a preset name, or a list of
    them; ``params`` maps parameter names to a value or a list of values. The other keywords
    are those of :func:`parjava.interpret`. ``executor`` is any
    :class:`concurrent.futures.Executor` (see the module docstring), ``"serial"``, or ``None``
    for a local process pool of ``workers`` processes. ``chunksize`` points go in one task
    (default: about four tasks per worker). ``progress`` shows a bar (default: in a terminal or
    Jupyter). Returns a pandas DataFrame, one row per point in the order machines x params x
    threads x np; ``frame.attrs["payload_shipments"]`` counts the payloads sent to workers.
    """
    import pandas as pd

    from . import _trace_sweep

    if not isinstance(model, (Model, str, os.PathLike)) and not _trace_sweep.is_trace(model):
        raise UsageError(
            f"sweep() takes a parjava.Model, a model JSON path, a parjava.Trace or an OTF2 "
            f"archive's path, not {type(model).__name__}"
        )
    machine_list = _machine_objects(machines)
    labels = _machine_labels(machine_list)
    is_trace = _trace_sweep.is_trace(model)
    names, combos = _param_grid(params, numeric=not is_trace)
    traced: dict[str, Any] = {}
    if is_trace:
        from .trace import Trace

        trace = model if isinstance(model, Trace) else Trace.open(model)
        path, ranks, traced_time = _trace_sweep.archive_of(trace)
        _trace_sweep.check_params(trace, names, combos)
        for given, name, value in ((np, "np", ranks), (threads, "threads", 1)):
            if _counts(given, name) not in ([1], [value]):
                raise UsageError(
                    f"sweep over a trace: {name} is the trace's ({value}); sweep machines and "
                    f"replay options instead"
                )
        nps, ths = [ranks], [1]
        traced = {"trace": path, "name": os.path.basename(os.path.dirname(path)) or path}
        mdl: Any = None
    else:
        mdl = model if isinstance(model, Model) else Model.load(model)
        nps = _counts(np, "np")
        ths = _counts(threads, "threads")
        mdl.resolve_params({n: v for n, v in zip(names, combos[0])})  # unknown names fail here
    if opaque not in ("expected", "sampled"):
        raise UsageError(f"opaque must be 'expected' or 'sampled', not {opaque!r}")
    options = {
        "opaque": opaque,
        "seed": int(seed),
        "algorithms": dict(algorithms or {}),
        "reduction_seconds_per_byte": float(reduction_seconds_per_byte),
        "endpoint_contention": bool(endpoint_contention),
        "max_events": int(max_events),
        "max_depth": int(max_depth),
        "opaque_recursion": bool(opaque_recursion),
        "progress": False,
    }
    points = [
        (m, p, t, dict(zip(names, combo)))
        for m in range(len(machine_list))
        for combo in combos
        for t in ths
        for p in nps
    ]
    what = {"trace": traced["trace"]} if traced else {"model": mdl.to_json(None)}
    payload = json.dumps(
        {**what, "machines": [m.to_json() for m in machine_list], "options": options},
        sort_keys=True,
    ).encode("utf-8")
    key = hashlib.sha256(payload).hexdigest()

    results: list[Any] = [None] * len(points)
    shipments = 0
    label = f"sweep {traced['name'] if traced else mdl.name}"
    with Progress(len(points), label, progress, delay=1.0) as bar:
        if executor == "serial":
            _CACHE.pop(key, None)
            _install(key, payload)
            shipments = 1
            for i, point in enumerate(points):
                results[i] = _evaluate_chunk(key, None, [point])[0]
                bar.advance()
        elif executor is None or isinstance(executor, Executor):
            own = executor is None
            if own:
                n = workers or os.cpu_count() or 1
                # Not fork: the caller may hold threads (Dask, MPI, a notebook kernel).
                pool: Executor = ProcessPoolExecutor(
                    max_workers=n,
                    mp_context=multiprocessing.get_context("forkserver"),
                    initializer=_install,
                    initargs=(key, payload),
                )
            else:
                pool = executor  # type: ignore[assignment]
            try:
                shipments = _run_on(pool, key, payload, points, results, chunksize, bar, own)
                if own:
                    shipments += n  # one per worker, by the initializer
            finally:
                if own:
                    pool.shutdown(wait=True)
        else:
            raise UsageError(
                f"executor must be a concurrent.futures.Executor, 'serial' or None, "
                f"not {executor!r}"
            )

    rows = []
    for (m, p, t, values), (time, bound, warnings, status, error) in zip(points, results):
        row: dict[str, Any] = {"machine": labels[m], "np": p, "threads": t}
        row.update(values)
        row.update(
            {
                "time": time,
                "error_bound": bound,
                "speedup": math.nan,
                "efficiency": math.nan,
                "warnings": warnings,
                "status": status,
                "error": error,
            }
        )
        rows.append(row)
    if traced:
        for row in rows:  # against the traced run; one np, so no efficiency
            if row["status"] == "ok" and row["time"] > 0:
                row["speedup"] = traced_time / row["time"]
            row["coverage"] = math.nan
    else:
        _speedups(rows, names)
        coverage = _coverage(mdl)
        for row in rows:
            row["coverage"] = coverage
    frame = pd.DataFrame(
        rows,
        columns=[
            "machine",
            "np",
            "threads",
            *names,
            "time",
            "error_bound",
            "speedup",
            "efficiency",
            "coverage",
            "warnings",
            "status",
            "error",
        ],
    )
    if traced:
        frame.attrs["trace"] = traced["trace"]
        frame.attrs["traced_time"] = traced_time
    else:
        frame.attrs["model"] = mdl.name
    frame.attrs["payload_shipments"] = shipments
    return frame


def _run_on(
    pool: Executor,
    key: str,
    payload: bytes,
    points: list[tuple[Any, ...]],
    results: list[Any],
    chunksize: int | None,
    bar: Progress,
    installed: bool,
) -> int:
    """Run the points on ``pool`` in chunks; returns how many payloads were sent along.

    ``installed``: the workers already hold the payload (the initializer of our own pool).
    Otherwise a Dask executor gets it broadcast to every worker once; any other executor gets it
    with the first task per worker, and a worker that still misses it asks (answers
    ``_MISSING``) and gets it with that chunk again.
    """
    workers = _workers_of(pool)
    if chunksize is None:
        chunksize = max(1, math.ceil(len(points) / (4 * workers)))
    chunks = [
        list(range(i, min(i + chunksize, len(points)))) for i in range(0, len(points), chunksize)
    ]
    shipments = 0
    first: Any = None
    carriers = 0
    client = getattr(pool, "_client", None)
    if not installed and client is not None and hasattr(client, "scatter"):
        first = client.scatter(payload, broadcast=True, hash=False)
        carriers = len(chunks)  # every task names the scattered copy, local on each worker
        shipments = workers
    elif not installed:
        first, carriers = payload, workers
        shipments = min(workers, len(chunks))
    pending: dict[Future[Any], list[int]] = {}
    for n, chunk in enumerate(chunks):
        carried = first if n < carriers else None
        pending[pool.submit(_evaluate_chunk, key, carried, [points[i] for i in chunk])] = chunk
    while pending:
        done, _ = wait(list(pending), return_when=FIRST_COMPLETED)
        for future in done:
            chunk = pending.pop(future)
            answer = future.result()
            if isinstance(answer, str) and answer == _MISSING:
                # This worker has not seen the payload: send it along with the same chunk.
                shipments += 1
                retry = pool.submit(_evaluate_chunk, key, payload, [points[i] for i in chunk])
                pending[retry] = chunk
                continue
            for i, value in zip(chunk, answer):
                results[i] = tuple(value)
            bar.advance(len(chunk))
    return shipments


def _coverage(model: Model) -> float:
    """Return the share of its estimation run the model explains (self-check), else NaN."""
    check = getattr(model, "self_check", None)
    if check is None:
        check = model._doc.get("self_check")
    value = check.get("coverage") if isinstance(check, dict) else None
    return float(value) if isinstance(value, (int, float)) else math.nan


def _speedups(rows: list[dict[str, Any]], names: list[str]) -> None:
    """Fill speedup and efficiency per (machine, parameter values) group, like Prediction."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row["machine"], *(row[n] for n in names)), []).append(row)
    for members in groups.values():
        ok = [r for r in members if r["status"] == "ok"]
        if not ok:
            continue
        base = min(ok, key=lambda r: r["np"] * r["threads"])
        p0 = base["np"] * base["threads"]
        for r in ok:
            if r["time"] > 0:
                r["speedup"] = base["time"] / r["time"]
                r["efficiency"] = r["speedup"] * p0 / (r["np"] * r["threads"])
