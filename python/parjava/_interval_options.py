"""The choices of the open definitions of :func:`parjava.intervals.intervals`.

In a module of their own so ``parjava intervals --help`` lists them without importing NumPy or
the C++ extension.
"""

from __future__ import annotations

SOURCES = ("markers", "pcontrol", "regions")

#: What each choice of the open points means (parameter -> value -> C++ enum name).
PRODUCTIVE = {"cpu": "UserCode", "cpu+one-mpi": "UserCodeOneMpi"}
ATTRIBUTION = {"late": "LateProcess", "waiting": "WaitingProcess"}
SENDRECV = {"calls": "CallTime", "messages": "MessageTime"}
EXECUTION = {"accumulated": "Accumulated", "per-execution": "PerExecution"}
LOAD = {"cpu": "UserCode", "cpu+mpi": "UserCodeAndMpi"}
