#pragma once

#include "wait_states.hpp"

namespace parjava::analysis::causes {

// The path's segments (profile and imbalance are filled by analyze_causes).
CriticalPath critical_path(const Timelines &timelines, const WaitStates &waits,
                           std::size_t locations);

// Delay costs of every wait state (anchors §6), processed from the latest to the earliest.
DelayCosts delay_costs(const Timelines &timelines, const WaitStates &waits);

} // namespace parjava::analysis::causes
