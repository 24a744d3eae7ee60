// The critical path (causes.hpp; anchors §7): a backward walk from the end of the run that
// jumps, at each wait state it meets, to the process that caused it.
#include "critical_path.hpp"

#include <algorithm>

namespace parjava::analysis::causes {

using trace::Timestamp;

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
  // Per location, the wait states not yet passed (their ends only decrease as we walk back):
  // an index into waits.of(l), one past the latest candidate.
  std::vector<std::size_t> next(locations);
  for (std::uint32_t k = 0; k < locations; ++k) {
    next[k] = waits.of(k).size();
  }
  const auto &all = waits.all();
  while (true) {
    const auto &mine = waits.of(l);
    std::size_t &i = next[l];
    while (i > 0 && all[mine[i - 1]].end > t) {
      --i;
    }
    if (i == 0) {
      path.segments.push_back({l, std::min(first, t), t});
      break;
    }
    const WaitState &w = all[mine[--i]];
    path.segments.push_back({l, w.end, t});
    t = w.end;
    l = w.cause;
  }
  std::reverse(path.segments.begin(), path.segments.end());
  path.begin = path.segments.front().begin;
  for (const auto &s : path.segments) {
    path.length += s.end - s.begin;
  }
  return path;
}

} // namespace parjava::analysis::causes
