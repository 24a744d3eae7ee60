// analyze_causes(): timelines and wait states once, then the critical path with its profile
// and imbalance, and the delay costs (causes.hpp).
#include <algorithm>
#include <chrono>
#include <unordered_map>

#include "critical_path.hpp"
#include "parjava/error.hpp"

namespace parjava::analysis {

using causes::ActivitySums;
using causes::Timelines;
using causes::WaitStates;

namespace {

std::vector<std::uint32_t> main_locations(const trace::Trace &t) {
  std::int32_t processes = 0;
  for (const auto &loc : t.locations) {
    processes = std::max(processes, loc.rank + 1);
  }
  std::vector<std::uint32_t> out(static_cast<std::size_t>(processes), trace::kNoRef);
  for (std::uint32_t l = 0; l < t.locations.size(); ++l) {
    const auto &loc = t.locations[l];
    if (loc.rank >= 0 && loc.thread == 0 && loc.type == trace::LocationType::CpuThread &&
        out[static_cast<std::size_t>(loc.rank)] == trace::kNoRef) {
      out[static_cast<std::size_t>(loc.rank)] = l;
    }
  }
  out.erase(std::remove(out.begin(), out.end(), trace::kNoRef), out.end());
  if (out.empty()) {
    throw Error(ErrorKind::Usage, "the trace has no MPI process (no location has a rank): the "
                                  "critical path and delay costs need MPI wait states");
  }
  return out;
}

// Rows of `sums` (touched activities) for trace location `location`.
void rows(const ActivitySums &sums, std::uint32_t location, std::vector<ActivityTime> &out) {
  for (const auto a : sums.touched()) {
    if (sums.get(a) != 0.0) {
      out.push_back({location, a, sums.get(a)});
    }
  }
}

} // namespace

CauseAnalysis analyze_causes(const trace::Trace &trace) {
  const auto started = std::chrono::steady_clock::now();
  CauseAnalysis out;
  out.locations = main_locations(trace);
  const auto n = out.locations.size();
  Timelines timelines(trace, out.locations);
  const WaitStates waits(trace, out.locations, timelines);
  out.activities = timelines.activities();
  const auto activities = out.activities.size();

  // Time and waiting per (location, activity); per activity their sums.
  ActivitySums sums;
  sums.resize(activities);
  std::vector<double> total(activities, 0.0), waiting(activities, 0.0), on_path(activities, 0.0);
  for (std::uint32_t l = 0; l < n; ++l) {
    sums.clear();
    timelines.totals(l, sums);
    for (const auto a : sums.touched()) {
      total[a] += sums.get(a);
    }
    rows(sums, out.locations[l], out.time);
  }
  std::unordered_map<std::uint64_t, double> wait_rows;
  for (const auto &w : waits.all()) {
    waiting[w.activity] += static_cast<double>(w.wait());
    wait_rows[(static_cast<std::uint64_t>(w.waiting) << 32U) | w.activity] +=
        static_cast<double>(w.wait());
  }
  for (const auto &[key, ns] : wait_rows) {
    out.waiting.push_back({out.locations[key >> 32U], static_cast<std::uint32_t>(key), ns});
  }
  std::sort(out.waiting.begin(), out.waiting.end(), [](const auto &a, const auto &b) {
    return a.location != b.location ? a.location < b.location : a.activity < b.activity;
  });

  // The critical path, its profile (waiting excluded) and the imbalance per activity.
  CriticalPath &path = out.critical_path;
  path = causes::critical_path(timelines, waits, n);
  std::vector<ActivitySums> per_location(n);
  for (const auto &s : path.segments) {
    auto &acc = per_location[s.location];
    if (acc.touched().empty()) {
      acc.resize(activities);
    }
    timelines.accumulate(s.location, s.begin, s.end, acc);
  }
  for (std::uint32_t l = 0; l < n; ++l) {
    if (per_location[l].touched().empty()) {
      continue;
    }
    for (const auto a : per_location[l].touched()) {
      on_path[a] += per_location[l].get(a);
    }
    rows(per_location[l], out.locations[l], path.profile);
  }
  for (auto &s : path.segments) {
    s.location = out.locations[s.location];
  }
  // Critical-path imbalance per call path c (anchors §7, scout.spec): ratio(c) =
  // [CP(c) - (T(c) - W(c)) / #locations]+ / CP(c), and each activity of c gets ratio(c) times
  // its own time on the path.
  const std::size_t paths = timelines.paths();
  std::vector<double> path_cp(paths, 0.0), path_mean(paths, 0.0);
  for (std::uint32_t a = 0; a < activities; ++a) {
    const auto c = timelines.path_of(a);
    path_cp[c] += on_path[a];
    path_mean[c] += (total[a] - waiting[a]) / static_cast<double>(n);
  }
  path.imbalance.assign(activities, 0.0);
  for (std::uint32_t a = 0; a < activities; ++a) {
    const auto c = timelines.path_of(a);
    if (path_cp[c] > 0.0) {
      path.imbalance[a] = on_path[a] * std::max(0.0, path_cp[c] - path_mean[c]) / path_cp[c];
      path.imbalance_total += path.imbalance[a];
    }
  }

  out.delays = causes::delay_costs(timelines, waits);
  for (auto &c : out.delays.costs) {
    c.location = out.locations[c.location];
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return out;
}

} // namespace parjava::analysis
