"""Traces: read, inspect, filter and write OTF2 traces (``parjava.Trace``).

A :class:`Trace` is the columnar event trace of the C++ engine (``cpp/src/trace``): one row
per event, stored column by column, grouped by location (a thread of a process) and time
ordered within each location. It reads any OTF2 archive (parjava's tracer, Score-P) and the
interpreter's model traces have the same form, so every analysis works on both.

The container itself (columns, definition tables, selections, summaries) is
:class:`~parjava._trace_data.TraceData`; :class:`Trace` adds the analyses that read it,
``trace.intervals()`` and ``trace.timeline()``. Those modules import the container, this one
imports them, so no import goes in a circle.

Units: event times are integer nanoseconds since the trace's time origin (column ``time``);
everything else in the Python API is in SI seconds (``time_window``, :meth:`summary`).
"""

from __future__ import annotations

import os
from typing import Any

from . import chrome as _chrome
from . import intervals as _intervals
from . import timeline as _timeline
from ._trace_data import (
    COLUMNS,
    CallSite,
    Category,
    Communicator,
    EventColumns,
    EventKind,
    Location,
    Metric,
    Region,
    TraceData,
    otf2_record_name,
)


class Trace(TraceData):
    """A columnar event trace: ``Trace.open("run/traces.otf2")``.

    ``trace.events.time``, ``trace.events.kind``, ... are NumPy views of the columns;
    :attr:`locations`, :attr:`regions`, :attr:`communicators`, :attr:`callsites` and
    :attr:`metrics` are the definition tables the index columns refer to. The matching
    (send↔receive, request post↔completion, collective instances, Enter↔Leave) is computed
    when the trace is loaded; what could not be paired is counted in :attr:`unmatched`, and
    timestamps that contradict it (a receive before its send) in :attr:`clock_violations`.
    """

    def intervals(self, **options: Any) -> _intervals.IntervalTree:
        """Analyse the intervals of this trace (:func:`parjava.intervals.intervals`)."""
        return _intervals.intervals(self, **options)

    def timeline(self, **options: Any) -> Any:
        """Draw the timeline of this trace (:func:`parjava.timeline.timeline`)."""
        return _timeline.timeline(self, **options)

    def to_chrome_trace(self, path: str | os.PathLike[str], **options: Any) -> int:
        """Write Chrome/Perfetto trace-event JSON (:func:`parjava.chrome.write`)."""
        return _chrome.write(self, path, **options)


# help(trace.intervals) shows every option.
Trace.intervals.__doc__ = _intervals.intervals.__doc__
Trace.timeline.__doc__ = _timeline.timeline.__doc__

__all__ = [
    "COLUMNS",
    "CallSite",
    "Category",
    "Communicator",
    "EventColumns",
    "EventKind",
    "Location",
    "Metric",
    "Region",
    "Trace",
    "otf2_record_name",
]
