#include "wait_states.hpp"

#include <algorithm>
#include <limits>

#include "parjava/analysis/scanner.hpp"
#include "parjava/trace/functions.hpp"

namespace parjava::analysis::causes {

using trace::EventIndex;
using trace::EventKind;
using trace::kNoRef;
using trace::Timestamp;

namespace {

// The Scalasca wait states the scanner finds (anchors §2-§3); their finding's `time` is when
// the waiting began and `time + idle` when the cause arrived.
ScanOptions wait_state_options() {
  ScanOptions o;
  o.eps = 0;
  o.patterns.reset();
  for (const auto id : {PatternId::LateSender, PatternId::LateReceiver, PatternId::WaitAtBarrier,
                        PatternId::WaitAtNxN, PatternId::LateBroadcast, PatternId::EarlyReduce,
                        PatternId::EarlyScan}) {
    o.patterns.set(static_cast<std::size_t>(id));
  }
  return o;
}

bool collective_pattern(PatternId id) {
  return id != PatternId::LateSender && id != PatternId::LateReceiver;
}

} // namespace

WaitStates::WaitStates(const trace::Trace &t, const std::vector<std::uint32_t> &locations,
                       Timelines &timelines, const PartScope *part) {
  const auto n = locations.size();
  std::vector<std::uint32_t> analysed(t.locations.size(), kNoRef);
  for (std::uint32_t l = 0; l < n; ++l) {
    analysed[locations[l]] = l;
    rank_of_.push_back(t.locations[locations[l]].rank);
    begin_.push_back(timelines.begin(l));
  }
  by_loc_.resize(n);
  sync_.resize(n);
  comm_members_.resize(t.communicators.size());
  for (std::size_t c = 0; c < t.communicators.size(); ++c) {
    auto &m = comm_members_[c];
    m.assign(n, 0);
    for (const auto r : t.communicators[c].members) {
      if (r >= 0 && static_cast<std::size_t>(r) < n) {
        m[static_cast<std::size_t>(r)] = 1;
      }
    }
  }
  std::vector<std::int64_t> found(n, 0); // wait states per waiting location (ActivityKey)
  for (const Finding &f : scan(t, wait_state_options())) {
    if (f.location >= analysed.size() || f.peer_location >= analysed.size() || f.idle <= 0) {
      continue;
    }
    const std::uint32_t waiting = analysed[f.location];
    const std::uint32_t cause = analysed[f.peer_location];
    if (waiting == kNoRef || cause == kNoRef || waiting == cause ||
        (part != nullptr && part->owned[waiting] == 0)) {
      continue;
    }
    timelines.set_key({1, f.time, f.location, found[waiting]++});
    WaitState w;
    w.waiting = waiting;
    w.cause = cause;
    w.start = f.time;
    w.end = f.time + f.idle;
    w.activity = timelines.call_activity(f.region, f.callsite);
    if (collective_pattern(f.pattern) && f.instance != kNoRef) {
      w.comm = t.collectives[f.instance].comm;
    }
    waits_.push_back(w);
  }
  add_finalize_waits(t, locations, timelines, part);
  if (part != nullptr) {
    index_waits();
    return;
  }
  // MPI_Init synchronises everyone (anchors §3.7): one point for all processes when the last
  // one has entered it (max_q E_q), so a process that leaves MPI_Init late has more of it in
  // its next interval than its partner, and the waiting that causes is charged to MPI_Init
  // there. Not when some process has no MPI_Init (its interval then starts at its first event).
  const auto [init, entered] = init_entries(t, locations);
  if (entered == n) {
    for (std::uint32_t l = 0; l < n; ++l) {
      sync_[l].push_back({init, kNoRef, kAll});
    }
  }
  add_collective_syncs(t, analysed);
  index_waits();
  for (const WaitState &w : waits_) {
    add_wait_syncs(w);
  }
  sort_syncs();
}

std::pair<Timestamp, std::uint32_t>
WaitStates::init_entries(const trace::Trace &t, const std::vector<std::uint32_t> &locations,
                         const std::vector<std::uint8_t> &owned) {
  const auto &ev = t.events;
  Timestamp init = 0;
  std::uint32_t entered = 0;
  for (std::uint32_t l = 0; l < locations.size(); ++l) {
    if (!owned.empty() && owned[l] == 0) {
      continue;
    }
    for (EventIndex e = t.location_begin(locations[l]); e < t.location_end(locations[l]); ++e) {
      const auto i = static_cast<std::size_t>(e);
      if (ev.kind[i] == EventKind::Enter && ev.region[i] < t.regions.size() &&
          (t.regions[ev.region[i]].function == trace::Function::MPI_Init ||
           t.regions[ev.region[i]].function == trace::Function::MPI_Init_thread)) {
        init = std::max(init, ev.time[i]);
        ++entered;
        break;
      }
    }
  }
  return {init, entered};
}

void WaitStates::add_wait_syncs(const WaitState &w) {
  sync_[w.waiting].push_back({w.end, w.comm == kNoRef ? w.cause : kNoRef, w.comm});
  sync_[w.cause].push_back({w.end, w.comm == kNoRef ? w.waiting : kNoRef, w.comm});
}

// previous_sync() reads the time of a point only, so the order among points at one time
// does not matter: a part's points equal the serial ones as a multiset.
void WaitStates::sort_syncs() {
  for (auto &s : sync_) {
    std::sort(s.begin(), s.end(),
              [](const SyncPoint &a, const SyncPoint &b) { return a.time < b.time; });
  }
}

void WaitStates::add_part_syncs(const trace::Trace &t, const std::vector<std::uint32_t> &locations,
                                const PartScope &part, Timestamp init, bool init_all,
                                const std::vector<WaitState> &caused) {
  std::vector<std::uint32_t> analysed(t.locations.size(), kNoRef);
  for (std::uint32_t l = 0; l < locations.size(); ++l) {
    analysed[locations[l]] = l;
    sync_[l].clear();
    if (init_all && part.owned[l] != 0) {
      sync_[l].push_back({init, kNoRef, kAll});
    }
  }
  // Of an instance a part holds its own members and the decisive ones, among them the latest
  // to begin (partition.hpp): the point is the whole instance's.
  add_collective_syncs(t, analysed);
  for (const WaitState &w : waits_) {
    add_wait_syncs(w);
  }
  for (const WaitState &w : caused) {
    if (w.cause < sync_.size() && part.owned[w.cause] != 0) {
      sync_[w.cause].push_back({w.end, w.comm == kNoRef ? w.waiting : kNoRef, w.comm});
    }
  }
  // Other processes' points here are partial: they are never asked for.
  for (std::uint32_t l = 0; l < locations.size(); ++l) {
    if (part.owned[l] == 0) {
      sync_[l].clear();
    }
  }
  sort_syncs();
}

// By increasing end; a location's wait states ending together stay in the order they were
// found (the scan's, which a part of the trace shares for its own locations), so the critical
// path's choice among them is the same in every analysis.
void WaitStates::index_waits() {
  std::stable_sort(waits_.begin(), waits_.end(), [](const WaitState &a, const WaitState &b) {
    return a.end != b.end ? a.end < b.end : a.waiting < b.waiting;
  });
  for (std::uint32_t i = 0; i < waits_.size(); ++i) {
    by_loc_[waits_[i].waiting].push_back(i);
  }
}

EventIndex WaitStates::finalize_enter(const trace::Trace &t, std::uint32_t location) {
  const auto &ev = t.events;
  for (EventIndex e = t.location_end(location) - 1; e >= t.location_begin(location); --e) {
    const auto i = static_cast<std::size_t>(e);
    if (ev.kind[i] == EventKind::Enter && ev.region[i] < t.regions.size() &&
        t.regions[ev.region[i]].function == trace::Function::MPI_Finalize) {
      return e;
    }
  }
  return trace::kNoEvent;
}

// Scalasca's Wait at Finalize (anchors §3.7): [min(max_q E_q, L_p) - E_p]+, caused by the
// process that entered last. A part knows that process from the reduction over the parts.
void WaitStates::add_finalize_waits(const trace::Trace &t,
                                    const std::vector<std::uint32_t> &locations,
                                    Timelines &timelines, const PartScope *part) {
  const auto &ev = t.events;
  std::vector<EventIndex> enter(locations.size(), trace::kNoEvent);
  for (std::uint32_t l = 0; l < locations.size(); ++l) {
    if (part != nullptr && part->owned[l] == 0) {
      continue;
    }
    enter[l] = finalize_enter(t, locations[l]);
    if (enter[l] == trace::kNoEvent) {
      return; // not every process reached MPI_Finalize
    }
  }
  std::uint32_t latest = 0;
  Timestamp last_entry = 0;
  if (part != nullptr) {
    if (part->finalize_latest == kNoRef) {
      return;
    }
    latest = part->finalize_latest;
    last_entry = part->finalize_entry;
  } else {
    for (std::uint32_t l = 1; l < locations.size(); ++l) {
      if (ev.time[static_cast<std::size_t>(enter[l])] >
          ev.time[static_cast<std::size_t>(enter[latest])]) {
        latest = l;
      }
    }
    last_entry = ev.time[static_cast<std::size_t>(enter[latest])];
  }
  for (std::uint32_t l = 0; l < locations.size(); ++l) {
    if (enter[l] == trace::kNoEvent) {
      continue; // another part's process
    }
    const auto i = static_cast<std::size_t>(enter[l]);
    const EventIndex leave = ev.match[i];
    const Timestamp exit =
        leave == trace::kNoEvent ? ev.time[i] : ev.time[static_cast<std::size_t>(leave)];
    const Timestamp until = std::min(last_entry, exit);
    if (l == latest || until <= ev.time[i]) {
      continue;
    }
    WaitState w;
    w.waiting = l;
    w.cause = latest;
    w.start = ev.time[i];
    w.end = until;
    timelines.set_key({2, l, 0, 0});
    w.activity = timelines.call_activity(ev.region[i], ev.callsite[i]);
    w.comm = kAll;
    waits_.push_back(w);
  }
}

// Every complete blocking barrier or all-to-all collective synchronises its members, waited at
// or not (anchors §6, "collective calls flagged as synchronizing"): without those points the
// two sides of a later wait state would start their intervals at different earlier events.
// The point is where the last member began the collective (where a wait state there ends).
void WaitStates::add_collective_syncs(const trace::Trace &t,
                                      const std::vector<std::uint32_t> &analysed) {
  const auto &ev = t.events;
  for (const auto &c : t.collectives) {
    const auto &info = trace::function_info(c.function);
    // `participants`: the whole trace's members (a part holds only some: partition.hpp).
    if (!info.blocking || c.member_count == 0 || c.participants < c.expected ||
        (info.shape != trace::CollectiveShape::Barrier &&
         info.shape != trace::CollectiveShape::AllToAll)) {
      continue;
    }
    Timestamp last = 0;
    for (std::uint32_t m = c.first_member; m < c.first_member + c.member_count; ++m) {
      const auto end = static_cast<std::size_t>(t.collective_members[m]);
      const EventIndex begin = ev.match[end];
      last = std::max(last, begin == trace::kNoEvent ? ev.time[end]
                                                     : ev.time[static_cast<std::size_t>(begin)]);
    }
    for (std::uint32_t m = c.first_member; m < c.first_member + c.member_count; ++m) {
      const std::uint32_t l =
          analysed[ev.location[static_cast<std::size_t>(t.collective_members[m])]];
      if (l != kNoRef) {
        sync_[l].push_back({last, kNoRef, c.comm});
      }
    }
  }
}

bool WaitStates::involves(const SyncPoint &s, std::uint32_t partner) const {
  if (s.comm == kAll) {
    return true;
  }
  if (s.comm == kNoRef) {
    return s.partner == partner;
  }
  const auto r = rank_of_[partner];
  return s.comm < comm_members_.size() && r >= 0 &&
         static_cast<std::size_t>(r) < comm_members_[s.comm].size() &&
         comm_members_[s.comm][static_cast<std::size_t>(r)] != 0;
}

Timestamp WaitStates::previous_sync(std::uint32_t l, Timestamp t, std::uint32_t partner) const {
  const auto &s = sync_[l];
  auto it = std::lower_bound(s.begin(), s.end(), t,
                             [](const SyncPoint &p, Timestamp v) { return p.time < v; });
  // A process synchronises with most partners often; a bounded look back keeps a rare
  // partner from costing a walk over the whole run.
  constexpr int kLookBack = 4096;
  for (int k = 0; it != s.begin() && k < kLookBack; ++k) {
    --it;
    if (involves(*it, partner)) {
      return it->time;
    }
  }
  return it == s.begin() ? begin_[l] : it->time;
}

} // namespace parjava::analysis::causes
