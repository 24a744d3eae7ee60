// Why a run took as long as it did (issue 14 items 2 and 3), from its wait states:
//
//  * the critical path (Böhme, Wolf, de Supinski, Schulz, Geimer: "Scalable critical-path
//    based performance analysis", IPDPS 2012; anchors/mpi-wait-state-patterns.md §7): walking
//    back from the end of the run, the path stays on a process until it reaches a wait state
//    there and then continues on the process that caused it, at the moment the waiting ended;
//    its segments tile the run, so its length is the makespan. Per activity (below) and
//    process: the time on the path; the critical-path imbalance of a call path (a call at its
//    site, or the computation in one region) is how much its time on the path exceeds its
//    mean time per process (waiting excluded), shared among its activities by path time;
//  * delay costs (Böhme, Geimer, Wolf, Arnold: "Identifying the root causes of wait states in
//    large-scale parallel applications", ICPP 2010; anchors §6): a wait state between a
//    waiting process R and the process S it waited for is caused by what S did more than R
//    since their previous synchronisation; the waiting time is distributed over those excess
//    activities of S (short-term costs), and the waiting S itself suffered in that interval is
//    charged, propagated backwards, to the delays that caused it (long-term costs).
//
// Activities are what time is charged to, so that a cost names source lines: an MPI call by
// its function and call site; computation by the innermost user region or interval it runs in
// and the call sites of the MPI calls around it ("computation in solve() between cg.c:180 and
// MPI_Allreduce at cg.c:212"), which locates it in the source even in a trace of MPI calls only.
//
// Wait states are Scalasca's, found by the pattern scanner (Late Sender, Late Receiver, Wait
// at Barrier, Wait at N x N, Late Broadcast, Early Reduce, Early Scan, ε = 0) plus Wait at
// Finalize; only the main thread of each process is analysed.
#pragma once

#include <compare>
#include <cstdint>
#include <vector>

#include "parjava/trace/trace.hpp"

namespace parjava::analysis {

struct Activity {
  std::uint32_t region = trace::kNoRef;   // MPI call or user region; kNoRef: outside regions
  std::uint32_t callsite = trace::kNoRef; // the call's site; computation: the next call's site
  bool computation = false;               // time outside MPI/SHMEM calls
  // Computation: the MPI call that ends it (its region) and the site of the one before it
  // (kNoRef at the start or the end of a process), so that it is "the code between two calls".
  std::uint32_t next_call = trace::kNoRef;
  std::uint32_t previous_callsite = trace::kNoRef;
  friend bool operator==(const Activity &, const Activity &) = default;
};

// When the serial analysis first asks for an activity, so that an analysis of a trace in parts
// (cause_parts.hpp) numbers the activities as it does: {0, l, k} for the k-th request in the
// walk of analysed location l (they are walked in order), {1, time, location, k} for the k-th
// wait state found on trace location `location` at `time` (the scan's order), {2, l, 0} for a
// Wait at Finalize. Ordered as the requests come.
struct ActivityKey {
  std::int64_t phase = 0, a = 0, b = 0, c = 0;
  friend auto operator<=>(const ActivityKey &, const ActivityKey &) = default;
};

// Nanoseconds of one activity on one location.
struct ActivityTime {
  std::uint32_t location = 0;
  std::uint32_t activity = 0;
  double ns = 0.0;
};

struct PathSegment {
  std::uint32_t location = 0;
  trace::Timestamp begin = 0;
  trace::Timestamp end = 0;
};

struct CriticalPath {
  std::vector<PathSegment> segments; // in time order, contiguous
  trace::Timestamp begin = 0;
  trace::Timestamp end = 0;
  std::int64_t length = 0;           // sum of the segments (ns)
  std::vector<ActivityTime> profile; // time on the path per (location, activity)
  std::vector<double> imbalance;     // per activity: its share of its call path's imbalance
  double imbalance_total = 0.0;      // sum over activities (ns)
};

struct DelayCost {
  std::uint32_t location = 0; // the delaying process's main location
  std::uint32_t activity = 0;
  double short_term = 0.0; // ns of waiting it caused directly
  double long_term = 0.0;  // ns of waiting it caused through propagation
};

struct DelayCosts {
  std::vector<DelayCost> costs;
  std::uint64_t wait_states = 0;
  double total_wait = 0.0;   // ns of waiting in all wait states
  double unattributed = 0.0; // ns of waiting with no excess activity in its interval
};

struct CauseAnalysis {
  std::vector<Activity> activities;
  std::vector<std::uint32_t> locations; // analysed locations: each process's main thread
  std::vector<ActivityTime> time;       // exclusive time per (location, activity)
  std::vector<ActivityTime> waiting;    // waiting time per (location, activity)
  CriticalPath critical_path;
  DelayCosts delays;
  double seconds = 0.0; // wall time of the analysis
};

// Analyse a matched trace. Throws Error(Usage) when it has no MPI process.
CauseAnalysis analyze_causes(const trace::Trace &trace);

} // namespace parjava::analysis
