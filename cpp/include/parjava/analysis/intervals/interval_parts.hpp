// The interval analysis in parts, for K analysis processes that each hold some of a trace's
// locations (python/parjava/parallel.py, docs/running-at-scale.md): each part walks its own
// processes only, its tree travels as bytes, and one process merges the parts into the tree the
// serial analysis gives — same nodes in the same order, same values to the nanosecond. Walking
// a process reads only its own events and the partner events the replay brought (messages'
// calls, collective members), so a part's per-process values are the serial ones; the merge
// restores the serial node order from where each node was first met (IntervalNode::
// first_process, first_lookup) and recomputes what depends on all processes (idle time, load
// imbalance, insufficient parallelism, the comparative characteristics).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "parjava/analysis/intervals/analyze_intervals.hpp"
#include "parjava/analysis/intervals/interval_options.hpp"
#include "parjava/analysis/intervals/interval_tree.hpp"
#include "parjava/trace/trace.hpp"

namespace parjava::analysis {

// The CPU locations with events among `owned` (one flag per location; empty: all).
std::vector<IntervalProcess> interval_processes(const trace::Trace &trace,
                                                const std::vector<std::uint8_t> &owned);

// Walk the processes on owned locations (all when `owned` is empty): per-process values of
// the additive characteristics, executions and walk issues; not summarized, no warnings.
IntervalTree analyze_interval_part(const trace::Trace &trace, const IntervalOptions &options,
                                   const std::vector<std::uint8_t> &owned,
                                   const IntervalProgress &progress = {});

// The parts' trees (of disjoint process sets) as one summarized tree with its warnings;
// `trace` gives the warnings' unmatched counts (the whole trace's) and the archive's name.
// Throws ErrorKind::Analysis when no part has a process.
IntervalTree merge_interval_parts(const trace::Trace &trace, const IntervalOptions &options,
                                  std::vector<IntervalTree> parts);

// A part's tree as bytes and back (same machine: native byte order); a damaged or truncated
// buffer throws ErrorKind::Format.
std::string interval_part_bytes(const IntervalTree &tree);
IntervalTree interval_part_from_bytes(const std::string &bytes);

} // namespace parjava::analysis
