// The clock condition of a matched trace: an event that another one causes cannot happen
// before it. A receive completes after its send started; a member leaves a blocking collective
// after the members it waits for entered it. Timestamps from unsynchronised clocks (or a
// clock read that was preempted) can break it, and analyses then see negative or inflated
// waiting times.
//
// count_clock_violations() counts the breaches the way Scalasca does
// (anchors/mpi-wait-state-patterns.md §5 "Clocks": "p2p: send event later than receive
// event; collective: reference begin later than own end", with the reference of §3.1-§3.6);
// match() stores its result in Trace::clock_violations.
//
// correct_clocks() removes them with the controlled logical clock (Rabenseifner, "The
// controlled logical clock - a global time for trace-based software monitoring of parallel
// applications in workstation clusters", PDP 1997) and its backward amortisation (Becker,
// Rabenseifner, Wolf, Linford, "Scalable timestamp synchronization for event traces of
// message-passing applications", Parallel Computing 35(12), 2009), Scalasca's --time-correct.
// Events only ever move later, by as little as the condition needs, and the local intervals
// around each move change by at most `amortisation_rate`.
#pragma once

#include <vector>

#include "parjava/trace/trace.hpp"

namespace parjava::trace {

// Count the violations of a matched trace (Trace::clock_violations is this, after match()).
// Considered: matched point-to-point messages; instances of blocking collectives by their
// shape, with Scalasca's payload rules (1-to-N only if the root sends, N-to-1 only if the
// root receives; a member sending nothing is waited for by no one, a member receiving
// nothing waits for no one). MPI_Alltoallv/w, non-blocking collectives and collectives on one
// process are left out, as Scalasca leaves them out.
ClockViolations count_clock_violations(const Trace &trace);
// The same, counting only the violations of receives and collective exits on the locations l
// with counted[l] (a part of a parallel analysis, partition.hpp; the parts' counts add up).
ClockViolations count_clock_violations(const Trace &trace, const std::vector<char> &counted);

struct ClockCorrectionOptions {
  // How fast the corrected clock may drift from the recorded one while it absorbs a jump:
  // after a receive is moved forward by J, the events that follow run (1 - rate) slow until
  // they meet their recorded times (forward amortisation, Rabenseifner's gamma), and the
  // events before it are spread over J / rate before it (backward amortisation, Becker et
  // al.). 0.01: local intervals change by at most 1 %.
  double amortisation_rate = 0.01;
};

// Correct the timestamps of a matched trace so that it has no clock violation left: a forward
// replay in causal order sets each event's time to the latest of its recorded time, its
// predecessor's corrected time plus (1 - rate) times the recorded interval, and (receives and
// collective exits) the corrected time of what it waits for; then each forward jump is spread
// backwards over the events before it, as far as the messages those events send allow.
// Recomputes Trace::clock_violations (all zero unless the dependencies formed a cycle, which
// only a damaged trace has: then `cycles_broken` says how many were ignored) and sets
// Trace::clock_correction. The events keep their order within each location.
ClockCorrectionReport correct_clocks(Trace &trace, const ClockCorrectionOptions &options = {});

} // namespace parjava::trace
