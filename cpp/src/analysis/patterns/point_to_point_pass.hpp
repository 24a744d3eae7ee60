// The single pass over the events: each location in time order, keeping the stack of open
// calls, handing every message, request-completion and lock event to the point-to-point
// pattern analyses (ParJava blocking, non-blocking and close send/receive; Scalasca's Late
// Sender, Wrong Order and Late Receiver). Nothing is allocated per event.
#pragma once

#include <vector>

#include "../scan_context.hpp"
#include "lock_contention.hpp"

namespace parjava::analysis {

// Returns the number of events visited; lock events are appended to `locks` when P1 is on.
std::uint64_t scan_point_to_point(ScanContext &ctx, std::vector<LockEvent> &locks);

} // namespace parjava::analysis
