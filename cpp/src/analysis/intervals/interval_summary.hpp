// Integrate (notes 004 §3.5 step 4-6, notes 002 §2.4 / §S.2): after the walk, derive each
// node's non-additive per-process characteristics (idle, load imbalance, insufficient
// parallelism, productive and lost time), its own (exclusive) part of the additive ones, and its
// main and comparative characteristics.
#pragma once

#include "parjava/analysis/intervals/interval_tree.hpp"
#include "parjava/trace/trace.hpp"

namespace parjava::analysis::detail {

void summarize(IntervalTree &tree);

// The tree's warnings: its walk's issues and the trace's unmatched events (analyze_intervals.cpp).
void add_warnings(const trace::Trace &trace, IntervalTree &tree);

// ErrorKind::Analysis: the trace has no CPU location with events.
[[noreturn]] void throw_no_processes(const trace::Trace &trace);

} // namespace parjava::analysis::detail
