// A new Trace holding a subset of another's events (parjava.Trace.filter).
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "parjava/trace/trace.hpp"

namespace parjava::trace {

struct TraceFilter {
  // Keep events with begin <= time < end (ns).
  std::optional<std::pair<Timestamp, Timestamp>> time_window;
  // Keep these locations (indices into Trace::locations); empty = all. The result lists only
  // them, in their original order; ranks, ids and names are unchanged.
  std::vector<std::uint32_t> locations;
  // Keep events whose region column is one of these (a region's Enter/Leave and the events
  // inside it as innermost region); empty = all. Metric events have no region: dropped.
  std::vector<std::uint32_t> regions;
};

// The filtered trace, re-matched on its own events: a message whose partner was filtered
// out counts as unmatched in the result. All definitions but the locations are kept as they
// are, so region, communicator and call-site indices mean the same in both traces.
Trace filter(const Trace &trace, const TraceFilter &keep);

} // namespace parjava::trace
