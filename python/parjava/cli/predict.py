"""``parjava predict``: interpret a program model for several process counts.

``parjava predict model.json --machine cluster.json --np 1,64,1024`` prints the predicted
times, speedup and efficiency (``--json`` for scripts); ``--expect-speedup 1024:>=400`` turns
it into a regression check that exits with status 1 when the prediction falls short. A sweep
keeps every process count that succeeds: a deadlock or model error at one np is a failed row of
the table (details on stderr, in ``--json`` under ``failures``); ``--fail-on`` decides whether
that makes the exit status 1.
``parjava predict --goal FILE`` simulates a LogGOPSim GOAL schedule instead (:mod:`parjava.goal`).
"""

from __future__ import annotations

import argparse
import json
import operator
import sys
from pathlib import Path
from typing import Any, Callable

from .. import goal
from ..errors import UsageError

EPILOG = """examples:
  parjava predict jacobi.json --machine cluster.json --np 1,4,16,64,256,1024
  parjava predict jacobi.json --machine infiniband-edr --np 1,1024 --params N=8192,niter=50
  parjava predict jacobi.json --machine cluster.json --np 1,64,1024 --expect-speedup 1024:>=400
  parjava predict jacobi.json --machine cluster.json --np 64 --trace-out jacobi-64.otf2
  parjava predict jacobi.json --machine cluster.json --np 8 --algorithm allreduce=ring --json
  parjava predict --goal allreduce.goal -L 2500 -o 1500 -g 1000 -G 6 -O 0 -S 65535
  parjava predict mg.json --machine cluster.json --np 1,2,4,8 --fail-on none

--fail-on (repeatable; default: failure):
  failure   exit 1 when the prediction failed at some process count (deadlock, model error);
            the others are still printed
  warning   exit 1 when a run produced a warning (as well as on failures if also given)
  self-check exit 1 when the model failed the self-check of its estimation (or has none)
  none      exit 0 as long as at least one process count was predicted

exit status: 0 success, 1 an --expect-speedup or --fail-on check failed, 2 usage or input
error (also when the prediction failed at every process count)
"""

_FAIL_ON = ("failure", "warning", "self-check", "none")

_OPS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
    "==": lambda a, b: abs(a - b) <= 1e-9 * max(1.0, abs(b)),
}


