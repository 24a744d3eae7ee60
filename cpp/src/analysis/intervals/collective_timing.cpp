// Per-instance collective timing (see collective_timing.hpp).
#include "collective_timing.hpp"

#include <algorithm>
#include <cstddef>

namespace parjava::analysis::detail {
namespace {

std::int32_t rank_of_event(const trace::Trace &trace, trace::EventIndex e) {
  return trace.locations[trace.events.location[static_cast<std::size_t>(e)]].rank;
}

// Position of a world rank in a communicator (its rank there), or -1.
std::int64_t comm_rank(const trace::Trace &trace, std::uint32_t comm, std::int32_t world_rank) {
  if (comm >= trace.communicators.size()) {
    return world_rank;
  }
  const auto &members = trace.communicators[comm].members;
  const auto it = std::find(members.begin(), members.end(), world_rank);
  return it == members.end() ? -1 : static_cast<std::int64_t>(it - members.begin());
}

} // namespace

trace::Timestamp member_begin(const trace::Trace &trace, trace::EventIndex end_event) {
  const auto u = static_cast<std::size_t>(end_event);
  const auto begin = trace.events.match[u];
  return begin == trace::kNoEvent ? trace.events.time[u]
                                  : trace.events.time[static_cast<std::size_t>(begin)];
}

std::vector<CollectiveTiming> collective_timings(const trace::Trace &trace) {
  std::vector<CollectiveTiming> timings(trace.collectives.size());
  for (std::size_t k = 0; k < trace.collectives.size(); ++k) {
    const auto &inst = trace.collectives[k];
    auto &t = timings[k];
    for (auto m = inst.first_member; m < inst.first_member + inst.member_count; ++m) {
      const auto end_event = trace.collective_members[m];
      const auto end = trace.events.time[static_cast<std::size_t>(end_event)];
      const auto begin = member_begin(trace, end_event);
      if (m == inst.first_member) {
        t.min_begin = t.max_begin = begin;
        t.min_end = t.max_end = end;
      } else {
        t.min_begin = std::min(t.min_begin, begin);
        t.max_begin = std::max(t.max_begin, begin);
        t.min_end = std::min(t.min_end, end);
        t.max_end = std::max(t.max_end, end);
      }
      if (inst.root != trace::kNoRank && rank_of_event(trace, end_event) == inst.root &&
          !t.has_root) {
        t.root_begin = begin;
        t.has_root = true;
      }
    }
  }
  return timings;
}

trace::Timestamp collective_ready_time(const trace::Trace &trace,
                                       const std::vector<CollectiveTiming> &timings,
                                       std::uint32_t instance, trace::EventIndex end_event) {
  const auto &inst = trace.collectives[instance];
  const auto &t = timings[instance];
  const auto own_begin = member_begin(trace, end_event);
  const auto own_rank = rank_of_event(trace, end_event);
  switch (trace::function_info(inst.function).shape) {
  case trace::CollectiveShape::OneToAll:
    if (own_rank == inst.root || !t.has_root) {
      return own_begin;
    }
    return t.root_begin;
  case trace::CollectiveShape::AllToOne:
    return own_rank == inst.root ? t.max_begin : own_begin;
  case trace::CollectiveShape::Prefix: {
    // Rare (MPI_Scan, MPI_Exscan): scan the members for the lower communicator ranks.
    const auto own = comm_rank(trace, inst.comm, own_rank);
    auto ready = own_begin;
    for (auto m = inst.first_member; m < inst.first_member + inst.member_count; ++m) {
      const auto other = trace.collective_members[m];
      if (comm_rank(trace, inst.comm, rank_of_event(trace, other)) <= own) {
        ready = std::max(ready, member_begin(trace, other));
      }
    }
    return ready;
  }
  default:
    return t.max_begin;
  }
}

} // namespace parjava::analysis::detail
