"""Trace replay and what-ifs: ``parjava.replay(trace, machine, ...)`` (issue 14 item 1).

A recorded run is re-simulated on a :class:`parjava.Machine`: the computation between MPI
calls as measured (optionally scaled), every MPI call executed again by the interpreter's own
engine with its recorded arguments (eager or rendezvous by size, requests completed where the
trace completed them, collectives as algorithms) on the machine's network. Any OTF2 trace with
MPI events works: parjava's tracer, Score-P, a colleague's run of a Fortran code.

What-ifs, one argument each: ``network="ideal"`` (zero latency, unlimited bandwidth),
another ``machine`` (a :class:`Machine`, a preset name or a machine JSON file),
``scale={"solver": 0.5, "solver.c:88": 2, "rank 3": 0.8}`` (computation in a region, before
a call site, on a rank), ``balance=True`` (every rank's computation in each phase set to the
mean), ``power=True`` (computation times the machine's ``power``).

The result, :class:`Replay`, holds the replayed run as a model :class:`parjava.Trace`, so
``scan``, ``intervals``, the critical path and the report apply to it unchanged; its
:meth:`Replay.table` sets it side by side with the original. The rules and their limits are in
docs/replay.md.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
from collections.abc import Mapping
from functools import cached_property
from typing import Any

import numpy as np

from ._core_loader import load_core
from .errors import UsageError
from .machine import Machine, Network
from .profile import OUTSIDE, Profile, as_trace, pandas
from .trace import Trace

MachineLike = Machine | str | os.PathLike

_SITE = re.compile(r"^(?P<file>.+):(?P<line>\d+)$")
_RANK = re.compile(r"^rank\s*(?P<rank>\d+)$")


def as_machine(machine: Any, verb: str) -> Machine:
    """Return a :class:`Machine` from one, a preset name or the path of a machine JSON file."""
    if isinstance(machine, Machine):
        return machine
    if isinstance(machine, (str, os.PathLike)):
        text = os.fspath(machine)
        if text in Machine.preset_names():
            return Machine.preset(text)
        if os.path.exists(text):
            return Machine.load(text)
        raise UsageError(
            f"{verb}: machine {text!r} is neither a preset ({', '.join(Machine.preset_names())}) "
            "nor a machine JSON file"
        )
    raise UsageError(
        f"{verb}: machine must be a parjava.Machine, a preset name or a machine JSON path, got "
        f"{type(machine).__name__}"
    )


def _factors(trace: Trace, scale: Mapping[Any, float] | None) -> dict[str, Any]:
    """Turn ``scale`` keys into the per-region, per-call-site and per-rank factor vectors."""
    out: dict[str, Any] = {"compute": 1.0, "region": [], "site": [], "rank": []}
    if not scale:
        return out
    if not isinstance(scale, Mapping):
        raise UsageError("scale must be a dict: {region, 'file:line', 'rank N' or '*': factor}")
    regions = trace.regions
    sites = trace.callsites
    region = np.ones(len(regions))
    site = np.ones(len(sites))
    rank = np.ones(max(trace.process_count, 1))
    used = {"region": False, "site": False, "rank": False}
    for key, value in scale.items():
        try:
            factor = float(value)
        except (TypeError, ValueError):
            raise UsageError(f"scale[{key!r}] must be a number, got {value!r}") from None
        if not factor >= 0 or not np.isfinite(factor):
            raise UsageError(f"scale[{key!r}] must be a finite factor >= 0, got {value!r}")
        text = str(key).strip()
        if isinstance(key, (int, np.integer)) or _RANK.match(text):
            r = int(key) if isinstance(key, (int, np.integer)) else int(_RANK.match(text)["rank"])
            if not 0 <= r < len(rank):
                raise UsageError(f"scale: rank {r} is not in the trace (0..{len(rank) - 1})")
            rank[r] *= factor
            used["rank"] = True
            continue
        if text in ("*", "all", "compute"):
            out["compute"] *= factor
            continue
        matched = False
        m = _SITE.match(text)
        if m:
            file, line = m["file"], int(m["line"])
            for s in sites:
                if s.line == line and (s.file == file or s.file.endswith("/" + file)):
                    site[s.index] *= factor
                    matched = used["site"] = True
            for r in regions:
                if (
                    r.function is None
                    and r.file
                    and (r.file == file or r.file.endswith("/" + file))
                    and r.line_begin <= line <= max(r.line_end, r.line_begin)
                ):
                    region[r.index] *= factor
                    matched = used["region"] = True
        else:
            for r in regions:
                if r.function is None and fnmatch.fnmatchcase(r.name, text):
                    region[r.index] *= factor
                    matched = used["region"] = True
        if not matched:
            user = sorted({r.name for r in regions if r.function is None})[:12]
            raise UsageError(
                f"scale: {text!r} matches no user region, call site (file:line) or rank of the "
                f"trace; its user regions: {', '.join(user) or '(none: only MPI calls)'}"
            )
    out["region"] = region.tolist() if used["region"] else []
    out["site"] = site.tolist() if used["site"] else []
    out["rank"] = rank.tolist() if used["rank"] else []
    return out


def replay(
    trace: Trace | str | os.PathLike[str],
    machine: MachineLike,
    *,
    network: str | Network | None = None,
    scale: Mapping[Any, float] | None = None,
    balance: bool = False,
    power: bool = False,
    call_overhead: str = "minimum",
    recorded_on: MachineLike | None = None,
    algorithms: Mapping[str, str] | None = None,
    contention: bool = True,
    record_trace: bool = True,
) -> Replay:
    """Replay a traced run on ``machine`` and return the :class:`Replay`.

    Args:
        trace: a :class:`parjava.Trace` (real or model) or the path of an OTF2 archive with
            MPI events.
        machine: the target: a :class:`parjava.Machine`, a preset name or a machine JSON file
            (``parjava netbench`` writes the one of the machine the trace ran on).
        network: ``"ideal"`` (zero latency, unlimited bandwidth) or a :class:`parjava.Network`
            used between every pair of ranks; default the machine's own.
        scale: factors on computation: ``{"region": f}`` (a user region or interval, ``*``
            wildcards allowed), ``{"file.c:88": f}`` (the computation ending at a call from
            that line, or in a region defined there), ``{"rank 3": f}`` or ``{3: f}``,
            ``{"*": f}`` for all of it. Factors multiply.
        balance: set every rank's computation in each phase (between collectives over all
            ranks) to the mean over the ranks.
        power: multiply computation by the machine's ``power`` (a slower or faster processor).
        call_overhead: ``"minimum"`` (each communicating call also costs its function's own
            overhead: the least any of its calls took in the trace beyond the network model's
            time for that call alone on ``recorded_on``, floored at 0) or ``"none"`` (only the
            network model's times).
        recorded_on: the machine the trace ran on, whose network time ``"minimum"`` takes
            out of the recorded call durations; default ``machine`` as given, before
            ``network`` replaces its network (the calls were not measured on the what-if).
        algorithms: collective algorithm overrides, as for :func:`parjava.interpret`.
        contention: serialise messages on each rank's injection and ejection link.
        record_trace: build the replayed trace (:attr:`Replay.trace`); off is faster.

    """
    original = as_trace(trace, "replay")
    target = as_machine(machine, "replay")
    measured_on = target if recorded_on is None else as_machine(recorded_on, "replay")
    core = load_core()
    what_if = []
    if network is not None:
        if isinstance(network, str) and network.lower() == "ideal":
            # The machine's name says "(ideal network)" already.
            target = Machine._wrap(core.ideal_network(target._core))
        elif isinstance(network, Network):
            has_inter = target._core.inter_node is not None
            target = target.with_networks(network, network if has_inter else None)
            what_if.append(f"network {network._core.describe()}")
        else:
            raise UsageError(f'network must be "ideal" or a parjava.Network, got {network!r}')
    if call_overhead not in ("minimum", "none"):
        raise UsageError(f'call_overhead must be "minimum" or "none", got {call_overhead!r}')
    factors = _factors(original, scale)
    compute = factors["compute"] * (target.power if power else 1.0)
    if scale:
        what_if.append("scale " + ", ".join(f"{k}={v:g}" for k, v in scale.items()))
    if balance:
        what_if.append("balanced computation")
    if power and target.power != 1.0:
        what_if.append(f"power {target.power:g}")
    result = core.replay(
        original.core,
        target._core,
        compute_scale=float(compute),
        region_scale=factors["region"],
        callsite_scale=factors["site"],
        rank_scale=factors["rank"],
        balance=bool(balance),
        call_overhead=call_overhead,
        record_trace=bool(record_trace),
        algorithms=dict(algorithms or {}),
        contention=bool(contention),
        overhead_machine=measured_on._core,
    )
    return Replay(result, original, target, "; ".join(what_if) or "as recorded")


class Replay:
    """A replayed run beside its original: times, the replayed trace, a side-by-side table.

    ``time`` and ``end_times`` (per rank) are seconds from the start of the trace, like
    ``original_time`` and ``original_end_times``; ``trace`` is the replayed run (a model
    :class:`parjava.Trace`, None with ``record_trace=False``).
    """

    def __init__(self, result: Any, original: Trace, machine: Machine, what_if: str) -> None:
        self._result = result
        self._prediction = result.prediction
        self.original = original
        self.machine = machine
        self.what_if = what_if

    # --- figures -------------------------------------------------------------------------

    @property
    def time(self) -> float:
        """Seconds: the replayed run's end (the latest rank)."""
        return float(self._prediction.program_time)

    @property
    def end_times(self) -> np.ndarray:
        """Seconds: when each rank ends in the replay."""
        return np.asarray(self._prediction.end_times, dtype=np.float64)

    @property
    def original_time(self) -> float:
        """Seconds: the recorded run's makespan (first to last event of the main threads)."""
        return float(self._result.original_time)

    @property
    def original_end_times(self) -> np.ndarray:
        """Seconds: when each rank's last event was recorded, from the trace's start."""
        return np.asarray(self._result.original_end_times, dtype=np.float64)

    @property
    def change(self) -> float:
        """Relative change of the run time: ``time / original_time - 1``."""
        return self.time / self.original_time - 1.0 if self.original_time > 0 else 0.0

    @property
    def speedup(self) -> float:
        """``original_time / time``."""
        return self.original_time / self.time if self.time > 0 else float("inf")

    @property
    def notes(self) -> list[str]:
        """What the replay approximated (unmatched messages, threads not replayed, ...)."""
        return list(self._result.notes)

    @property
    def warnings(self) -> list[str]:
        """Warnings of the engine (messages never received, an Rsend before its receive)."""
        return list(self._prediction.warnings)

    @property
    def statistics(self) -> dict[str, float]:
        """Events replayed, steps, distinct calls, seconds building and running, events/s."""
        r = self._result
        seconds = r.build_seconds + r.run_seconds
        return {
            "events": int(r.events),
            "steps": int(r.steps),
            "calls": int(r.calls),
            "build_seconds": float(r.build_seconds),
            "run_seconds": float(r.run_seconds),
            "events_per_second": float(r.events / seconds) if seconds > 0 else float("inf"),
            "engine_events": int(self._prediction.engine["events"]),
        }

    @cached_property
    def trace(self) -> Trace | None:
        """The replayed run as a model trace (scan, intervals and reports apply)."""
        core = self._prediction.trace()
        return None if core is None else Trace(core)

    # --- tables --------------------------------------------------------------------------

    def table(self) -> Any:
        """Per rank and in total: original and replayed end time, difference (a DataFrame)."""
        pd = pandas()
        original = self.original_end_times
        replayed = self.end_times
        ranks = [f"rank {r}" for r in range(len(replayed))]
        frame = pd.DataFrame(
            {
                "original": np.append(original, self.original_time),
                "replayed": np.append(replayed, self.time),
            },
            index=pd.Index([*ranks, "run"], name="rank"),
        )
        frame["difference"] = frame["replayed"] - frame["original"]
        frame["change"] = np.where(
            frame["original"] > 0, frame["replayed"] / frame["original"] - 1.0, 0.0
        )
        return frame

    def regions(self) -> Any:
        """Per region (MPI call or user region): seconds in the original and in the replay.

        Exclusive seconds summed over the main threads of all ranks; "(outside any region)"
        is the computation of a trace that records MPI calls only. Largest changes first.
        """
        pd = pandas()
        if self.trace is None:
            raise UsageError("regions() needs the replayed trace: replay(..., record_trace=True)")

        def totals(profile: Profile) -> Any:
            rows = profile.process_rows
            data = profile.exclusive[rows].sum(axis=0) if len(rows) else profile.exclusive.sum(0)
            series = pd.Series(data, index=profile.region_names)
            return series.groupby(level=0, sort=False).sum()

        original = totals(Profile(self.original))
        replayed = totals(Profile(self.trace))
        frame = pd.concat([original.rename("original"), replayed.rename("replayed")], axis=1)
        frame = frame.fillna(0.0)
        frame = frame[(frame["original"] > 0) | (frame["replayed"] > 0)]
        frame["difference"] = frame["replayed"] - frame["original"]
        frame.index.name = "region"
        return frame.reindex(frame["difference"].abs().sort_values(ascending=False).index)

    def to_pandas(self) -> Any:
        """Return the per-rank table (:meth:`table`)."""
        return self.table()

    def to_dict(self) -> dict[str, Any]:
        """Everything as plain data: figures, per-rank times, notes, warnings, statistics."""
        return {
            "what_if": self.what_if,
            "machine": self.machine.name,
            "original_time": self.original_time,
            "time": self.time,
            "change": self.change,
            "original_end_times": self.original_end_times.tolist(),
            "end_times": self.end_times.tolist(),
            "notes": self.notes,
            "warnings": self.warnings,
            "statistics": self.statistics,
        }

    def to_json(self, path: str | os.PathLike[str] | None = None) -> str:
        """Return the :meth:`to_dict` document as JSON (written to ``path`` when given)."""
        text = json.dumps(self.to_dict(), indent=1)
        if path is not None:
            with open(path, "w", encoding="utf-8") as out:
                out.write(text)
        return text

    def report(self) -> str:
        """Return a text report: what changed, the run time before and after, ranks, notes."""
        lines = [
            f"replay of {self.original.metadata.get('path') or 'a trace'} on machine "
            f"'{self.machine.name}' ({self.what_if})",
            f"run time: original {self.original_time:.6g} s, replayed {self.time:.6g} s "
            f"({self.change:+.1%})",
            "",
            f"{'rank':>8} {'original s':>12} {'replayed s':>12} {'change':>8}",
        ]
        for r, (a, b) in enumerate(zip(self.original_end_times, self.end_times)):
            change = f"{b / a - 1:+.1%}" if a > 0 else ""
            lines.append(f"{r:>8} {a:>12.6g} {b:>12.6g} {change:>8}")
        if self.trace is not None:
            regions = self.regions().head(10)
            lines += ["", f"{'region':<32} {'original s':>12} {'replayed s':>12}"]
            for name, row in regions.iterrows():
                label = name if name != OUTSIDE else "computation (outside regions)"
                lines.append(f"{label[:32]:<32} {row['original']:>12.6g} {row['replayed']:>12.6g}")
        for note in self.notes:
            lines.append(f"note: {note}")
        for warning in self.warnings:
            lines.append(f"warning: {warning}")
        return "\n".join(lines)

    def plot(self, ax: Any = None) -> Any:
        """Bars of each rank's end time, original beside replayed; returns the figure."""
        import matplotlib.pyplot as plt

        if ax is None:
            fig, ax = plt.subplots(figsize=(7, 3.5))
        else:
            fig = ax.figure
        ranks = np.arange(len(self.end_times))
        ax.bar(ranks - 0.2, self.original_end_times, width=0.4, label="original")
        ax.bar(ranks + 0.2, self.end_times, width=0.4, label=f"replayed ({self.what_if})")
        ax.set_xlabel("rank")
        ax.set_ylabel("end time [s]")
        ax.set_title(f"replay on {self.machine.name}: {self.change:+.1%}")
        ax.legend(loc="lower right")
        return fig

    def __repr__(self) -> str:
        return (
            f"<Replay on {self.machine.name} ({self.what_if}): {self.time:.6g} s, original "
            f"{self.original_time:.6g} s ({self.change:+.1%})>"
        )


__all__ = ["Replay", "as_machine", "replay"]
