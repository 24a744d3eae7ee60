"""Exceptions raised by parjava.

Every user-facing failure is a :class:`Error` subclass whose message names the problem, the
place (file, line, field) and what to do. The command line prints the message without a
traceback and exits with status 2. C++ errors are translated into these classes by
``parjava._core`` (see ``cpp/src/bindings/register_errors.cpp``).
"""

from __future__ import annotations


class Error(Exception):
    """Base class of every parjava error."""


class UsageError(Error, ValueError):
    """Wrong parameters or arguments: a value out of range, an unknown name, wrong units."""


class MachineError(Error):
    """A machine description is missing fields, has negative values or cannot be read."""


class TraceError(Error):
    """A trace archive is malformed, truncated, empty or not OTF2."""


class ModelError(Error):
    """A program model is malformed or refers to something that does not exist."""


class DeadlockError(Error):
    """Interpretation stopped because every unfinished logical process is blocked."""


class FrontendError(Error):
    """The Clang model builder could not process the given sources."""


class RunError(Error):
    """An external program (mpirun, netbench, the traced application) failed."""


class MissingDependencyError(Error):
    """A tool parjava needs (mpirun, a compiler, the Clang frontend) is not installed."""


class AnalysisError(Error):
    """An analysis cannot be computed on the given input."""


__all__ = [
    "AnalysisError",
    "DeadlockError",
    "Error",
    "FrontendError",
    "MachineError",
    "MissingDependencyError",
    "ModelError",
    "RunError",
    "TraceError",
    "UsageError",
]
