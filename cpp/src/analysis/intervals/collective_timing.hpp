// Arrival and departure times of every collective instance, computed once from its members
// (Trace::collectives): what the walk of one process needs to know about the others to measure
// start skew (potential synchronisation), end skew (time variation) and the real wait inside a
// collective (notes 004 §4.3).
#pragma once

#include <cstdint>
#include <vector>

#include "parjava/trace/trace.hpp"

namespace parjava::analysis::detail {

struct CollectiveTiming {
  trace::Timestamp min_begin = 0;
  trace::Timestamp max_begin = 0;
  trace::Timestamp min_end = 0;
  trace::Timestamp max_end = 0;
  trace::Timestamp root_begin = 0; // begin of the root's member (valid when has_root)
  bool has_root = false;
};

// A member begins at its CollectiveBegin (the call's entry) and ends at its CollectiveEnd.
trace::Timestamp member_begin(const trace::Trace &trace, trace::EventIndex end_event);

std::vector<CollectiveTiming> collective_timings(const trace::Trace &trace);

// When the member `end_event` (a CollectiveEnd of instance `instance`) could proceed: the
// arrival of the members its result depends on (Scalasca's wait states: all members for
// barriers and all-to-all, the root for one-to-all, everyone for the root of all-to-one, the
// lower ranks for prefix reductions). Its own begin when it depends on nobody.
trace::Timestamp collective_ready_time(const trace::Trace &trace,
                                       const std::vector<CollectiveTiming> &timings,
                                       std::uint32_t instance, trace::EventIndex end_event);

} // namespace parjava::analysis::detail
