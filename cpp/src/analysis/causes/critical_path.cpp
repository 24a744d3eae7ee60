// The critical path (causes.hpp; anchors §7): a backward walk from the end of the run that
// jumps, at each wait state it meets, to the process that caused it.
#include "critical_path.hpp"

#include <algorithm>
#include <unordered_map>

namespace parjava::analysis::causes {

using trace::Timestamp;

bool walk_step(const WaitStates &waits, std::vector<std::size_t> &next, std::uint32_t &l,
               Timestamp &t, Timestamp first, std::vector<PathSegment> &segments) {
  const auto &all = waits.all();
  const auto &mine = waits.of(l);
  std::size_t &i = next[l];
  while (i > 0 && all[mine[i - 1]].end > t) {
    --i;
  }
  if (i == 0) {
    segments.push_back({l, std::min(first, t), t});
    return false;
  }
  const WaitState &w = all[mine[--i]];
  segments.push_back({l, w.end, t});
  t = w.end;
  l = w.cause;
  return true;
}

CriticalPath critical_path(const Timelines &timelines, const WaitStates &waits,
                           std::size_t locations) {
  CriticalPath path;
  if (locations == 0) {
    return path;
  }
  std::uint32_t l = 0;
  for (std::uint32_t k = 1; k < locations; ++k) {
    if (timelines.end(k) > timelines.end(l)) {
      l = k;
    }
  }
  path.end = timelines.end(l);
  // The path starts when the run does: a process that started late waited for its launch
  // before its first event (that time is on the path, charged to no activity).
  Timestamp first = timelines.begin(0);
  for (std::uint32_t k = 1; k < locations; ++k) {
    first = std::min(first, timelines.begin(k));
  }
  Timestamp t = path.end;
  std::vector<std::size_t> next(locations);
  for (std::uint32_t k = 0; k < locations; ++k) {
    next[k] = waits.of(k).size();
  }
  while (walk_step(waits, next, l, t, first, path.segments)) {
  }
  std::reverse(path.segments.begin(), path.segments.end());
  path.begin = path.segments.front().begin;
  for (const auto &s : path.segments) {
    path.length += s.end - s.begin;
  }
  return path;
}

std::vector<ActivityTime> path_profile(const Timelines &timelines,
                                       const std::vector<PathSegment> &segments,
                                       const std::vector<std::uint32_t> &locations) {
  std::vector<ActivitySums> per_location(locations.size());
  for (const auto &s : segments) {
    auto &acc = per_location[s.location];
    if (acc.touched().empty()) {
      acc.resize(timelines.activities().size());
    }
    timelines.accumulate(s.location, s.begin, s.end, acc);
  }
  std::vector<ActivityTime> rows;
  for (std::uint32_t l = 0; l < locations.size(); ++l) {
    for (const auto a : per_location[l].touched()) {
      if (per_location[l].get(a) != 0.0) {
        rows.push_back({locations[l], a, per_location[l].get(a)});
      }
    }
  }
  return rows;
}

void path_imbalance(const std::vector<Activity> &activities, const std::vector<double> &on_path,
                    const std::vector<double> &total, const std::vector<double> &waiting,
                    std::size_t processes, CriticalPath &path) {
  // The call path of each activity, as Timelines::path_of groups them: a call by itself,
  // computation by its region.
  const auto n = activities.size();
  std::vector<std::uint32_t> group(n);
  std::unordered_map<std::uint32_t, std::uint32_t> region_group;
  std::uint32_t groups = 0;
  for (std::uint32_t a = 0; a < n; ++a) {
    if (!activities[a].computation) {
      group[a] = groups++;
    } else {
      const auto [it, fresh] = region_group.emplace(activities[a].region, groups);
      groups += fresh ? 1U : 0U;
      group[a] = it->second;
    }
  }
  std::vector<double> path_cp(groups, 0.0), path_mean(groups, 0.0);
  for (std::uint32_t a = 0; a < n; ++a) {
    path_cp[group[a]] += on_path[a];
    path_mean[group[a]] += (total[a] - waiting[a]) / static_cast<double>(processes);
  }
  path.imbalance.assign(n, 0.0);
  path.imbalance_total = 0.0;
  for (std::uint32_t a = 0; a < n; ++a) {
    const auto c = group[a];
    if (path_cp[c] > 0.0) {
      path.imbalance[a] = on_path[a] * std::max(0.0, path_cp[c] - path_mean[c]) / path_cp[c];
      path.imbalance_total += path.imbalance[a];
    }
  }
}

std::vector<ActivityTime> time_rows(const Timelines &timelines,
                                    const std::vector<std::uint32_t> &locations) {
  std::vector<ActivityTime> rows;
  ActivitySums sums;
  sums.resize(timelines.activities().size());
  for (std::uint32_t l = 0; l < locations.size(); ++l) {
    sums.clear();
    timelines.totals(l, sums);
    for (const auto a : sums.touched()) {
      if (sums.get(a) != 0.0) {
        rows.push_back({locations[l], a, sums.get(a)});
      }
    }
  }
  return rows;
}

std::vector<ActivityTime> waiting_rows(const WaitStates &waits,
                                       const std::vector<std::uint32_t> &locations) {
  std::unordered_map<std::uint64_t, double> sums;
  for (const auto &w : waits.all()) {
    sums[(static_cast<std::uint64_t>(w.waiting) << 32U) | w.activity] +=
        static_cast<double>(w.wait());
  }
  std::vector<ActivityTime> rows;
  rows.reserve(sums.size());
  for (const auto &[key, ns] : sums) {
    rows.push_back({locations[key >> 32U], static_cast<std::uint32_t>(key), ns});
  }
  std::sort(rows.begin(), rows.end(), [](const auto &a, const auto &b) {
    return a.location != b.location ? a.location < b.location : a.activity < b.activity;
  });
  return rows;
}

void finish_critical_path(CauseAnalysis &out) {
  // Integral nanoseconds in doubles: these sums are exact in any order.
  const auto activities = out.activities.size();
  std::vector<double> total(activities, 0.0), waiting(activities, 0.0), on_path(activities, 0.0);
  for (const auto &r : out.time) {
    total[r.activity] += r.ns;
  }
  for (const auto &r : out.waiting) {
    waiting[r.activity] += r.ns;
  }
  CriticalPath &path = out.critical_path;
  for (const auto &r : path.profile) {
    on_path[r.activity] += r.ns;
  }
  path.length = 0;
  if (!path.segments.empty()) {
    path.begin = path.segments.front().begin;
    path.end = path.segments.back().end;
  }
  for (const auto &s : path.segments) {
    path.length += s.end - s.begin;
  }
  path_imbalance(out.activities, on_path, total, waiting, out.locations.size(), path);
}

} // namespace parjava::analysis::causes
