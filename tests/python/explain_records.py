"""What test_parallel_explain.py compares of the POP metrics and the critical path, made the
same way from the parallel results (mpi_explain_worker.py, on rank 0) and the serial ones."""

from __future__ import annotations

from typing import Any

import numpy as np


def pop_record(metrics: Any, tables: bool) -> dict[str, Any]:
    """Every figure and report of a PopMetrics ({} for None, on the ranks that do not gather).

    The parallel analysis has no ideal-network replay: its transfer note is compared apart.
    """
    if metrics is None:
        return {}
    data = metrics.to_dict()
    note = data.pop("transfer_note", None)
    record = {
        "dict": data,
        "useful": metrics.useful.tobytes(),
        "mpi": metrics.mpi.tobytes(),
        "window": metrics.window,
        "csv": metrics.to_csv(),
        "note": note,
    }
    if tables:
        record["intervals"] = metrics.intervals()
        record["regions"] = metrics.regions()
    return record


def critical_path_record(path: Any) -> dict[str, Any]:
    """The C++ result's arrays bit for bit, and every table and report of a CriticalPath."""
    if path is None:
        return {}
    raw = path._raw
    arrays = {}
    for name in ("activities", "time", "waiting", "path_segments", "path_profile"):
        for column, values in getattr(raw, name).items():
            arrays[f"{name}.{column}"] = np.asarray(values).tobytes()
    arrays["locations"] = np.asarray(raw.locations).tobytes()
    arrays["path_imbalance"] = np.asarray(raw.path_imbalance).tobytes()
    return {
        "arrays": arrays,
        "path": dict(raw.path),
        "segments": path.segments(),
        "profile": path.profile(),
        "by_activity": path.by_activity(),
        "report": path.report(top=20),
        "json": path.to_json(),
        "csv": path.to_csv(),
    }


def root_causes_record(causes: Any) -> dict[str, Any]:
    """The C++ result's delay-cost arrays bit for bit, and every table and report of a
    RootCauses (with the activities' labels they name)."""
    if causes is None:
        return {}
    raw = causes._raw
    arrays = {}
    for name in ("activities", "delay_costs"):
        for column, values in getattr(raw, name).items():
            arrays[f"{name}.{column}"] = np.asarray(values).tobytes()
    arrays["locations"] = np.asarray(raw.locations).tobytes()
    totals = dict(raw.delay_totals)
    return {
        "arrays": arrays,
        "totals": {k: np.float64(v).tobytes() for k, v in totals.items()},
        "table": causes.table(),
        "by_activity": causes.by_activity(),
        "report": causes.report(top=20),
        "tree": causes.tree().to_dict(),
        "json": causes.to_json(),
        "csv": causes.to_csv(),
    }
