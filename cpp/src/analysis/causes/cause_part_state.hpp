// What a CausePart holds (cause_parts.hpp): its processes' timelines and wait states, the
// critical path's walk, and the delay costs' propagation once started (delay_parts.hpp).
#pragma once

#include <memory>
#include <vector>

#include "critical_path.hpp"
#include "delay_parts.hpp"
#include "parjava/analysis/causes/cause_parts.hpp"

namespace parjava::analysis {

namespace detail {

inline std::vector<std::uint8_t> analysed_owned(const std::vector<std::uint32_t> &locations,
                                                const std::vector<std::uint8_t> &owned) {
  std::vector<std::uint8_t> out(locations.size(), 0);
  for (std::size_t l = 0; l < locations.size(); ++l) {
    out[l] = owned[locations[l]];
  }
  return out;
}

inline causes::PartScope scope_of(std::vector<std::uint8_t> owned, std::uint32_t latest,
                                  trace::Timestamp entry) {
  causes::PartScope scope;
  scope.owned = std::move(owned);
  scope.finalize_latest = latest;
  scope.finalize_entry = entry;
  return scope;
}

} // namespace detail

struct CausePart::State {
  State(const trace::Trace &trace, std::vector<std::uint32_t> analysed,
        const std::vector<std::uint8_t> &owned_locations, std::uint32_t latest,
        trace::Timestamp entry)
      : locations(std::move(analysed)),
        scope(detail::scope_of(detail::analysed_owned(locations, owned_locations), latest, entry)),
        timelines(trace, locations, scope.owned), waits(trace, locations, timelines, &scope),
        next(locations.size()) {
    for (std::uint32_t l = 0; l < locations.size(); ++l) {
      next[l] = waits.of(l).size();
    }
  }
  std::vector<std::uint32_t> locations;
  causes::PartScope scope;
  causes::Timelines timelines;
  causes::WaitStates waits;
  std::vector<std::size_t> next;     // per analysed location (walk_step)
  std::vector<PathSegment> segments; // own, in walk order (analysed locations)
  std::vector<std::int64_t> steps;   // their steps (0: the path's last segment)
  std::unique_ptr<causes::DelayPart> delays;
};

} // namespace parjava::analysis
