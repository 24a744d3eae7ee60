"""``parjava sweep``: interpret a model at every combination of machines, np and parameters.

``parjava sweep model.json|TRACE --machine a.json --machine infiniband-edr --np 1,4,16
--param N=1024,4096 -o sweep.csv`` writes one CSV row per point (:func:`parjava.sweep`).
The points run on a local process pool (``--workers``), in this process (``--executor
serial``), on the workers of an MPI job (``--executor mpi`` under ``mpirun -np K python -m
mpi4py.futures -m parjava sweep ...``) or on a Dask cluster (``--executor dask --scheduler
ADDRESS``).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import MissingDependencyError, UsageError
from .predict import _algorithms, _ints

EPILOG = """examples:
  parjava sweep jacobi.json --machine cluster.json --np 1,4,16,64 --param N=1024,4096 -o s.csv
  parjava sweep jacobi.json --machine infiniband-edr --machine ethernet-10g --np 1,64 --workers 2
  mpirun -np 4 python -m mpi4py.futures -m parjava sweep jacobi.json --machine cluster.json \\
      --np 1,2,4,8,16 --param N=512,1024,2048 --executor mpi -o s.csv
  parjava sweep jacobi.json --machine cluster.json --np 1,64 --executor dask \\
      --scheduler tcp://head:8786 -o s.csv
  parjava sweep run/traces.otf2 --machine infiniband-edr --machine ethernet-10g \\
      --param balance=false,true --param scale:solve=1,0.5 -o replays.csv

columns: machine, np, threads, one per --param, time [s], error_bound [s], speedup,
efficiency, warnings, status (ok or failed), error

exit status: 0 success (failed points are rows with status failed), 1 --fail-on failure and a
point failed, 2 usage or input error
"""


def register(subparsers: Any) -> None:
    """Add the ``sweep`` verb."""
    parser = subparsers.add_parser(
        "sweep",
        help="interpret a model over machines x np x parameter values, write CSV",
        description="Interpret a program model at every combination of machines, process "
        "counts, thread counts and parameter values, in parallel, and write one CSV row each.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "model",
        help="program model JSON (docs/model-schema.md), or an OTF2 trace to replay at each point "
        "(--param then names replay options: balance, power, contention, call_overhead, network, "
        "scale:KEY)",
    )
    parser.add_argument(
        "--machine",
        action="append",
        default=[],
        metavar="M",
        help="machine JSON file or preset name (repeatable)",
    )
    parser.add_argument("--np", default="1", metavar="LIST", help="process counts, e.g. 1,4,16")
    parser.add_argument("--threads", default="1", metavar="LIST", help="threads per process")
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=V1,V2,...",
        help="values of a model parameter (repeatable, one parameter each)",
    )
    parser.add_argument(
        "--algorithm",
        action="append",
        default=[],
        metavar="COLLECTIVE=ALG",
        help="force a collective algorithm, e.g. allreduce=ring (repeatable)",
    )
    parser.add_argument("--opaque", choices=("expected", "sampled"), default="expected")
    parser.add_argument("--seed", type=int, default=1, help="seed of --opaque sampled")
    parser.add_argument(
        "--executor",
        choices=("process", "serial", "mpi", "dask"),
        default="process",
        help="where the points run (default: a local process pool)",
    )
    parser.add_argument("--workers", type=int, metavar="N", help="processes of the local pool")
    parser.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler of --executor dask")
    parser.add_argument("-o", "--output", metavar="CSV", help="write here (default: stdout)")
    parser.add_argument(
        "--fail-on",
        choices=("failure", "none"),
        default="none",
        help="exit 1 when a point failed (default none: failed points are rows)",
    )
    parser.set_defaults(func=run)


_WORDS = {"true": True, "false": False, "none": None}


def _param_values(items: list[str]) -> dict[str, list[Any]]:
    """Numbers; for a trace's replay options also true/false/none and words (minimum, ideal)."""
    out: dict[str, list[Any]] = {}
    for item in items:
        name, sep, text = item.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"--param expects NAME=V1,V2,..., not {item!r}")
        values: list[Any] = []
        for v in text.split(","):
            v = v.strip()
            if not v:
                continue
            try:
                values.append(int(v))
            except ValueError:
                try:
                    values.append(float(v))
                except ValueError:
                    values.append(_WORDS.get(v.lower(), v))  # sweep() says what it accepts
        if not values:
            raise UsageError(f"--param {name} has no values")
        out[name.strip()] = values
    return out


def _executor(args: argparse.Namespace) -> Any:
    if args.executor == "serial":
        return "serial", None
    if args.executor == "process":
        return None, None
    if args.executor == "mpi":
        try:
            from mpi4py.futures import MPIPoolExecutor  # type: ignore[import-not-found]
        except ImportError as exc:
            raise MissingDependencyError(
                f"--executor mpi needs mpi4py (pip install mpi4py): {exc}"
            ) from None
        pool = MPIPoolExecutor()
        return pool, pool
    if not args.scheduler:
        raise UsageError("--executor dask needs --scheduler ADDRESS (tcp://host:8786)")
    try:
        from distributed import Client  # type: ignore[import-not-found]
    except ImportError as exc:
        raise MissingDependencyError(
            f"--executor dask needs dask.distributed (pip install distributed): {exc}"
        ) from None
    client = Client(args.scheduler)
    return client.get_executor(), client


def run(args: argparse.Namespace) -> int:
    """Run the verb; returns the exit status."""
    from ..sweeps import sweep

    if not args.machine:
        raise UsageError("give at least one --machine (a machine JSON file or a preset name)")
    executor, owner = _executor(args)
    try:
        frame = sweep(
            args.model,
            args.machine,
            np=_ints(args.np, "--np"),
            threads=_ints(args.threads, "--threads"),
            params=_param_values(args.param),
            executor=executor,
            workers=args.workers,
            algorithms=_algorithms(args.algorithm),
            opaque=args.opaque,
            seed=args.seed,
        )
    finally:
        if owner is not None and args.executor == "mpi":
            owner.shutdown()
        elif owner is not None:
            owner.close()  # the Dask client only; the cluster stays up
    if args.output:
        frame.to_csv(args.output, index=False)
        ok = int((frame["status"] == "ok").sum())
        print(f"{len(frame)} points ({ok} ok) written to {args.output}", file=sys.stderr)
    else:
        frame.to_csv(sys.stdout, index=False)
    failed = frame[frame["status"] != "ok"]
    for _, row in failed.iterrows():
        print(f"failed: {row['machine']} np={row['np']}: {row['error']}", file=sys.stderr)
    return 1 if args.fail_on == "failure" and len(failed) else 0
