// The passes of match() (matching.hpp), one file each. Internal to the trace part.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "parjava/trace/trace.hpp"

namespace parjava::trace::detail {

// Locations grouped by world rank: processes[r] lists the locations of rank r in location
// order. Locations without a rank are not in it (their messages cannot be matched).
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

// Events of one process in time order (ties: location order, then event order) among those
// whose kind satisfies `wanted`; with one location per process this is just its range. MPI
// orders messages and requests per process, not per thread.
template <typename Wanted, typename Visit>
void for_each_in_process(const Trace &trace, const std::vector<std::uint32_t> &locations,
                         Wanted wanted, Visit visit, std::vector<EventIndex> &scratch) {
  const auto &kind = trace.events.kind;
  if (locations.size() == 1) {
    const auto end = trace.location_end(locations.front());
    for (auto i = trace.location_begin(locations.front()); i < end; ++i) {
      if (wanted(kind[static_cast<std::size_t>(i)])) {
        visit(i);
      }
    }
    return;
  }
  scratch.clear();
  for (const auto l : locations) {
    const auto end = trace.location_end(l);
    for (auto i = trace.location_begin(l); i < end; ++i) {
      if (wanted(kind[static_cast<std::size_t>(i)])) {
        scratch.push_back(i);
      }
    }
  }
  // Locations are visited in order and events are sorted within each, so a stable sort by
  // time breaks ties by location, then by record order.
  const auto &time = trace.events.time;
  std::stable_sort(scratch.begin(), scratch.end(), [&](EventIndex a, EventIndex b) {
    return time[static_cast<std::size_t>(a)] < time[static_cast<std::size_t>(b)];
  });
  for (const auto i : scratch) {
    visit(i);
  }
}

// Per location: Enter<->Leave, enclosing region and call site, CollectiveBegin<->End,
// lock request/acquire/release, interval markers.
void match_nesting(Trace &trace);
// Per process: request post<->completion/test/cancellation by request id.
void match_requests(Trace &trace, const Processes &processes);
// Sends<->receives per envelope in non-overtaking order (needs requests matched).
void match_messages(Trace &trace, const Processes &processes);
// Collective instances per communicator sequence (needs nesting: uses enclosing regions).
void match_collectives(Trace &trace, const Processes &processes);

} // namespace parjava::trace::detail
