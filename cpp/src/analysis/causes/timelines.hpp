// Each analysed location as a sequence of activity segments (causes.hpp, "Activities"): the
// time from one segment's start to the next one's is charged to the segment's activity. Built
// in one pass over the Enter/Leave events; interval queries are a binary search and a walk.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "parjava/analysis/causes/causes.hpp"

namespace parjava::analysis::causes {

// Dense per-activity accumulator that remembers which entries it touched (cleared in O(touched)).
class ActivitySums {
public:
  void resize(std::size_t activities) {
    value_.assign(activities, 0.0);
    seen_.assign(activities, 0);
  }
  // Each entry is listed once in touched() even when its sum passes through zero.
  void add(std::uint32_t activity, double ns) {
    if (seen_[activity] == 0) {
      seen_[activity] = 1;
      touched_.push_back(activity);
    }
    value_[activity] += ns;
  }
  [[nodiscard]] double get(std::uint32_t activity) const { return value_[activity]; }
  [[nodiscard]] const std::vector<std::uint32_t> &touched() const { return touched_; }
  void clear() {
    for (const auto a : touched_) {
      value_[a] = 0.0;
      seen_[a] = 0;
    }
    touched_.clear();
  }

private:
  std::vector<double> value_;
  std::vector<std::uint8_t> seen_;
  std::vector<std::uint32_t> touched_;
};

class Timelines {
public:
  // `locations`: the analysed locations (one per process, by rank). `owned` (per analysed
  // location; empty: all) limits the walk to a part's own processes; the others have no
  // segments (begin = end = 0).
  Timelines(const trace::Trace &trace, const std::vector<std::uint32_t> &locations,
            const std::vector<std::uint8_t> &owned = {});

  [[nodiscard]] const std::vector<Activity> &activities() const { return activities_; }
  // The call path an activity belongs to, as Böhme et al. compare the two sides of a wait
  // state (anchors §6, "exclusive time per call path"): computation by its region only (the
  // calls around it differ between a sender and its receiver), an MPI call by itself.
  [[nodiscard]] std::uint32_t path_of(std::uint32_t activity) const { return path_[activity]; }
  [[nodiscard]] std::size_t paths() const { return paths_; }
  // The activity of an MPI call (region, call site), or of computation in `region` between
  // the calls at `previous` and `callsite` (`next_call` the latter's region).
  std::uint32_t call_activity(std::uint32_t region, std::uint32_t callsite);
  std::uint32_t computation_activity(std::uint32_t region, std::uint32_t previous,
                                     std::uint32_t callsite, std::uint32_t next_call);
  // The activity equal to `a` in this timeline, or kNoRef; the call path an activity equal to
  // `a` belongs to here (a call's own, a computation's region's), or kNoRef: another part's
  // activities (delay_parts.cpp) read where this part has them.
  [[nodiscard]] std::uint32_t find_activity(const Activity &a) const;
  [[nodiscard]] std::uint32_t find_path(const Activity &a) const;
  // The key of each activity's first request (ActivityKey); set_key() names the next requests.
  [[nodiscard]] const std::vector<ActivityKey> &keys() const { return keys_; }
  void set_key(const ActivityKey &key) { key_ = key; }
  [[nodiscard]] trace::Timestamp begin(std::uint32_t l) const { return begin_[l]; }
  [[nodiscard]] trace::Timestamp end(std::uint32_t l) const { return end_[l]; }

  // Add the time of every activity of analysed location `l` within [a, b) to `sums`.
  void accumulate(std::uint32_t l, trace::Timestamp a, trace::Timestamp b,
                  ActivitySums &sums) const;
  // Exclusive time per activity of the whole location.
  void totals(std::uint32_t l, ActivitySums &sums) const {
    accumulate(l, begin_[l], end_[l], sums);
  }

private:
  [[nodiscard]] static std::pair<std::uint64_t, std::uint64_t> key_of(const Activity &a);

  std::vector<Activity> activities_;
  std::vector<ActivityKey> keys_;
  ActivityKey key_;
  std::vector<std::uint32_t> path_;
  std::size_t paths_ = 0;
  std::unordered_map<std::uint32_t, std::uint32_t> computation_path_; // region -> path
  struct KeyHash {
    std::size_t operator()(const std::pair<std::uint64_t, std::uint64_t> &k) const noexcept {
      return std::hash<std::uint64_t>{}(k.first * 0x9e3779b97f4a7c15ULL ^ k.second);
    }
  };
  std::unordered_map<std::pair<std::uint64_t, std::uint64_t>, std::uint32_t, KeyHash> index_;
  std::vector<std::uint64_t> offset_{0};
  std::vector<trace::Timestamp> start_;
  std::vector<std::uint32_t> activity_;
  std::vector<trace::Timestamp> begin_, end_;
};

// Whether a region is an MPI/SHMEM call (its time is communication, not computation).
bool is_runtime_region(const trace::Trace &trace, std::uint32_t region);

} // namespace parjava::analysis::causes
