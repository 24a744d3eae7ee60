// Interval analysis of a trace (notes 004 §3.5 stages 1-2, notes 002 §2.4 Integrate): one walk
// over the events of each process builds the interval tree and every per-process
// characteristic; a final pass derives idle time, load imbalance, productive and lost time and
// the comparative characteristics of each interval. Cost: O(events) time, and memory
// proportional to intervals × processes (plus one record per execution when recorded).
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "parjava/analysis/intervals/interval_options.hpp"
#include "parjava/analysis/intervals/interval_tree.hpp"
#include "parjava/trace/trace.hpp"

namespace parjava::analysis {

// Called after each process is walked with (processes done, processes in total).
using IntervalProgress = std::function<void(std::size_t, std::size_t)>;

// The processes an analysis looks at: every CPU location (a rank, or a thread of one) that has
// events; metric and accelerator locations are left out.
std::vector<IntervalProcess> interval_processes(const trace::Trace &trace);

// Throws parjava::Error(ErrorKind::Analysis) when the trace has no CPU location with events,
// and ErrorKind::Usage for invalid options.
IntervalTree analyze_intervals(const trace::Trace &trace, const IntervalOptions &options = {},
                               const IntervalProgress &progress = {});

} // namespace parjava::analysis
