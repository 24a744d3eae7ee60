// Where each location's time goes, by the seven categories of seed 004 (notes 004 §5): the
// profile behind parjava.Trace.summary() and the timeline colours.
#pragma once

#include <array>
#include <vector>

#include "parjava/trace/trace.hpp"

namespace parjava::trace {

// Nanoseconds per category, indexed by static_cast<int>(Category) - 1.
using CategoryTimes = std::array<Timestamp, 7>;

// For each location, the time from its first to its last event split by category: time inside
// an MPI/SHMEM call counts for that call's category (the innermost runtime call when calls
// nest), all other time is user code (category 7: "the gaps between MPI calls").
std::vector<CategoryTimes> time_by_category(const Trace &trace);

} // namespace parjava::trace
