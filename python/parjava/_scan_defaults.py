"""Default thresholds of :func:`parjava.scan`.

In a module of their own so the command line shows them in ``--help`` without importing NumPy
or the C++ extension.
"""

from __future__ import annotations

#: Default ε: one microsecond. Waits shorter than this are indistinguishable from the tracer's
#: per-call overhead (a few hundred ns) and the residual clock offset between processes.
DEFAULT_EPS = 1e-6
#: Default Δ_SR: five microseconds, about ten times the cost of a small MPI call, so only
#: call overhead and trivial bookkeeping fit between a send and the receive that follows it.
DEFAULT_SEND_RECV_DELTA = 5e-6
