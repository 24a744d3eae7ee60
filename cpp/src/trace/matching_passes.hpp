// The passes of match() (matching.hpp). Internal to the trace part.
//
//   1. match_location(), once per location: Enter<->Leave, enclosing region and call site,
//      CollectiveBegin<->End, locks, intervals; and, for a process with a single location
//      (the usual case), its requests and the list of its messages, all in the same pass.
//   2. match_process(), for processes with several threads: requests and messages in the
//      process's time order across its threads.
//   3. pair_messages(): sends with receives per envelope.
//   4. build_collectives(): collective instances.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "parjava/trace/trace.hpp"
#include "request_table.hpp"

namespace parjava::trace::detail {

// Locations grouped by world rank: locations_of_rank[r] lists the process locations of rank r
// in location order. Locations without a rank are not in it (their messages cannot be
// matched).
struct Processes {
  std::vector<std::vector<std::uint32_t>> locations_of_rank;
  [[nodiscard]] std::int32_t count() const {
    return static_cast<std::int32_t>(locations_of_rank.size());
  }
};
Processes group_processes(const Trace &trace);

// Whether a location is a thread of an MPI process / SHMEM PE. Metric and accelerator
// locations carry no MPI events; leaving them out keeps the one-location-per-process fast
// path for Score-P traces with metric locations.
inline bool is_process_location(const Location &loc) {
  return loc.rank >= 0 && (loc.type == LocationType::CpuThread || loc.type == LocationType::Other);
}

// A send or a receive to pair (16 bytes: there is one per message end). Lists hold them per
// process in MPI order: sends by their start, receives by their posting.
struct Message {
  EventIndex event;  // Send/IsendPost, or Recv/IrecvComplete (IrecvPost until settled)
  std::int32_t peer; // destination of a send, actual source of a receive
  std::uint32_t comm;
  std::int32_t tag;
};

// What the passes hand to each other: the lists of one process (`rank`), and counts.
struct MatchingLists {
  std::int32_t rank = kNoRank;
  std::vector<Message> sends;
  std::vector<Message> receives;
  std::vector<EventIndex> collective_ends; // in location order
  std::uint64_t posts = 0;                 // Isend/Irecv posts seen
  std::uint64_t completed_posts = 0;       // posts completed or cancelled
};

// Scratch state reused from one location to the next.
struct LocationScratch {
  std::vector<EventIndex> regions;     // open Enter events
  std::vector<EventIndex> intervals;   // open IntervalBegin events
  std::vector<EventIndex> collectives; // open CollectiveBegin events
  std::vector<std::pair<std::uint64_t, EventIndex>> lock_requests;
  std::vector<std::pair<std::uint64_t, EventIndex>> held_locks;
  PendingRequests requests;
};

// Pass 1 on location `l`. `whole_process`: the location is its process's only thread, so its
// requests are matched and its messages listed here. Writes only location l's part of the
// columns, `lists` and `report`: different locations may run concurrently.
void match_location(Trace &trace, std::uint32_t l, bool whole_process, LocationScratch &scratch,
                    MatchingLists &lists, MatchReport &report);
// Pass 2 on the locations of rank `rank` (several threads), into its own `lists`.
void match_process(Trace &trace, std::int32_t rank, const std::vector<std::uint32_t> &locations,
                   MatchingLists &lists);
// Pass 3 on the sends and receives of all lists (each list in MPI order, the lists in
// location order); frees them. Adds the receives that happened before their send to
// `violations` as it pairs them (count_clock_violations()'s point-to-point part).
void pair_messages(Trace &trace, std::vector<MatchingLists> &lists, std::int32_t ranks,
                   ClockViolations &violations);
// Pass 4 on the collective ends of all lists (in location order); frees them. `received`
// (sorted by event) gives the index in its sequence of some CollectiveEnd events: those of a
// parallel analysis part's received locations, which hold only some of their collectives
// (partition.hpp); the others are numbered by counting, the k-th of a location being k.
void build_collectives(Trace &trace, std::vector<MatchingLists> &lists, const Processes &processes,
                       const std::vector<std::pair<EventIndex, std::uint32_t>> *received = nullptr);

// match() in two phases, so that the per-location pass can run in parallel (and, when a trace
// is read, right after each location): location(l) for every location, then complete().
class MatchingRun {
public:
  explicit MatchingRun(Trace &trace);
  // Pass 1 on location l. Thread-safe across locations.
  void location(std::uint32_t l, LocationScratch &scratch);
  // Passes 2-4 and the unmatched report; pairing and collective instances (which touch
  // different columns) run side by side when threads > 1.
  void complete(unsigned threads = 1);
  // Sequence indices of received collective ends (build_collectives), kept by reference.
  void set_collective_sequences(const std::vector<std::pair<EventIndex, std::uint32_t>> &s) {
    sequences_ = &s;
  }

private:
  Trace &trace_;
  const std::vector<std::pair<EventIndex, std::uint32_t>> *sequences_ = nullptr;
  Processes processes_;
  std::vector<MatchingLists> lists_; // per location
  std::vector<MatchReport> reports_; // per location
};

// Request matching shared by passes 1 and 2: apply one request event (kind is a post, a
// completion, a test or a cancellation) of a process to its pending table.
void apply_request(EventColumns &e, EventIndex i, PendingRequests &pending, MatchingLists &lists,
                   MatchReport &report);

} // namespace parjava::trace::detail
