// The critical path of a trace in parts (cause_parts.hpp).
#include "parjava/analysis/causes/cause_parts.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <tuple>

#include "../part_bytes.hpp"
#include "cause_part_state.hpp"
#include "critical_path.hpp"
#include "parjava/error.hpp"

namespace parjava::analysis {

using trace::Timestamp;

namespace {

constexpr std::uint32_t kMagic = 0x31504350U; // "PCP1"
constexpr Timestamp kNever = std::numeric_limits<Timestamp>::min();
constexpr Timestamp kAlways = std::numeric_limits<Timestamp>::max();

void check_mask(const trace::Trace &trace, const std::vector<std::uint8_t> &owned) {
  if (owned.size() != trace.locations.size()) {
    throw Error(ErrorKind::Usage, "cause part: `owned` has " + std::to_string(owned.size()) +
                                      " flags for " + std::to_string(trace.locations.size()) +
                                      " locations");
  }
}

void check_owners(std::size_t locations, const std::vector<std::uint32_t> &owners) {
  if (owners.size() != locations) {
    throw Error(ErrorKind::Usage, "delay costs: `owners` has " + std::to_string(owners.size()) +
                                      " entries for " + std::to_string(locations) +
                                      " analysed locations");
  }
}

} // namespace

FinalizeEntries finalize_entries(const trace::Trace &trace,
                                 const std::vector<std::uint8_t> &owned) {
  check_mask(trace, owned);
  const auto locations = analysed_locations(trace);
  FinalizeEntries out;
  out.entry.assign(locations.size(), kNever);
  for (std::size_t l = 0; l < locations.size(); ++l) {
    if (owned[locations[l]] == 0) {
      continue;
    }
    const auto e = causes::WaitStates::finalize_enter(trace, locations[l]);
    if (e != trace::kNoEvent) {
      out.entry[l] = trace.events.time[static_cast<std::size_t>(e)];
      ++out.entered;
    }
  }
  return out;
}

InitEntries init_entries(const trace::Trace &trace, const std::vector<std::uint8_t> &owned) {
  check_mask(trace, owned);
  const auto locations = analysed_locations(trace);
  const auto [latest, entered] =
      causes::WaitStates::init_entries(trace, locations, detail::analysed_owned(locations, owned));
  return {latest, entered};
}

CausePart::CausePart(const trace::Trace &trace, const std::vector<std::uint8_t> &owned,
                     std::uint32_t finalize_latest, Timestamp finalize_entry) {
  check_mask(trace, owned);
  state_ = std::make_unique<State>(trace, analysed_locations(trace), owned, finalize_latest,
                                   finalize_entry);
}

CausePart::~CausePart() = default;

const std::vector<std::uint32_t> &CausePart::locations() const { return state_->locations; }

std::vector<Timestamp> CausePart::begins() const {
  std::vector<Timestamp> out(state_->locations.size(), kAlways);
  for (std::uint32_t l = 0; l < out.size(); ++l) {
    if (state_->scope.owned[l] != 0) {
      out[l] = state_->timelines.begin(l);
    }
  }
  return out;
}

std::vector<Timestamp> CausePart::ends() const {
  std::vector<Timestamp> out(state_->locations.size(), kNever);
  for (std::uint32_t l = 0; l < out.size(); ++l) {
    if (state_->scope.owned[l] != 0) {
      out[l] = state_->timelines.end(l);
    }
  }
  return out;
}

CausePart::Step CausePart::walk(std::uint32_t l, Timestamp t, Timestamp first, std::int64_t step) {
  auto &s = *state_;
  if (l >= s.locations.size() || s.scope.owned[l] == 0) {
    throw Error(ErrorKind::Usage, "critical path: the walk reached analysed location " +
                                      std::to_string(l) + ", which this part does not own");
  }
  Step out{l, t, step, false};
  while (s.scope.owned[out.location] != 0) {
    const bool more = causes::walk_step(s.waits, s.next, out.location, out.time, first, s.segments);
    s.steps.push_back(out.step++);
    if (!more) {
      out.done = true;
      break;
    }
  }
  return out;
}

std::vector<std::string> CausePart::caused_elsewhere(const std::vector<std::uint32_t> &owners,
                                                     std::size_t parts) const {
  check_owners(state_->locations.size(), owners);
  for (const auto o : owners) {
    if (o >= parts) {
      throw Error(ErrorKind::Usage, "delay costs: a process's owner " + std::to_string(o) +
                                        " is not one of the " + std::to_string(parts) + " parts");
    }
  }
  return causes::DelayPart::caused_elsewhere(state_->waits, owners, parts);
}

void CausePart::start_delays(const trace::Trace &trace, const std::vector<std::uint32_t> &owners,
                             const std::vector<std::string> &caused, Timestamp init,
                             bool init_all) {
  auto &s = *state_;
  check_owners(s.locations.size(), owners);
  if (s.delays) {
    throw Error(ErrorKind::Usage, "delay costs: the part's propagation was already started");
  }
  s.delays = std::make_unique<causes::DelayPart>(trace, s.locations, s.scope, s.timelines, s.waits,
                                                 owners, init, init_all, caused);
}

CausePart::Propagation CausePart::propagate_delays(const std::vector<std::string> &incoming,
                                                   std::vector<std::string> &outgoing,
                                                   std::size_t budget) {
  if (!state_->delays) {
    throw Error(ErrorKind::Usage, "delay costs: start_delays() first");
  }
  switch (state_->delays->step(incoming, outgoing, budget)) {
  case causes::DelayStatus::Done:
    return Propagation::Done;
  case causes::DelayStatus::Blocked:
    return Propagation::Blocked;
  case causes::DelayStatus::More:
    break;
  }
  return Propagation::More;
}

std::string CausePart::result_bytes() const {
  const auto &s = *state_;
  // Own segments in time order (the walk numbers them from the end back).
  std::vector<std::size_t> order(s.segments.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return s.steps[a] > s.steps[b]; });
  std::vector<PathSegment> in_time;
  in_time.reserve(order.size());
  std::vector<std::int64_t> steps;
  steps.reserve(order.size());
  for (const auto i : order) {
    in_time.push_back(s.segments[i]);
    steps.push_back(s.steps[i]);
  }
  detail::Writer w;
  w.put(kMagic);
  w.put(s.timelines.activities());
  w.put(s.timelines.keys());
  w.put(causes::time_rows(s.timelines, s.locations));
  w.put(causes::waiting_rows(s.waits, s.locations));
  w.put(causes::path_profile(s.timelines, in_time, s.locations));
  for (auto &seg : in_time) {
    seg.location = s.locations[seg.location];
  }
  w.put(in_time);
  w.put(steps);
  w.put<std::uint8_t>(s.delays ? 1 : 0);
  if (s.delays) {
    s.delays->write(w, s.locations);
  }
  return std::move(w.out);
}

