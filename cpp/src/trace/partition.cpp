// Parallel analysis helpers (partition.hpp): who owns what, which events the replay sends,
// the merge of own and received events, and the unmatched counts of own locations.
#include "parjava/trace/partition.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <utility>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "matching_passes.hpp"
#include "parallel.hpp"
#include "parjava/error.hpp"
#include "parjava/trace/matching.hpp"

namespace parjava::trace {

PartitionPlan::PartitionPlan(const std::vector<Location> &locations, std::uint32_t parts)
    : parts_(std::max<std::uint32_t>(parts, 1)) {
  for (const auto &l : locations) {
    processes_ = std::max<std::int64_t>(processes_, std::int64_t{l.rank} + 1);
  }
}

std::uint32_t PartitionPlan::owner_of_rank(std::int32_t rank) const {
  if (rank < 0 || processes_ == 0) {
    return 0;
  }
  // Contiguous blocks, sizes differing by at most one: parts need not divide the processes.
  const auto r = std::min<std::int64_t>(rank, processes_ - 1);
  return static_cast<std::uint32_t>(r * parts_ / processes_);
}

namespace {

// The parts that own a member of `comm` (every part when it has no member list).
void comm_owners(const Trace &trace, const PartitionPlan &plan, std::uint32_t comm,
                 std::vector<std::vector<std::uint32_t>> &cache, std::vector<std::uint32_t> &out) {
  out.clear();
  if (comm >= trace.communicators.size() || trace.communicators[comm].members.empty()) {
    if (comm < trace.communicators.size() && trace.communicators[comm].self) {
      return; // MPI_COMM_SELF: nobody else takes part
    }
    for (std::uint32_t d = 0; d < plan.parts(); ++d) {
      out.push_back(d);
    }
    return;
  }
  auto &owners = cache[comm];
  if (owners.empty()) {
    for (const auto rank : trace.communicators[comm].members) {
      owners.push_back(plan.owner_of_rank(rank));
    }
    std::sort(owners.begin(), owners.end());
    owners.erase(std::unique(owners.begin(), owners.end()), owners.end());
  }
  out = owners;
}

constexpr std::uint64_t kNoMember = std::numeric_limits<std::uint64_t>::max();

} // namespace

std::vector<std::vector<EventIndex>> replay_selection(const Trace &trace, std::uint32_t part,
                                                      std::uint32_t parts,
                                                      bool mpi_collective_calls,
                                                      const CollectiveReduction *reduction) {
  const PartitionPlan plan(trace.locations, parts);
  const auto &e = trace.events;
  // (event, destination) pairs: the events partners read, then what they take along.
  std::vector<std::pair<EventIndex, std::uint32_t>> wanted;
  std::vector<std::vector<std::uint32_t>> comm_cache(trace.communicators.size());
  std::vector<std::uint32_t> destinations;
  // Instances that travel reduced, and whether a member is one of their decisive ones.
  std::vector<std::uint8_t> reduced;
  if (reduction != nullptr) {
    reduced.assign(trace.collectives.size(), 0);
    for (std::size_t k = 0; k < reduced.size(); ++k) {
      reduced[k] = travels_reduced(trace, *reduction, k) ? 1 : 0;
    }
  }
  auto is_decisive = [&](std::size_t k, std::size_t u) {
    const auto location = e.location[u];
    for (std::size_t j = 0; j < kDecisiveColumns; ++j) {
      const auto id = reduction->decisive[k * kDecisiveColumns + j];
      if (j != kDecisiveKeys && id != kNoMember &&
          static_cast<std::uint32_t>(id & 0xffffffffU) == location) {
        return true; // (column kDecisiveKeys is a time, not a member)
      }
    }
    // The root's members (uniform root: see travels_reduced).
    const auto root = static_cast<std::int32_t>(
        static_cast<std::uint32_t>(reduction->minima[k * kCollectiveMinima + 2]));
    return root != kNoRank && trace.locations[location].rank == root;
  };
  auto send_to = [&](EventIndex i, std::uint32_t d) {
    if (d == part) {
      return;
    }
    wanted.emplace_back(i, d);
    const auto u = static_cast<std::size_t>(i);
    // The other end on the same location: a request's completion or post, a collective's
    // Begin, a lock's request or release. (A message's match is on another location.)
    // (A collective event's link is its instance, not an event.)
    const bool collective =
        e.kind[u] == EventKind::CollectiveBegin || e.kind[u] == EventKind::CollectiveEnd;
    for (const auto other : {collective ? kNoEvent : e.link[u], e.match[u]}) {
      if (other != kNoEvent && e.location[static_cast<std::size_t>(other)] == e.location[u]) {
        wanted.emplace_back(other, d);
      }
    }
  };
  for (std::size_t u = 0; u < trace.size(); ++u) {
    const auto i = static_cast<EventIndex>(u);
    switch (e.kind[u]) {
    case EventKind::Send:
    case EventKind::IsendPost:
    case EventKind::Recv:
    case EventKind::IrecvComplete:
      // Forward replay (a send to its receiver's part) and backward (a receive to its
      // sender's part): the peer is the partner's world rank.
      if (e.peer[u] >= 0) {
        send_to(i, plan.owner_of_rank(e.peer[u]));
      }
      break;
    case EventKind::CollectiveEnd:
      // With its Begin (its match); a Begin without End forms no instance and stays home.
      if (reduction != nullptr && e.link[u] != kNoEvent &&
          reduced[static_cast<std::size_t>(e.link[u])] != 0 &&
          !is_decisive(static_cast<std::size_t>(e.link[u]), u)) {
        break; // the others read it through the reduction's extremes
      }
      comm_owners(trace, plan, e.comm[u], comm_cache, destinations);
      for (const auto d : destinations) {
        send_to(i, d);
      }
      break;
    case EventKind::LockRequest:
    case EventKind::LockAcquire:
    case EventKind::LockRelease:
      // Lock contention orders every process's lock events of one lock: all parts see them.
      for (std::uint32_t d = 0; d < plan.parts(); ++d) {
        send_to(i, d);
      }
      break;
    default:
      break;
    }
  }
  // The calls holding the selected events: one forward pass per location with its call stack.
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  std::vector<std::pair<EventIndex, std::uint32_t>> calls;
  std::vector<EventIndex> stack;
  std::size_t next = 0;
  while (next < wanted.size()) {
    const auto loc = e.location[static_cast<std::size_t>(wanted[next].first)];
    stack.clear();
    for (EventIndex i = trace.location_begin(loc);
         i < trace.location_end(loc) && next < wanted.size(); ++i) {
      const auto u = static_cast<std::size_t>(i);
      while (next < wanted.size() && wanted[next].first == i) {
        const bool collective =
            e.kind[u] == EventKind::CollectiveBegin || e.kind[u] == EventKind::CollectiveEnd;
        const auto call_region =
            stack.empty() ? kNoRef : e.region[static_cast<std::size_t>(stack.back())];
        const bool mpi_call = call_region < trace.regions.size() &&
                              trace.regions[call_region].paradigm == Paradigm::Mpi;
        const bool skip = collective && mpi_call && !mpi_collective_calls;
        if (!stack.empty() && !skip && e.kind[u] != EventKind::Enter &&
            e.kind[u] != EventKind::Leave) {
          const auto enter = stack.back();
          calls.emplace_back(enter, wanted[next].second);
          const auto leave = e.match[static_cast<std::size_t>(enter)];
          if (leave != kNoEvent) {
            calls.emplace_back(leave, wanted[next].second);
          }
        }
        ++next;
      }
      if (e.kind[u] == EventKind::Enter) {
        stack.push_back(i);
      } else if (e.kind[u] == EventKind::Leave && e.match[u] != kNoEvent) {
        const auto it = std::find(stack.rbegin(), stack.rend(), e.match[u]);
        if (it != stack.rend()) {
          stack.erase(std::prev(it.base()), stack.end());
        }
      }
    }
    while (next < wanted.size() &&
           e.location[static_cast<std::size_t>(wanted[next].first)] == loc) {
      ++next;
    }
  }
  wanted.insert(wanted.end(), calls.begin(), calls.end());
  std::vector<std::vector<EventIndex>> out(plan.parts());
  for (const auto &[event, d] : wanted) {
    out[d].push_back(event);
  }
  for (auto &events : out) {
    std::sort(events.begin(), events.end());
    events.erase(std::unique(events.begin(), events.end()), events.end());
  }
  return out;
}

namespace {

// Insert the received events into `column` in place: grown to `total`, own blocks moved right
// (last location first, so nothing is overwritten before it is moved), received runs written.
template <typename T, typename Received>
void expand(Column<T> &column, std::size_t total, const std::vector<std::uint64_t> &old_offsets,
            const std::vector<std::uint64_t> &new_offsets, const std::vector<std::size_t> &order,
            const std::vector<std::size_t> &first_received, const Received &received) {
  column.resize_for_overwrite(total);
  T *data = column.data();
  for (auto l = old_offsets.size() - 1; l-- > 0;) {
    const auto from = old_offsets[l];
    const auto n = old_offsets[l + 1] - from;
    const auto to = new_offsets[l];
    if (n != 0 && to != from) {
      std::memmove(static_cast<void *>(data + to), static_cast<const void *>(data + from),
                   n * sizeof(T));
    }
    const auto ghosts = new_offsets[l + 1] - to - n;
    for (std::size_t k = 0; k < ghosts; ++k) {
      data[to + n + k] = static_cast<T>(received[order[first_received[l] + k]]);
    }
  }
}

} // namespace

void merge_part(Trace &trace, const ReplayEvents &received, std::uint32_t part, std::uint32_t parts,
                std::vector<std::uint64_t> &received_positions, unsigned threads,
                const CollectiveReduction *reduction) {
  const PartitionPlan plan(trace.locations, parts);
  const auto n = received.time.size();
  const auto &r = received;
  if (r.kind.size() != n || r.location.size() != n || r.region.size() != n || r.peer.size() != n ||
      r.tag.size() != n || r.comm.size() != n || r.bytes.size() != n || r.aux.size() != n ||
      r.callsite.size() != n || r.position.size() != n ||
      (!r.sequence.empty() && r.sequence.size() != n)) {
    throw Error(ErrorKind::Usage, "merge_part: the received columns differ in length");
  }
  if (reduction != nullptr && reduction->spread.size() != trace.collectives.size()) {
    throw Error(ErrorKind::Usage, "merge_part: the collective reduction is not this trace's");
  }
  // The reduced instances of the own trace, by (sequence, index), with their member count.
  std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>> participants;
  if (reduction != nullptr) {
    for (std::size_t k = 0; k < trace.collectives.size(); ++k) {
      if (travels_reduced(trace, *reduction, k)) {
        participants.emplace_back(reduction->sequence[k], reduction->index[k],
                                  static_cast<std::uint32_t>(reduction->sums[k * kCollectiveSums]));
      }
    }
    std::sort(participants.begin(), participants.end());
  }
  const auto locations = trace.location_count();
  std::vector<std::uint64_t> per_location(locations, 0);
  for (std::size_t k = 0; k < n; ++k) {
    const auto l = r.location[k];
    if (l >= locations) {
      throw Error(ErrorKind::Usage, "merge_part: received an event of location " +
                                        std::to_string(l) + ", which does not exist");
    }
    if (plan.owner(trace.locations[l]) == part) {
      throw Error(ErrorKind::Usage,
                  "merge_part: received an event of own location " + std::to_string(l));
    }
    ++per_location[l];
  }
  // Received events by location, then position (their order in their location).
  std::vector<std::size_t> order(n);
  for (std::size_t k = 0; k < n; ++k) {
    order[k] = k;
  }
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::make_pair(r.location[a], r.position[a]) <
           std::make_pair(r.location[b], r.position[b]);
  });
  const auto old_offsets = trace.location_offsets;
  std::vector<std::uint64_t> new_offsets(locations + 1, 0);
  std::vector<std::size_t> first_received(locations, 0);
  for (std::size_t l = 0; l < locations; ++l) {
    first_received[l] = l == 0 ? 0 : first_received[l - 1] + per_location[l - 1];
    new_offsets[l + 1] = new_offsets[l] + (old_offsets[l + 1] - old_offsets[l]) + per_location[l];
  }
  const auto total = static_cast<std::size_t>(new_offsets[locations]);
  if (total > static_cast<std::size_t>(std::numeric_limits<EventIndex>::max())) {
    throw Error(ErrorKind::Trace, "merge_part: " + std::to_string(total) +
                                      " events exceed the 2^31 - 1 of one trace; use more "
                                      "analysis ranks");
  }
  // Own events keep their positions (their index in their location); only the received ones
  // need theirs kept, so this is per received event, not per event (8 B an event at 10^8 events
  // was 0.8 GB per analysis rank).
  received_positions.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    received_positions[k] = r.position[order[k]];
  }
  // One column at a time, so the trace never exists twice.
  auto &e = trace.events;
  expand(e.time, total, old_offsets, new_offsets, order, first_received, r.time);
  expand(e.kind, total, old_offsets, new_offsets, order, first_received, r.kind);
  expand(e.location, total, old_offsets, new_offsets, order, first_received, r.location);
  expand(e.region, total, old_offsets, new_offsets, order, first_received, r.region);
  expand(e.peer, total, old_offsets, new_offsets, order, first_received, r.peer);
  expand(e.tag, total, old_offsets, new_offsets, order, first_received, r.tag);
  expand(e.comm, total, old_offsets, new_offsets, order, first_received, r.comm);
  expand(e.bytes, total, old_offsets, new_offsets, order, first_received, r.bytes);
  expand(e.aux, total, old_offsets, new_offsets, order, first_received, r.aux);
  expand(e.callsite, total, old_offsets, new_offsets, order, first_received, r.callsite);
  // Received collective ends with their place in their sequence (their locations hold only
  // some of their collectives), by their index in the merged trace.
  std::vector<std::pair<EventIndex, std::uint32_t>> sequences;
  if (!r.sequence.empty()) {
    for (std::size_t l = 0; l < locations; ++l) {
      const auto own = old_offsets[l + 1] - old_offsets[l];
      for (std::uint64_t k = 0; k < per_location[l]; ++k) {
        const auto from = order[first_received[l] + k];
        if (r.kind[from] == EventKind::CollectiveEnd && r.sequence[from] != kNoRef) {
          sequences.emplace_back(static_cast<EventIndex>(new_offsets[l] + own + k),
                                 r.sequence[from]);
        }
      }
    }
  }
  trace.location_offsets = new_offsets;
  {
    // match(), with the received ends' sequence indices. Resizes match and link.
    const auto workers = std::max(1U, threads);
    detail::MatchingRun run(trace);
    run.set_collective_sequences(sequences);
    if (workers <= 1) {
      detail::LocationScratch scratch;
      for (std::uint32_t l = 0; l < trace.location_count(); ++l) {
        run.location(l, scratch);
      }
    } else {
      std::vector<detail::LocationScratch> scratch(workers);
      detail::parallel_for(trace.location_count(), workers, [&](std::size_t l, unsigned worker) {
        run.location(static_cast<std::uint32_t>(l), scratch[worker]);
      });
    }
    run.complete(workers);
  }
  if (!participants.empty()) {
    std::vector<std::uint32_t> sequence;
    std::vector<std::uint32_t> index;
    collective_sequences(trace, sequence, index);
    for (std::size_t k = 0; k < trace.collectives.size(); ++k) {
      const auto at = std::lower_bound(participants.begin(), participants.end(),
                                       std::make_tuple(sequence[k], index[k], std::uint32_t{0}));
      if (at != participants.end() && std::get<0>(*at) == sequence[k] &&
          std::get<1>(*at) == index[k]) {
        trace.collectives[k].participants = std::get<2>(*at);
      }
    }
  }
