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

import sys as _sys  # noqa: E402
import types as _types  # noqa: E402
from importlib import import_module as _import_module  # noqa: E402

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

__version__ = "0.1.0"

# Everything else is imported on first use (PEP 562), so `import parjava` and the command line
# start without NumPy, pandas, SciPy, matplotlib or the C++ extension (issue 18: start-up under
# 0.15 s). Name -> (module, attribute); attribute None: the module itself.
_LAZY: dict[str, tuple[str, str | None]] = {
    "goal": (".goal", None),
    "scaling": (".scaling", None),
    "SourceModel": (".frontend", "SourceModel"),
    "build_model": (".frontend", "build_model"),
    "memory_costs": (".frontend", "memory_costs"),
    "Model": (".model", "Model"),
    "measured": (".model", "measured"),
    "measured_arg": (".model", "measured_arg"),
    "Prediction": (".prediction", "Prediction"),
    "interpret": (".prediction", "interpret"),
    "interpret_node": (".prediction", "interpret_node"),
    "Category": (".trace", "Category"),
    "EventKind": (".trace", "EventKind"),
    "Trace": (".trace", "Trace"),
    "Machine": (".machine", "Machine"),
    "Network": (".machine", "Network"),
    "ThreadCosts": (".machine", "ThreadCosts"),
    "Topology": (".topology", "Topology"),
    "Report": (".reporting", "Report"),
    "report": (".reporting", "report"),
    "Findings": (".scan", "Findings"),
    "patterns": (".scan", "patterns"),
    "scan": (".scan", "scan"),
    "include_dir": (".tracing", "include_dir"),
    "trace": (".tracing", "trace"),
    # the explanations of a run (issue 14)
    "CriticalPath": (".causes", "CriticalPath"),
    "RootCauses": (".causes", "RootCauses"),
    "critical_path": (".causes", "critical_path"),
    "root_causes": (".causes", "root_causes"),
    "Comparison": (".compare", "Comparison"),
    "compare": (".compare", "compare"),
    "PopMetrics": (".pop", "PopMetrics"),
    "PopScaling": (".pop", "PopScaling"),
    "pop": (".pop", "pop"),
    "Profile": (".profile", "Profile"),
    "profile": (".profile", "profile"),
    "Replay": (".replay", "Replay"),
    "replay": (".replay", "replay"),
    # sweeps on any executor (issue 15)
    "sweep": (".sweeps", "sweep"),
}


# Public functions named like a submodule of the package.
_FUNCTIONS_OVER_MODULES = frozenset({"scan", "trace", "compare", "pop", "profile", "replay"})


def __getattr__(name: str) -> object:
    """Import a public name's module the first time the name is used."""
    try:
        module_name, attribute = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'parjava' has no attribute {name!r}") from None
    module = _import_module(module_name, __name__)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """Public names, including those not imported yet."""
    return sorted(set(globals()) | set(_LAZY))


class _Package(_types.ModuleType):
    """The package's module type: keeps `parjava.scan` and `parjava.trace` functions.

    The import system sets a package attribute to each submodule it imports. `parjava.scan` and
    `parjava.trace` must stay the functions (scan a trace, run a program under the tracer) when
    the submodules of those names are imported, before or after the functions are first used.
    """

    def __setattr__(self, name: str, value: object) -> None:
        if name in _FUNCTIONS_OVER_MODULES and isinstance(value, _types.ModuleType):
            return
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _Package

__all__ = [
    "AnalysisError",
    "Category",
    "Comparison",
    "CriticalPath",
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
    "PopMetrics",
    "PopScaling",
    "Prediction",
    "Profile",
    "Replay",
    "Report",
    "RootCauses",
    "RunError",
    "SourceModel",
    "ThreadCosts",
    "Topology",
    "Trace",
    "TraceError",
    "UsageError",
    "__version__",
    "build_model",
    "compare",
    "critical_path",
    "goal",
    "include_dir",
    "interpret",
    "interpret_node",
    "measured",
    "measured_arg",
    "memory_costs",
    "patterns",
    "pop",
    "profile",
    "replay",
    "report",
    "root_causes",
    "scaling",
    "scan",
    "sweep",
    "trace",
]
