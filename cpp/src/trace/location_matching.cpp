// Pass 1 of match(): everything that can be decided looking at one location, in one pass over
// its events (each event is visited once, while it is in cache; it also clears the location's
// match and link entries):
//  - the region stack (notes 001 §2.6.2, R^l: Enter pushes, Exit pops the most recent Enter;
//    `enterptr` gives every inner event its enclosing call, hence its region and call site);
//  - collective begin/end, and the list of CollectiveEnd events for the instances;
//  - locks (notes 001 §2.4: an acquire precedes its release on the same thread);
//  - user interval markers (notes 004 §3.3);
//  - for a single-threaded process: requests, and the process's sends and receives in MPI
//    order (a receive posted by MPI_Irecv takes the place of its post).
#include <cstddef>
#include <utility>
#include <vector>

#include "matching_passes.hpp"

namespace parjava::trace::detail {
namespace {

void pair_events(Column<EventIndex> &match, EventIndex a, EventIndex b) {
  match[static_cast<std::size_t>(a)] = b;
  match[static_cast<std::size_t>(b)] = a;
}

// Remove and return the latest entry for `key`, or kNoEvent.
EventIndex take_latest(std::vector<std::pair<std::uint64_t, EventIndex>> &open, std::uint64_t key) {
  for (auto it = open.rbegin(); it != open.rend(); ++it) {
    if (it->first == key) {
      const auto event = it->second;
      open.erase(std::next(it).base());
      return event;
    }
  }
  return kNoEvent;
}

// The innermost open entry at or below `depth` whose key equals `key`, as a depth (0: none).
template <typename Key>
std::size_t innermost(const std::vector<EventIndex> &open, std::size_t depth, Key key_of,
                      decltype(key_of(EventIndex{})) key) {
  while (depth > 0 && key_of(open[depth - 1]) != key) {
    --depth;
  }
  return depth;
}

// After the pass: cancelled sends never arrive; a receive listed at its MPI_Irecv becomes its
// completion, and one never completed (or cancelled) receives nothing.
void settle_messages(const EventColumns &e, MatchingLists &lists, std::size_t first_send,
                     std::size_t first_receive) {
  auto &sends = lists.sends;
  auto kept = first_send;
  for (auto s = first_send; s < sends.size(); ++s) {
    const auto done = e.link[static_cast<std::size_t>(sends[s].event)];
    if (done == kNoEvent || e.kind[static_cast<std::size_t>(done)] != EventKind::RequestCancelled) {
      sends[kept++] = sends[s];
    }
  }
  sends.resize(kept);
  auto &receives = lists.receives;
  kept = first_receive;
  for (auto r = first_receive; r < receives.size(); ++r) {
    auto m = receives[r];
    const auto u = static_cast<std::size_t>(m.event);
    if (e.kind[u] == EventKind::IrecvPost) {
      const auto done = e.link[u];
      if (done == kNoEvent || e.kind[static_cast<std::size_t>(done)] != EventKind::IrecvComplete) {
        continue;
      }
      const auto d = static_cast<std::size_t>(done);
      m = Message{done, e.peer[d], e.comm[d], e.tag[d]};
    }
    receives[kept++] = m;
  }
  receives.resize(kept);
}

} // namespace

void match_location(Trace &trace, std::uint32_t l, bool whole_process, LocationScratch &scratch,
                    MatchingLists &lists, MatchReport &report) {
  auto &e = trace.events;
  auto &open = scratch.regions;
  open.clear();
  scratch.intervals.clear();
  scratch.collectives.clear();
  scratch.lock_requests.clear();
  scratch.held_locks.clear();
  scratch.requests.clear();
  const auto &location = trace.locations[l];
  const bool process = is_process_location(location);
  const auto rank = location.rank;
  const auto first_send = lists.sends.size();
  const auto first_receive = lists.receives.size();
  auto region_of = [&e](EventIndex i) { return e.region[static_cast<std::size_t>(i)]; };
  auto id_of = [&e](EventIndex i) { return e.aux[static_cast<std::size_t>(i)]; };
  auto message = [&e](EventIndex i) {
    const auto u = static_cast<std::size_t>(i);
    return Message{i, e.peer[u], e.comm[u], e.tag[u]};
  };
  if (whole_process) {
    lists.rank = rank;
  }

  const auto end = trace.location_end(l);
  for (auto i = trace.location_begin(l); i < end; ++i) {
    const auto u = static_cast<std::size_t>(i);
    const auto kind = e.kind[u];
    // Links only ever go back to earlier events of the location, so clearing each event's
    // own entries as it is reached is enough (no separate pass over the columns).
    e.match[u] = kNoEvent;
    e.link[u] = kNoEvent;
    switch (kind) {
    case EventKind::Enter:
      open.push_back(i);
      continue;
    case EventKind::Leave: {
      // The Leave closes the innermost open Enter of its region. When that is not the top of
      // the stack the nesting is broken (user markers that overlap, a killed program): the
      // Enters above it stay open and are counted as unclosed if nothing closes them.
      const auto region = e.region[u];
      const auto depth =
          region == kNoRef ? open.size() : innermost(open, open.size(), region_of, region);
      if (depth == 0) {
        ++report.leaves_unopened;
        continue;
      }
      const auto enter = open[depth - 1];
      open.erase(open.begin() + static_cast<std::ptrdiff_t>(depth - 1));
      pair_events(e.match, i, enter);
      const auto ue = static_cast<std::size_t>(enter);
      if (region == kNoRef) {
        e.region[u] = e.region[ue];
      }
      if (e.callsite[u] == kNoRef) {
        e.callsite[u] = e.callsite[ue];
      }
      continue;
    }
    case EventKind::IntervalBegin:
      scratch.intervals.push_back(i);
      continue;
    case EventKind::IntervalEnd: {
      auto &intervals = scratch.intervals;
      const auto depth = innermost(intervals, intervals.size(), id_of, e.aux[u]);
      if (depth == 0) {
        ++report.intervals_unopened;
        continue;
      }
      pair_events(e.match, i, intervals[depth - 1]);
      intervals.erase(intervals.begin() + static_cast<std::ptrdiff_t>(depth - 1));
      continue;
    }
    case EventKind::Metric:
      continue;
    default:
      break;
    }
    // Every other event happens inside the innermost open region (the runtime call).
    if (!open.empty()) {
      const auto enter = static_cast<std::size_t>(open.back());
      e.region[u] = e.region[enter];
      e.callsite[u] = e.callsite[enter];
    }
    switch (kind) {
    case EventKind::CollectiveBegin:
      scratch.collectives.push_back(i);
      break;
    case EventKind::CollectiveEnd:
      if (scratch.collectives.empty()) {
        ++report.collective_ends_unopened;
      } else {
        pair_events(e.match, i, scratch.collectives.back());
        scratch.collectives.pop_back();
      }
      lists.collective_ends.push_back(i);
      break;
    case EventKind::LockRequest:
      scratch.lock_requests.emplace_back(e.aux[u], i);
      break;
    case EventKind::LockAcquire: {
      const auto request = take_latest(scratch.lock_requests, e.aux[u]);
      if (request != kNoEvent) {
        e.match[static_cast<std::size_t>(request)] = i;
        e.link[u] = request;
      }
      scratch.held_locks.emplace_back(e.aux[u], i);
      break;
    }
    case EventKind::LockRelease: {
      const auto acquire = take_latest(scratch.held_locks, e.aux[u]);
      if (acquire == kNoEvent) {
        ++report.lock_releases_unacquired;
      } else {
        pair_events(e.match, i, acquire);
      }
      break;
    }
    case EventKind::Send:
    case EventKind::Recv:
      if (whole_process) {
        (kind == EventKind::Send ? lists.sends : lists.receives).push_back(message(i));
      } else if (!process) {
        ++(kind == EventKind::Send ? report.sends : report.receives);
      }
      break;
    case EventKind::IsendPost:
    case EventKind::IrecvPost:
    case EventKind::IsendComplete:
    case EventKind::IrecvComplete:
    case EventKind::RequestTest:
    case EventKind::RequestCancelled:
      if (whole_process) {
        apply_request(e, i, scratch.requests, lists, report);
        if (kind == EventKind::IsendPost) {
          lists.sends.push_back(message(i));
        } else if (kind == EventKind::IrecvPost ||
                   (kind == EventKind::IrecvComplete && e.link[u] == kNoEvent)) {
          // At the post (settled below), or where an unpaired completion happened.
          lists.receives.push_back(message(i));
        }
      } else if (!process) {
        // No process to pair them in.
        if (kind == EventKind::IsendPost || kind == EventKind::IrecvPost) {
          ++report.request_posts;
        } else if (kind != EventKind::RequestTest) {
          ++report.request_completions;
        }
        report.sends += kind == EventKind::IsendPost ? 1U : 0U;
        report.receives += kind == EventKind::IrecvComplete ? 1U : 0U;
      }
      break;
    default:
      break;
    }
  }
  report.enters_unclosed += open.size();
  report.intervals_unclosed += scratch.intervals.size();
  report.locks_unreleased += scratch.held_locks.size();
  // An unfinished CollectiveBegin has no End, hence no instance: its Enter is unclosed.
  if (whole_process) {
    settle_messages(e, lists, first_send, first_receive);
  }
}

} // namespace parjava::trace::detail
