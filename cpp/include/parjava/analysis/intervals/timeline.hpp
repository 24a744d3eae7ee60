// What a timeline picture of a trace shows (notes 004 §6.3, TimeLine; App. 2 colours): for
// each process a row with its runtime calls coloured by seed-004 category over its user code,
// and lines from each send to its receive, restricted to a time window. Reduced for drawing:
// a row with more calls than fit is summarised in equal bins, each coloured by what filled
// most of it (a runtime category, or user code when calls fill less than half of it), and
// messages beyond a limit are thinned evenly. Interval boundaries come from the interval tree.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "parjava/analysis/intervals/interval_tree.hpp"
#include "parjava/trace/trace.hpp"

namespace parjava::analysis {

struct TimelineOptions {
  trace::Timestamp begin = std::numeric_limits<trace::Timestamp>::min(); // window, trace time
  trace::Timestamp end = std::numeric_limits<trace::Timestamp>::max();
  std::uint32_t max_bars_per_row = 2000; // beyond: summarised in this many bins
  std::uint32_t max_messages = 5000;     // beyond: every k-th message is kept
};

struct TimelineData {
  trace::Timestamp begin = 0; // the window, clamped to the trace
  trace::Timestamp end = 0;
  std::vector<IntervalProcess> rows;       // one per process (as in the interval analysis)
  std::vector<trace::Timestamp> row_begin; // the process's first and last event, clipped
  std::vector<trace::Timestamp> row_end;
  std::vector<std::uint8_t> row_binned; // 1 when the row's calls were summarised in bins

  // Runtime calls (outermost), clipped to the window. region is kNoRef for a bin.
  std::vector<std::uint32_t> bar_row;
  std::vector<trace::Timestamp> bar_begin;
  std::vector<trace::Timestamp> bar_end;
  std::vector<std::uint8_t> bar_category; // trace::Category value 1..6
  std::vector<std::uint32_t> bar_region;

  // Messages with an end in the window: send event -> receive event.
  std::vector<std::uint32_t> message_from_row;
  std::vector<std::uint32_t> message_to_row;
  std::vector<trace::Timestamp> message_send;
  std::vector<trace::Timestamp> message_receive;
  std::uint64_t messages_in_window = 0; // before thinning
};

// Throws ErrorKind::Usage when the window is empty (begin >= end) and ErrorKind::Analysis when
// the trace has no process with events.
TimelineData extract_timeline(const trace::Trace &trace, const TimelineOptions &options = {});

} // namespace parjava::analysis
