// Per-location matching in one pass over each location: the region stack (notes 001 §2.6.2,
// R^l: Enter pushes, Exit pops the most recent Enter; `enterptr` gives every inner event its
// enclosing call), collective begin/end, locks (notes 001 §2.4: an acquire precedes its
// release on the same thread) and user interval markers (notes 004 §3.3).
#include <cstddef>
#include <utility>
#include <vector>

#include "matching_passes.hpp"

namespace parjava::trace::detail {
namespace {

struct LocationState {
  std::vector<EventIndex> regions;                                 // open Enter events
  std::vector<EventIndex> intervals;                               // open IntervalBegin events
  std::vector<EventIndex> collectives;                             // open CollectiveBegin events
  std::vector<std::pair<std::uint64_t, EventIndex>> lock_requests; // lock id -> LockRequest
  std::vector<std::pair<std::uint64_t, EventIndex>> held_locks;    // lock id -> LockAcquire

  void clear() {
    regions.clear();
    intervals.clear();
    collectives.clear();
    lock_requests.clear();
    held_locks.clear();
  }
};

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

} // namespace

void match_nesting(Trace &trace) {
  auto &e = trace.events;
  auto &report = trace.unmatched;
  LocationState state;
  for (std::uint32_t l = 0; l < trace.locations.size(); ++l) {
    state.clear();
    const auto end = trace.location_end(l);
    for (auto i = trace.location_begin(l); i < end; ++i) {
      const auto u = static_cast<std::size_t>(i);
      const auto kind = e.kind[u];
      switch (kind) {
      case EventKind::Enter:
        state.regions.push_back(i);
        continue;
      case EventKind::Leave: {
        auto &open = state.regions;
        const auto region = e.region[u];
        // The Leave closes the innermost open Enter of its region. When that is not the top
        // of the stack the nesting is broken (user markers that overlap, a killed program):
        // the Enters above it stay open and are counted as unclosed if nothing closes them.
        auto depth = open.size();
        while (depth > 0 && region != kNoRef &&
               e.region[static_cast<std::size_t>(open[depth - 1])] != region) {
          --depth;
        }
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
        state.intervals.push_back(i);
        continue;
      case EventKind::IntervalEnd: {
        auto &open = state.intervals;
        auto depth = open.size();
        while (depth > 0 && e.aux[static_cast<std::size_t>(open[depth - 1])] != e.aux[u]) {
          --depth;
        }
        if (depth == 0) {
          ++report.intervals_unopened;
          continue;
        }
        pair_events(e.match, i, open[depth - 1]);
        open.erase(open.begin() + static_cast<std::ptrdiff_t>(depth - 1));
        continue;
      }
      case EventKind::Metric:
        continue;
      default:
        break;
      }
      // Every other event happens inside the innermost open region (the runtime call).
      if (!state.regions.empty()) {
        const auto enter = static_cast<std::size_t>(state.regions.back());
        e.region[u] = e.region[enter];
        e.callsite[u] = e.callsite[enter];
      }
      switch (kind) {
      case EventKind::CollectiveBegin:
        state.collectives.push_back(i);
        break;
      case EventKind::CollectiveEnd:
        if (state.collectives.empty()) {
          ++report.collective_ends_unopened;
        } else {
          pair_events(e.match, i, state.collectives.back());
          state.collectives.pop_back();
        }
        break;
      case EventKind::LockRequest:
        state.lock_requests.emplace_back(e.aux[u], i);
        break;
      case EventKind::LockAcquire: {
        const auto request = take_latest(state.lock_requests, e.aux[u]);
        if (request != kNoEvent) {
          e.match[static_cast<std::size_t>(request)] = i;
          e.link[u] = request;
        }
        state.held_locks.emplace_back(e.aux[u], i);
        break;
      }
      case EventKind::LockRelease: {
        const auto acquire = take_latest(state.held_locks, e.aux[u]);
        if (acquire == kNoEvent) {
          ++report.lock_releases_unacquired;
        } else {
          pair_events(e.match, i, acquire);
        }
        break;
      }
      default:
        break;
      }
    }
    report.enters_unclosed += state.regions.size();
    report.intervals_unclosed += state.intervals.size();
    report.locks_unreleased += state.held_locks.size();
    // An unfinished CollectiveBegin has no End, hence no instance: it is an unclosed call.
  }
}

} // namespace parjava::trace::detail
