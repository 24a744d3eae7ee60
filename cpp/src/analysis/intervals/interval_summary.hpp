// Integrate (notes 004 §3.5 step 4-6, notes 002 §2.4 / §S.2): after the walk, derive each
// node's non-additive per-process characteristics (idle, load imbalance, insufficient
// parallelism, productive and lost time), its own (exclusive) part of the additive ones, and its
// main and comparative characteristics.
#pragma once

#include "parjava/analysis/intervals/interval_tree.hpp"

namespace parjava::analysis::detail {

void summarize(IntervalTree &tree);

} // namespace parjava::analysis::detail
