// Finds the runtime call (Enter/Leave pair) holding an event on any location: the partner's
// MPI_Send for a receive, the MPI_Irecv that posted a request, the MPI_Wait that completed it.
// Walks back from the event, jumping over closed calls through Leave->Enter links, so the cost
// is the number of events before it inside its own call (1 for a Send in MPI_Send). Events of
// one large completion call (MPI_Waitall of many requests) are looked up in order, so a small
// per-location cache continues forward from the previous answer instead of walking back again.
#pragma once

#include <vector>

#include "parjava/trace/trace.hpp"

namespace parjava::analysis {

class CallLocator {
public:
  explicit CallLocator(const trace::Trace &trace);

  // The innermost Enter open at event `e` (not counting `e` itself), or kNoEvent.
  trace::EventIndex enclosing_enter(trace::EventIndex e);

private:
  struct Cache {
    trace::EventIndex query = trace::kNoEvent;
    trace::EventIndex enter = trace::kNoEvent;
  };
  trace::EventIndex walk_back(trace::EventIndex e) const;

  const trace::Trace &trace_;
  std::vector<Cache> cache_; // per location
};

} // namespace parjava::analysis