namespace {

using ActivityId = std::tuple<std::uint32_t, std::uint32_t, bool, std::uint32_t, std::uint32_t>;

ActivityId identity(const Activity &a) {
  return {a.region, a.callsite, a.computation, a.next_call, a.previous_callsite};
}

struct PartRows {
  std::vector<Activity> activities;
  std::vector<ActivityKey> keys;
  std::vector<ActivityTime> time, waiting, profile;
  std::vector<PathSegment> segments;
  std::vector<std::int64_t> steps;
  bool delays = false;
  std::vector<DelayCost> costs;
  std::vector<causes::WaitKey> created; // per cost row: the wait state that created it
  std::vector<causes::Unattributed> unattributed;
  std::uint64_t wait_states = 0;
  double total_wait = 0.0;
};

PartRows read_part(const std::string &bytes) {
  detail::Reader r(bytes, "critical path part");
  PartRows p;
  if (r.get<std::uint32_t>() != kMagic) {
    throw Error(ErrorKind::Analysis, "critical path part: the received bytes are not a part");
  }
  p.activities = r.get_vector<Activity>();
  p.keys = r.get_vector<ActivityKey>();
  p.time = r.get_vector<ActivityTime>();
  p.waiting = r.get_vector<ActivityTime>();
  p.profile = r.get_vector<ActivityTime>();
  p.segments = r.get_vector<PathSegment>();
  p.steps = r.get_vector<std::int64_t>();
  p.delays = r.get<std::uint8_t>() != 0;
  if (p.delays) {
    p.costs = r.get_vector<DelayCost>();
    p.created = r.get_vector<causes::WaitKey>();
    p.unattributed = r.get_vector<causes::Unattributed>();
    p.wait_states = r.get<std::uint64_t>();
    p.total_wait = r.get<double>();
  }
  if (!r.done() || p.keys.size() != p.activities.size() || p.steps.size() != p.segments.size() ||
      p.created.size() != p.costs.size()) {
    throw Error(ErrorKind::Analysis, "critical path part: the received bytes are damaged");
  }
  return p;
}

} // namespace

