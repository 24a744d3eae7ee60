"""parjava: predict and explain the performance of parallel programs.

The C++ engine (``parjava._core``) does the work; this package gives it a Python face:
objects with NumPy arrays, matplotlib figures and HTML reports. See README.md for a tour.
"""

from __future__ import annotations

import os as _os

# A development build (`make build`) keeps the compiled parts in <build>/package/parjava;
# PARJAVA_BUILD_DIR=<build>/package makes them part of this package without installing.
_build_dir = _os.environ.get("PARJAVA_BUILD_DIR")
if _build_dir:
    __path__.append(_os.path.join(_build_dir, "parjava"))

from . import goal, scaling  # noqa: E402  (pure Python until used; _core loads lazily)
from .errors import (  # noqa: E402
    AnalysisError,
    DeadlockError,
    Error,
    FrontendError,
    MachineError,
    MissingDependencyError,
    ModelError,
    RunError,
    TraceError,
    UsageError,
)
from .frontend import SourceModel, build_model  # noqa: E402
from .model import Model, measured, measured_arg  # noqa: E402
from .prediction import Prediction, interpret, interpret_node  # noqa: E402
from .trace import Category, EventKind, Trace  # noqa: E402

__version__ = "0.1.0"

from .machine import Machine, Network, ThreadCosts  # noqa: E402
from .reporting import Report, report  # noqa: E402
from .scan import Findings, patterns, scan  # noqa: E402
from .topology import Topology  # noqa: E402

# `parjava.trace` is the function that runs a program under the tracer (the module of that
# name, if present, must be imported before this line so the function wins).
from .tracing import include_dir, trace  # noqa: E402

__all__ = [
    "AnalysisError",
    "Category",
    "DeadlockError",
    "Error",
    "EventKind",
    "Findings",
    "FrontendError",
    "Machine",
    "MachineError",
    "MissingDependencyError",
    "Model",
    "ModelError",
    "Network",
    "Prediction",
    "Report",
    "RunError",
    "SourceModel",
    "ThreadCosts",
    "Topology",
    "Trace",
    "TraceError",
    "UsageError",
    "__version__",
    "build_model",
    "goal",
    "include_dir",
    "interpret",
    "interpret_node",
    "measured",
    "measured_arg",
    "patterns",
    "report",
    "scaling",
    "scan",
    "trace",
]
