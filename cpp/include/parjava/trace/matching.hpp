// Matching: the links between events that analyses follow (ARCHITECTURE §3, "computed once
// and stored as index arrays"). match() recomputes all of them from the event columns:
//
//  - per location, Enter<->Leave nesting, the enclosing region and call site of inner events,
//    CollectiveBegin<->End, LockRequest->Acquire->Release, IntervalBegin<->End;
//  - per process, request post<->completion by request id (Wait*, Test*, cancellation);
//  - send<->receive per MPI envelope (communicator, source, destination, tag) in MPI's
//    non-overtaking order: the k-th send of an envelope pairs with the k-th receive of that
//    envelope, sends ordered by their start and receives by their posting (an Irecv counts
//    where it was posted, not where it completed). Receives carry the actual source and tag
//    (OTF2 records them), so wildcard receives match like any other. This is the rule
//    Scalasca's replay follows (anchors/mpi-wait-state-patterns.md §0);
//  - collective instances: the k-th collective on a communicator at each member location
//    forms instance k (notes 001 §2.6.3; Scalasca's collective instance).
//
// Anything that cannot be paired keeps kNoEvent and is counted in Trace::unmatched; timestamps
// that contradict the pairs are counted in Trace::clock_violations (clock_condition.hpp).
#pragma once

#include "parjava/trace/trace.hpp"

namespace parjava::trace {

// Recompute match, link, the filled region/callsite columns, collectives, collective_members,
// unmatched and clock_violations. Requires events grouped by location and time-ordered within each
// location, with location_offsets set (as TraceBuilder::finish and open() leave them). The
// per-location pass runs on up to `threads` threads; the result does not depend on it.
void match(Trace &trace, unsigned threads = 1);

} // namespace parjava::trace
