#pragma once

#include "wait_states.hpp"

namespace parjava::analysis::causes {

// The path's segments (profile and imbalance are filled by analyze_causes).
CriticalPath critical_path(const Timelines &timelines, const WaitStates &waits,
                           std::size_t locations);

// One step of the backward walk (anchors §7) on analysed location `l` from time `t` back:
// appends the path's segment on `l` and returns true with (l, t) moved to the cause and end of
// the wait state that starts it, or false when it reaches `first` (the start of the run).
// `next[l]` is one past l's wait states not yet passed; it only decreases, so the walk is linear.
bool walk_step(const WaitStates &waits, std::vector<std::size_t> &next, std::uint32_t &l,
               trace::Timestamp &t, trace::Timestamp first, std::vector<PathSegment> &segments);

// Time on the path per (location, activity) of `segments` (analysed locations, time order):
// rows by analysed location, each location's activities in the order first met, with the
// trace location `locations[l]`.
std::vector<ActivityTime> path_profile(const Timelines &timelines,
                                       const std::vector<PathSegment> &segments,
                                       const std::vector<std::uint32_t> &locations);

// Critical-path imbalance per call path c (anchors §7, scout.spec), c an MPI call at its site
// or the computation in one region: ratio(c) = [CP(c) - (T(c) - W(c)) / #processes]+ / CP(c);
// each activity of c gets ratio(c) times its own time on the path (path.imbalance, and their
// sum path.imbalance_total). Per activity: `on_path`, `total` time and `waiting` (ns).
void path_imbalance(const std::vector<Activity> &activities, const std::vector<double> &on_path,
                    const std::vector<double> &total, const std::vector<double> &waiting,
                    std::size_t processes, CriticalPath &path);

// Exclusive time per (location, activity) of each analysed location with a timeline, by
// analysed location, each location's activities in the order first met; trace locations.
std::vector<ActivityTime> time_rows(const Timelines &timelines,
                                    const std::vector<std::uint32_t> &locations);

// Waiting per (location, activity) of the wait states, by trace location, then activity.
std::vector<ActivityTime> waiting_rows(const WaitStates &waits,
                                       const std::vector<std::uint32_t> &locations);

// From `out`'s activities, time, waiting, path segments (trace locations, time order) and
// profile: the path's begin, end and length and its imbalance (path_imbalance).
void finish_critical_path(CauseAnalysis &out);

// Delay costs of every wait state (anchors §6), processed from the latest to the earliest.
DelayCosts delay_costs(const Timelines &timelines, const WaitStates &waits);

} // namespace parjava::analysis::causes