#if defined(__GLIBC__)
  // As open() does: give back the matching scratch (and the moved columns' old blocks).
  malloc_trim(0);
#endif
}

MatchReport count_unmatched(const Trace &trace, const std::vector<char> &counted) {
  MatchReport m;
  const auto &e = trace.events;
  auto is_counted = [&](std::uint32_t l) { return l < counted.size() && counted[l] != 0; };
  for (std::uint32_t l = 0; l < trace.location_count(); ++l) {
    if (!is_counted(l)) {
      continue;
    }
    for (auto i = trace.location_begin(l); i < trace.location_end(l); ++i) {
      const auto u = static_cast<std::size_t>(i);
      const auto none = e.match[u] == kNoEvent;
      const auto unlinked = e.link[u] == kNoEvent;
      switch (e.kind[u]) {
      case EventKind::Enter:
        m.enters_unclosed += none ? 1U : 0U;
        break;
      case EventKind::Leave:
        m.leaves_unopened += none ? 1U : 0U;
        break;
      case EventKind::IntervalBegin:
        m.intervals_unclosed += none ? 1U : 0U;
        break;
      case EventKind::IntervalEnd:
        m.intervals_unopened += none ? 1U : 0U;
        break;
      case EventKind::CollectiveEnd:
        m.collective_ends_unopened += none ? 1U : 0U;
        break;
      case EventKind::LockAcquire:
        m.locks_unreleased += none ? 1U : 0U;
        break;
      case EventKind::LockRelease:
        m.lock_releases_unacquired += none ? 1U : 0U;
        break;
      case EventKind::Send:
      case EventKind::Recv:
        if (none) {
          ++(e.kind[u] == EventKind::Send ? m.sends : m.receives);
        }
        break;
      case EventKind::IsendPost: {
        m.request_posts += unlinked ? 1U : 0U;
        const bool cancelled =
            !unlinked && e.kind[static_cast<std::size_t>(e.link[u])] == EventKind::RequestCancelled;
        m.sends += none && !cancelled ? 1U : 0U;
        break;
      }
      case EventKind::IrecvPost:
        m.request_posts += unlinked ? 1U : 0U;
        break;
      case EventKind::IrecvComplete:
        m.request_completions += unlinked ? 1U : 0U;
        m.receives += none ? 1U : 0U;
        break;
      case EventKind::IsendComplete:
      case EventKind::RequestCancelled:
        m.request_completions += unlinked ? 1U : 0U;
        break;
      default:
        break;
      }
    }
  }
  // Collective instances count where their first member is (location order within one).
  auto function_at = [&](EventIndex event) {
    const auto reg = e.region[static_cast<std::size_t>(event)];
    return reg < trace.regions.size() ? trace.regions[reg].function : Function::None;
  };
  for (const auto &inst : trace.collectives) {
    if (inst.member_count == 0) {
      continue;
    }
    const auto first = trace.collective_members[inst.first_member];
    if (!is_counted(e.location[static_cast<std::size_t>(first)])) {
      continue;
    }
    m.collectives_incomplete += inst.participants < inst.expected ? 1U : 0U;
    for (auto k = inst.first_member; k < inst.first_member + inst.member_count; ++k) {
      const auto event = trace.collective_members[k];
      if (function_at(event) != inst.function ||
          e.tag[static_cast<std::size_t>(event)] != inst.op) {
        ++m.collectives_mismatched;
        break;
      }
    }
  }
  return m;
}

} // namespace parjava::trace
