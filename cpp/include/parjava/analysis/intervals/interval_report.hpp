// The text report of an interval tree in the layout of the seed-004 tool (notes 004 §6.1): per
// interval its identity line, main characteristics with their components (components on
// following lines after "---" / "*****"), the comparative characteristics (min and max with
// the process, mean), and optionally the characteristics on each process. Seconds with six
// decimals. Lines the seed's sample does not have (real synchronisation, load imbalance,
// overlap, CPU time, ...) follow the sample's lines, so the sample's part reads unchanged.
#pragma once

#include <string>

#include "parjava/analysis/intervals/interval_tree.hpp"

namespace parjava::analysis {

struct ReportOptions {
  int max_level = -1;      // deepest interval level printed (-1: all)
  bool per_process = true; // the table of characteristics on each process
};

std::string interval_report(const IntervalTree &tree, const ReportOptions &options = {});

// Text of one interval (the block interval_report prints for it).
std::string interval_report(const IntervalTree &tree, std::uint32_t node,
                            const ReportOptions &options = {});

// How a process is named in reports: its rank ("3"), "3.1" for thread 1 of rank 3, or
// "L<location>" for a location without a rank.
std::string process_label(const IntervalProcess &process);

} // namespace parjava::analysis
