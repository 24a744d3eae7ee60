// count_clock_violations() and the dependency model it shares with the correction
// (clock_dependencies.hpp).
#include "parjava/trace/clock_condition.hpp"

#include <algorithm>
#include <numeric>

#include "clock_dependencies.hpp"

namespace parjava::trace {

namespace detail {

namespace {

WaitShape shape_of(const CollectiveInstance &c) {
  const auto &info = function_info(c.function);
  if (!info.blocking || c.participants < 2 || c.function == Function::MPI_Alltoallv ||
      c.function == Function::MPI_Alltoallw) {
    return WaitShape::None;
  }
  switch (info.shape) {
  case CollectiveShape::Barrier:
  case CollectiveShape::Allocation:
  case CollectiveShape::AllToAll:
    return WaitShape::All;
  case CollectiveShape::OneToAll:
    return c.root == kNoRank ? WaitShape::None : WaitShape::FromRoot;
  case CollectiveShape::AllToOne:
    return c.root == kNoRank ? WaitShape::None : WaitShape::ToRoot;
  case CollectiveShape::Prefix:
    return WaitShape::Prefix;
  case CollectiveShape::None:
    break;
  }
  return WaitShape::None;
}

} // namespace

CollectiveWaits::CollectiveWaits(const Trace &trace)
    : trace_(trace), shape_(trace.collectives.size(), WaitShape::None),
      role_(trace.collective_members.size(), 0) {
  const auto &e = trace.events;
  for (std::uint32_t k = 0; k < trace.collectives.size(); ++k) {
    const auto &c = trace.collectives[k];
    const auto shape = shape_of(c);
    shape_[k] = shape;
    if (shape == WaitShape::None) {
      continue;
    }
    const bool barrier_like = function_info(c.function).shape != CollectiveShape::AllToAll;
    for (auto m = first(k); m < last(k); ++m) {
      if (m + kMemberPrefetchDistance < trace.collective_members.size()) {
        const auto ahead = static_cast<std::size_t>(end_of(m + kMemberPrefetchDistance));
        __builtin_prefetch(&e.bytes[ahead]);
        __builtin_prefetch(&e.aux[ahead]);
        __builtin_prefetch(&e.location[ahead]);
        __builtin_prefetch(&e.match[ahead]);
      }
      const auto end = static_cast<std::size_t>(end_of(m));
      const bool sends = e.bytes[end] > 0;  // CollectiveEnd: bytes = sent
      const bool receives = e.aux[end] > 0; // aux = received
      const bool root = trace.locations[e.location[end]].rank == c.root;
      bool source = false;
      bool sink = false;
      switch (shape) {
      case WaitShape::All:
        source = barrier_like || sends;
        sink = barrier_like || receives;
        break;
      case WaitShape::FromRoot:
        source = root && sends;
        sink = !root && receives;
        break;
      case WaitShape::ToRoot:
        source = sends;
        sink = root && receives;
        break;
      case WaitShape::Prefix:
        source = sends;
        sink = receives;
        break;
      case WaitShape::None:
        break;
      }
      // Only a member that entered (has a Begin) can be waited for.
      source = source && begin_of(m) != kNoEvent;
      role_[m] = static_cast<std::uint8_t>((source ? kSource : 0) | (sink ? kSink : 0));
    }
    if (shape == WaitShape::Prefix) {
      if (order_.empty()) {
        order_.assign(trace.collective_members.size(), 0);
      }
      // Communicator rank: position of the member's world rank in the communicator.
      const std::vector<std::int32_t> *members =
          c.comm < trace.communicators.size() ? &trace.communicators[c.comm].members : nullptr;
      for (auto m = first(k); m < last(k); ++m) {
        const auto rank = trace.locations[e.location[static_cast<std::size_t>(end_of(m))]].rank;
        std::int32_t order = rank;
        if (members != nullptr && !members->empty()) {
          const auto at = std::find(members->begin(), members->end(), rank);
          order = at == members->end() ? rank : static_cast<std::int32_t>(at - members->begin());
        }
        order_[m] = order;
      }
    }
  }
}

std::uint32_t CollectiveWaits::member_of_end(EventIndex end) const {
  // Members of an instance are in location order (collective_matching.cpp) and each location
  // is a member once: a binary search, checked.
  const auto k = static_cast<std::uint32_t>(trace_.events.link[static_cast<std::size_t>(end)]);
  const auto &location = trace_.events.location;
  const auto wanted = location[static_cast<std::size_t>(end)];
  const auto *begin = trace_.collective_members.data() + first(k);
  const auto *stop = trace_.collective_members.data() + last(k);
  const auto *at = std::lower_bound(begin, stop, wanted, [&](EventIndex m, std::uint32_t l) {
    return location[static_cast<std::size_t>(m)] < l;
  });
  if (at == stop || *at != end) {
    at = std::find(begin, stop, end);
  }
  return static_cast<std::uint32_t>(at - trace_.collective_members.data());
}

void count_collective_violations(const Trace &trace, const std::vector<char> *counted,
                                 ClockViolations &v) {
  const CollectiveWaits waits(trace);
  count_collective_violations(trace, waits, counted, 0,
                              static_cast<std::uint32_t>(trace.collectives.size()), v);
}

void count_collective_violations(const Trace &trace, const CollectiveWaits &waits,
                                 const std::vector<char> *counted, std::uint32_t first,
                                 std::uint32_t last, ClockViolations &v) {
  const auto &e = trace.events;
  auto counts_at = [&](EventIndex i) {
    if (counted == nullptr) {
      return true;
    }
    const auto l = e.location[static_cast<std::size_t>(i)];
    return l < counted->size() && (*counted)[l] != 0;
  };
  auto note = [&v](Timestamp early_by, std::uint64_t &count) {
    ++count;
    v.largest_ns = std::max(v.largest_ns, early_by);
  };
  std::vector<std::uint32_t> by_order; // Prefix members sorted by communicator rank
  for (std::uint32_t k = first; k < last; ++k) {
    const auto shape = waits.shape(k);
    if (shape == WaitShape::None) {
      continue;
    }
    auto time_of = [&](EventIndex i) { return e.time[static_cast<std::size_t>(i)]; };
    auto check = [&](std::uint32_t sink, Timestamp reference) {
      if (!counts_at(waits.end_of(sink))) {
        return;
      }
      const auto exit = time_of(waits.end_of(sink));
      if (reference > exit) {
        note(reference - exit, v.collective_exits_before_entry);
      }
    };
    if (shape == WaitShape::Prefix) {
      by_order.resize(waits.last(k) - waits.first(k));
      std::iota(by_order.begin(), by_order.end(), waits.first(k));
      std::stable_sort(by_order.begin(), by_order.end(), [&](std::uint32_t a, std::uint32_t b) {
        return waits.order(a) < waits.order(b);
      });
      // A member waits for the sources of lower or equal rank: take a rank's sources first.
      Timestamp latest = kNever;
      for (std::size_t j = 0; j < by_order.size();) {
        auto same = j;
        for (; same < by_order.size() && waits.order(by_order[same]) == waits.order(by_order[j]);
             ++same) {
          if (waits.is_source(by_order[same])) {
            latest = std::max(latest, time_of(waits.begin_of(by_order[same])));
          }
        }
        for (; j < same; ++j) {
          if (waits.is_sink(by_order[j]) && latest != kNever) {
            check(by_order[j], latest);
          }
        }
      }
      continue;
    }
    // All, FromRoot, ToRoot: every sink waits for every source of the instance.
    Timestamp latest = kNever;
    for (auto m = waits.first(k); m < waits.last(k); ++m) {
      // The sinks' End times are read in the next loop; the Begin (found through the End's
      // match) is fetched once that match has arrived, half the distance ahead.
      if (m + kMemberPrefetchDistance < trace.collective_members.size()) {
        const auto ahead = static_cast<std::size_t>(waits.end_of(m + kMemberPrefetchDistance));
        __builtin_prefetch(&e.time[ahead]);
        __builtin_prefetch(&e.match[ahead]);
        const auto begin = waits.begin_of(m + kMemberPrefetchDistance / 2);
        if (begin != kNoEvent) {
          __builtin_prefetch(&e.time[static_cast<std::size_t>(begin)]);
        }
      }
      if (waits.is_source(m)) {
        latest = std::max(latest, time_of(waits.begin_of(m)));
      }
    }
    if (latest == kNever) {
      continue;
    }
    for (auto m = waits.first(k); m < waits.last(k); ++m) {
      if (waits.is_sink(m)) {
        check(m, latest);
      }
    }
  }
}

} // namespace detail

ClockViolations count_clock_violations(const Trace &trace) {
  ClockViolations v;
  const auto &e = trace.events;
  for (std::size_t i = 0; i < trace.size(); ++i) {
    if (detail::is_receive_event(e.kind[i])) {
      detail::note_receive(e, e.match[i], static_cast<EventIndex>(i), v);
    }
  }
  detail::count_collective_violations(trace, nullptr, v);
  return v;
}

ClockViolations count_clock_violations(const Trace &trace, const std::vector<char> &counted) {
  ClockViolations v;
  const auto &e = trace.events;
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const auto l = e.location[i];
    if (detail::is_receive_event(e.kind[i]) && l < counted.size() && counted[l] != 0) {
      detail::note_receive(e, e.match[i], static_cast<EventIndex>(i), v);
    }
  }
  detail::count_collective_violations(trace, &counted, v);
  return v;
}

} // namespace parjava::trace