CauseAnalysis merge_cause_parts(const trace::Trace &trace, const std::vector<std::string> &parts,
                                double seconds) {
  CauseAnalysis out;
  out.locations = analysed_locations(trace);
  std::vector<PartRows> rows;
  rows.reserve(parts.size());
  for (const auto &bytes : parts) {
    rows.push_back(read_part(bytes));
  }
  // The serial numbering: activities in the order the serial analysis first asks for them.
  std::map<ActivityId, std::pair<ActivityKey, Activity>> first;
  for (const auto &p : rows) {
    for (std::size_t a = 0; a < p.activities.size(); ++a) {
      const auto [it, fresh] =
          first.emplace(identity(p.activities[a]), std::make_pair(p.keys[a], p.activities[a]));
      if (!fresh && p.keys[a] < it->second.first) {
        it->second.first = p.keys[a];
      }
    }
  }
  std::vector<std::pair<ActivityKey, Activity>> ordered;
  ordered.reserve(first.size());
  for (const auto &[id, entry] : first) {
    ordered.push_back(entry);
  }
  std::sort(ordered.begin(), ordered.end(),
            [](const auto &a, const auto &b) { return a.first < b.first; });
  std::map<ActivityId, std::uint32_t> number;
  for (std::uint32_t a = 0; a < ordered.size(); ++a) {
    out.activities.push_back(ordered[a].second);
    number.emplace(identity(ordered[a].second), a);
  }
  std::vector<std::uint32_t> analysed(trace.locations.size(), trace::kNoRef);
  for (std::uint32_t l = 0; l < out.locations.size(); ++l) {
    analysed[out.locations[l]] = l;
  }
  // Rows in the serial order: by analysed location (a location's rows all come from its part,
  // in the order the serial analysis makes them); waiting by trace location and activity.
  const auto by_location = [&](const ActivityTime &a, const ActivityTime &b) {
    return analysed[a.location] < analysed[b.location];
  };
  std::vector<std::pair<std::int64_t, PathSegment>> segments;
  CriticalPath &path = out.critical_path;
  // Cost rows with the wait state that created each: a part made its rows in the serial
  // order, and the rows of one wait state all come from the part of its cause.
  std::vector<std::pair<causes::WaitKey, DelayCost>> costs;
  std::vector<causes::Unattributed> unattributed;
  std::size_t with_delays = 0;
  for (auto &p : rows) {
    std::vector<std::uint32_t> global(p.activities.size());
    for (std::size_t a = 0; a < p.activities.size(); ++a) {
      global[a] = number.at(identity(p.activities[a]));
    }
    for (auto *table : {&p.time, &p.waiting, &p.profile}) {
      for (auto &r : *table) {
        if (r.activity >= global.size() || r.location >= analysed.size() ||
            analysed[r.location] == trace::kNoRef) {
          throw Error(ErrorKind::Analysis, "critical path part: a row names no activity or "
                                           "analysed location");
        }
        r.activity = global[r.activity];
      }
    }
    out.time.insert(out.time.end(), p.time.begin(), p.time.end());
    out.waiting.insert(out.waiting.end(), p.waiting.begin(), p.waiting.end());
    path.profile.insert(path.profile.end(), p.profile.begin(), p.profile.end());
    for (std::size_t i = 0; i < p.segments.size(); ++i) {
      segments.emplace_back(p.steps[i], p.segments[i]);
    }
    if (p.delays) {
      ++with_delays;
      for (std::size_t i = 0; i < p.costs.size(); ++i) {
        auto c = p.costs[i];
        if (c.activity >= global.size() || c.location >= analysed.size() ||
            analysed[c.location] == trace::kNoRef) {
          throw Error(ErrorKind::Analysis, "delay costs part: a cost names no activity or "
                                           "analysed location");
        }
        c.activity = global[c.activity];
        costs.emplace_back(p.created[i], c);
      }
      unattributed.insert(unattributed.end(), p.unattributed.begin(), p.unattributed.end());
      out.delays.wait_states += p.wait_states;
      // Integral nanoseconds: exact in any order.
      out.delays.total_wait += p.total_wait;
    }
  }
  if (with_delays != 0 && with_delays != rows.size()) {
    throw Error(ErrorKind::Usage, "delay costs parts: " + std::to_string(with_delays) + " of " +
                                      std::to_string(rows.size()) +
                                      " parts propagated the delay costs");
  }
  // The serial analysis goes from the latest wait state to the earliest.
  std::stable_sort(costs.begin(), costs.end(),
                   [](const auto &a, const auto &b) { return a.first > b.first; });
  for (const auto &[key, c] : costs) {
    out.delays.costs.push_back(c);
  }
  std::sort(unattributed.begin(), unattributed.end(),
            [](const auto &a, const auto &b) { return a.key > b.key; });
  for (const auto &u : unattributed) {
    out.delays.unattributed += u.ns;
  }
  std::stable_sort(out.time.begin(), out.time.end(), by_location);
  std::stable_sort(path.profile.begin(), path.profile.end(), by_location);
  std::sort(out.waiting.begin(), out.waiting.end(), [](const auto &a, const auto &b) {
    return a.location != b.location ? a.location < b.location : a.activity < b.activity;
  });
  std::sort(segments.begin(), segments.end(),
            [](const auto &a, const auto &b) { return a.first > b.first; });
  for (std::size_t i = 0; i < segments.size(); ++i) {
    if (segments[i].first != static_cast<std::int64_t>(segments.size() - 1 - i)) {
      throw Error(ErrorKind::Analysis, "critical path parts: the path's segments are not one "
                                       "chain (a step is missing or repeated)");
    }
    path.segments.push_back(segments[i].second);
  }
  causes::finish_critical_path(out);
  out.seconds = seconds;
  return out;
}

} // namespace parjava::analysis