def register(subparsers: Any) -> None:
    """Add the ``predict`` verb."""
    parser = subparsers.add_parser(
        "predict",
        help="predict run time, speedup and efficiency of a program model",
        description="Interpret a program model (parjava model JSON) on a machine description "
        "for one or more process counts, or simulate a GOAL schedule under LogGP.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("model", nargs="?", help="program model JSON (docs/model-schema.md)")
    parser.add_argument(
        "--machine",
        metavar="M",
        help="machine description JSON file, or a preset name (parjava.Machine.preset)",
    )
    parser.add_argument(
        "--np",
        default="1",
        metavar="LIST",
        help="process counts, comma-separated, e.g. 1,64,1024 (default 1)",
    )
    parser.add_argument(
        "--threads", default="1", metavar="LIST", help="threads per process (default 1)"
    )
    parser.add_argument(
        "--params",
        action="append",
        default=[],
        metavar="NAME=VALUE[,...]",
        help="override model parameters, e.g. N=4096,niter=100 (repeatable)",
    )
    parser.add_argument(
        "--algorithm",
        action="append",
        default=[],
        metavar="COLLECTIVE=ALG",
        help="force a collective algorithm, e.g. allreduce=ring (repeatable)",
    )
    parser.add_argument(
        "--opaque",
        choices=("expected", "sampled"),
        default="expected",
        help="how profiled branch probabilities and trip counts are used (default expected)",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of --opaque sampled")
    parser.add_argument(
        "--no-contention",
        action="store_true",
        help="Hockney/table networks without endpoint link contention (textbook model)",
    )
    parser.add_argument(
        "--expect-speedup",
        action="append",
        default=[],
        metavar="NP:OPVALUE",
        help="check the speedup at NP, e.g. 1024:>=400; exit 1 if it fails (repeatable)",
    )
    parser.add_argument(
        "--fail-on",
        action="append",
        default=[],
        choices=_FAIL_ON,
        help="what makes the exit status 1: failure (default), warning, self-check, none "
        "(see below)",
    )
    parser.add_argument(
        "--max-depth",
        type=int,
        default=10000,
        metavar="N",
        help="call depth limit of recursive models (default 10000)",
    )
    parser.add_argument(
        "--opaque-recursion",
        action="store_true",
        help="run a recursion whose depth only opaque (profiled) conditions decide",
    )
    parser.add_argument("--hot", type=int, default=5, metavar="N", help="list N hot fragments")
    parser.add_argument("--json", action="store_true", help="print the prediction as JSON")
    parser.add_argument(
        "--trace-out",
        metavar="PATH",
        help="write the model trace of the largest process count as OTF2 to PATH",
    )
    goal.add_cli_arguments(parser)
    parser.set_defaults(func=run)


def _ints(text: str, what: str) -> list[int]:
    try:
        values = [int(v) for v in text.replace(" ", "").split(",") if v]
    except ValueError:
        raise UsageError(f"{what} must be integers separated by commas, not {text!r}") from None
    if not values or min(values) < 1:
        raise UsageError(f"{what} must be integers >= 1, not {text!r}")
    return values


def _params(items: list[str]) -> dict[str, int | float]:
    out: dict[str, int | float] = {}
    for item in items:
        for pair in item.split(","):
            if not pair.strip():
                continue
            name, sep, value = pair.partition("=")
            if not sep:
                raise UsageError(f"--params expects NAME=VALUE, not {pair!r}")
            try:
                out[name.strip()] = int(value)
            except ValueError:
                try:
                    out[name.strip()] = float(value)
                except ValueError:
                    raise UsageError(f"--params {name}: {value!r} is not a number") from None
    return out


def _algorithms(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        name, sep, alg = item.partition("=")
        if not sep:
            raise UsageError(f"--algorithm expects COLLECTIVE=ALGORITHM, not {item!r}")
        out[name.strip()] = alg.strip()
    return out


def _machine(spec: str | None) -> Any:
    if not spec:
        raise UsageError("--machine is required (a machine JSON file or a preset name)")
    if Path(spec).exists():
        try:
            from ..machine import Machine  # type: ignore[attr-defined]
        except ImportError:
            return Path(spec).read_text(encoding="utf-8")
        return Machine.load(spec)
    try:
        from ..machine import Machine  # type: ignore[attr-defined]
    except ImportError:
        raise UsageError(f"--machine {spec}: no such file") from None
    return Machine.preset(spec)


def _checks(items: list[str]) -> list[tuple[int, str, float]]:
    out = []
    for item in items:
        np_text, sep, cond = item.partition(":")
        op = next((o for o in (">=", "<=", "==", ">", "<") if cond.startswith(o)), None)
        if not sep or op is None:
            raise UsageError(
                f"--expect-speedup expects NP:OPVALUE such as 1024:>=400, not {item!r}"
            )
        try:
            out.append((int(np_text), op, float(cond[len(op) :])))
        except ValueError:
            raise UsageError(f"--expect-speedup {item!r}: NP and VALUE must be numbers") from None
    return out


def run(args: argparse.Namespace) -> int:
    """Run the verb; returns the exit status."""
    if getattr(args, "goal", None):
        return int(goal.run_cli(args))
    if not args.model:
        raise UsageError("give a model JSON file (or --goal FILE for a GOAL schedule)")
    from ..model import Model
    from ..prediction import interpret

    model = Model.load(args.model)
    machine = _machine(args.machine)
    nps = _ints(args.np, "--np")
    checks = _checks(args.expect_speedup)
    for np_, _, _ in checks:
        if np_ not in nps:
            nps.append(np_)
    nps = sorted(set(nps))
    fail_on = set(args.fail_on or ["failure"])
    if "none" in fail_on and len(fail_on) > 1:
        raise UsageError("--fail-on none cannot be combined with other conditions")
    pred = interpret(
        model,
        machine,
        np=nps,
        threads=_ints(args.threads, "--threads"),
        params=_params(args.params),
        opaque=args.opaque,
        seed=args.seed,
        algorithms=_algorithms(args.algorithm),
        endpoint_contention=not args.no_contention,
        max_depth=args.max_depth,
        opaque_recursion=args.opaque_recursion,
    )
    failed = []
    speedup = dict(zip(pred.np.tolist(), pred.speedup().tolist()))
    for np_, op, value in checks:
        got = speedup.get(np_)
        if got is None:
            failed.append(f"speedup at np={np_}: the prediction failed at that np")
        elif not _OPS[op](got, value):
            failed.append(f"speedup at np={np_} is {got:.4g}, expected {op}{value:g}")
    if "failure" in fail_on:
        failed += [
            f"the prediction failed at np={f.np} threads={f.threads} ({f.kind})"
            for f in pred.failures
        ]
    if "warning" in fail_on and pred.warnings:
        failed.append(f"{len(pred.warnings)} warning(s) (--fail-on warning)")
    failed += _self_check_failures(model, fail_on)
    if args.trace_out:
        trace = pred.trace(np=int(pred.np[-1]))
        trace.write(args.trace_out)
    if args.json:
        doc = pred.to_dict()
        doc["hot"] = pred.hot(args.hot)
        doc["checks"] = {"failed": failed, "count": len(checks)}
        doc["self_check"] = model.self_check
        print(json.dumps(doc, indent=1))
    else:
        print(f"model {model.name}: {len(model)} nodes")
        if pred.runs:
            print(f"network: {pred.network}")
        print(
            f"{'np':>8} {'threads':>7} {'time [s]':>14} {'± bound':>10} {'speedup':>9} {'eff.':>6}"
        )
        for row in pred.table():
            if row["status"] != "ok":
                print(f"{row['np']:>8} {row['threads']:>7} {'FAILED':>14}  {row['error']}")
                continue
            print(
                f"{row['np']:>8} {row['threads']:>7} {row['time']:>14.6g} "
                f"{row['error_bound']:>10.2g} {row['speedup']:>9.4g} {row['efficiency']:>6.3f}"
            )
        hot = pred.hot(args.hot)
        if hot:
            print(f"hot fragments at np={int(pred.np[-1])} (share of the run's time):")
            for r in hot:
                where = f"line {r['line']}" if r["line"] else "no source line"
                print(
                    f"  {r['share'] * 100:5.1f}%  node {r['id']:<5} {r['kind']:<8} "
                    f"{r['label']:<20} {where}"
                )
        for f in pred.failures:
            print(f"failed at np={f.np} threads={f.threads}: {f.message}", file=sys.stderr)
        for w in pred.warnings:
            if w.startswith("the model failed its self-check"):
                continue  # the self-check line below says it
            print(f"warning: {w}", file=sys.stderr)
        if model.self_check is not None:
            print(_self_check_line(model.self_check), file=sys.stderr)
        for msg in failed:
            print(f"check failed: {msg}", file=sys.stderr)
    return 1 if failed else 0


def _self_check_line(check: dict[str, Any]) -> str:
    """One line about the estimation's self-check recorded in the model."""
    state = "passed" if check.get("passed") else "FAILED"
    return (
        f"model self-check {state} at np={check.get('np')}: coverage "
        f"{100 * check.get('coverage', 0.0):.0f}% of its estimation run "
        f"({100 * check.get('error', 0.0):+.0f}%)"
        + ("" if check.get("passed") else f" -- {check.get('message', '')}")
    )


def _self_check_failures(model: Any, fail_on: set[str]) -> list[str]:
    """--fail-on self-check: the model's failed self-check as a failed check."""
    check = model.self_check
    if "self-check" not in fail_on:
        return []
    if check is None:
        return ["the model has no self-check (estimate it with parjava estimate)"]
    if not check.get("passed"):
        return [f"the model failed its self-check: {check.get('message', '')}"]
    return []
