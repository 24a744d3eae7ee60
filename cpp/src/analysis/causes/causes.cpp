// analyze_causes(): timelines and wait states once, then the critical path with its profile
// and imbalance, and the delay costs (causes.hpp).
#include <algorithm>
#include <chrono>

#include "critical_path.hpp"
#include "parjava/analysis/causes/cause_parts.hpp"
#include "parjava/error.hpp"

namespace parjava::analysis {

using causes::Timelines;
using causes::WaitStates;

std::vector<std::uint32_t> analysed_locations(const trace::Trace &t) {
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

CauseAnalysis analyze_causes(const trace::Trace &trace) {
  const auto started = std::chrono::steady_clock::now();
  CauseAnalysis out;
  out.locations = analysed_locations(trace);
  const auto n = out.locations.size();
  Timelines timelines(trace, out.locations);
  const WaitStates waits(trace, out.locations, timelines);
  out.activities = timelines.activities();

  // Time and waiting per (location, activity).
  out.time = causes::time_rows(timelines, out.locations);
  out.waiting = causes::waiting_rows(waits, out.locations);

  // The critical path, its profile (waiting excluded) and the imbalance per activity.
  CriticalPath &path = out.critical_path;
  path = causes::critical_path(timelines, waits, n);
  path.profile = causes::path_profile(timelines, path.segments, out.locations);
  for (auto &s : path.segments) {
    s.location = out.locations[s.location];
  }
  causes::finish_critical_path(out);

  out.delays = causes::delay_costs(timelines, waits);
  for (auto &c : out.delays.costs) {
    c.location = out.locations[c.location];
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return out;
}

} // namespace parjava::analysis
