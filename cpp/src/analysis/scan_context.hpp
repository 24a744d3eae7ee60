// What every pattern analysis shares during one scan: the trace columns, the options, the call
// locator, placement (same node or not) for eager limits and T_send, and the findings output.
#pragma once

#include <cstdint>
#include <vector>

#include "call_locator.hpp"
#include "finding_sink.hpp"
#include "parjava/analysis/finding.hpp"
#include "parjava/analysis/scan_options.hpp"
#include "parjava/trace/functions.hpp"
#include "parjava/trace/trace.hpp"

namespace parjava::analysis {

// A runtime call (MPI_Recv, MPI_Waitall, shmem_set_lock, ...) as its Enter/Leave pair.
struct Call {
  trace::EventIndex enter = trace::kNoEvent;
  trace::EventIndex leave = trace::kNoEvent; // kNoEvent when the call never returned
  trace::Timestamp start = 0;
  trace::Timestamp end = 0; // == start when there is no Leave
  trace::Function function = trace::Function::None;
  std::uint32_t region = trace::kNoRef;
  std::uint32_t callsite = trace::kNoRef;

  [[nodiscard]] bool valid() const { return enter != trace::kNoEvent; }
  [[nodiscard]] bool complete() const { return leave != trace::kNoEvent; }
  [[nodiscard]] trace::Timestamp duration() const { return end - start; }
};

class ScanContext {
public:
  ScanContext(const trace::Trace &trace, const ScanOptions &options, FindingSink &out);

  const trace::Trace &trace;
  const trace::EventColumns &ev;
  const ScanOptions &options;

  [[nodiscard]] bool enabled(PatternId id) const {
    return options.patterns.test(static_cast<std::size_t>(id));
  }
  // Seed 000 §5.4: I_T = 0 when Δ < ε, and a pattern is reported iff I_T > 0.
  [[nodiscard]] bool reaches_eps(std::int64_t lost) const {
    return lost > 0 && lost >= options.eps;
  }

  [[nodiscard]] Call call_from_enter(trace::EventIndex enter) const;
  // The call holding event `e` (any location).
  Call call_of(trace::EventIndex e) { return call_from_enter(locator_.enclosing_enter(e)); }
  // Start and end of that call, without its region and call site (end = start without Leave);
  // false when the event is in no call.
  bool span_of(trace::EventIndex e, trace::Timestamp &start, trace::Timestamp &end) {
    const auto enter = locator_.enclosing_enter(e);
    if (enter == trace::kNoEvent) {
      return false;
    }
    start = ev.time[static_cast<std::size_t>(enter)];
    const auto leave = ev.match[static_cast<std::size_t>(enter)];
    end = leave == trace::kNoEvent ? start : ev.time[static_cast<std::size_t>(leave)];
    return true;
  }
  // Only the start of that call (kNoEvent-safe: returns false when there is none).
  bool call_start_of(trace::EventIndex e, trace::Timestamp &start) {
    const auto enter = locator_.enclosing_enter(e);
    if (enter == trace::kNoEvent) {
      return false;
    }
    start = ev.time[static_cast<std::size_t>(enter)];
    return true;
  }

  [[nodiscard]] trace::Function function_of_region(std::uint32_t region) const {
    return region < region_function_.size() ? region_function_[region] : trace::Function::None;
  }
  [[nodiscard]] std::uint32_t location_of(trace::EventIndex e) const {
    return ev.location[static_cast<std::size_t>(e)];
  }
  // The same for an event of another location, from the location ranges (a few comparisons in
  // a small array instead of a cache miss in the location column).
  [[nodiscard]] std::uint32_t location_of_far(trace::EventIndex e) const;
  [[nodiscard]] std::int32_t rank_of(std::uint32_t location) const {
    return trace.locations[location].rank;
  }
  [[nodiscard]] trace::Timestamp time(trace::EventIndex e) const {
    return ev.time[static_cast<std::size_t>(e)];
  }

  // Whether two locations run on one node: from the trace's system tree (host of each
  // process), else from the machine's block placement of ranks, else the trace's only node.
  [[nodiscard]] bool same_node(std::uint32_t a, std::uint32_t b) const;
  [[nodiscard]] bool eager(std::uint64_t bytes, std::uint32_t a, std::uint32_t b) const {
    return bytes <= options.eager_limit.for_pair(same_node(a, b));
  }
  // T_send for `bytes` between two locations [ns], or -1 without a machine (seed 000 §5.7).
  [[nodiscard]] std::int64_t transfer_time(std::uint64_t bytes, std::uint32_t a,
                                           std::uint32_t b) const;

  void emit(const Finding &finding) { out_.push(finding); }

private:
  CallLocator locator_;
  std::vector<trace::Function> region_function_;
  std::vector<std::int32_t> node_of_location_; // system node index, -1 when unknown
  bool single_node_ = true;                    // the trace names at most one node
  FindingSink &out_;
};

// Whether a function is a blocking completion call that can wait (Wait*, not Test*).
bool is_wait(trace::Function f);
bool is_multi_completion(trace::Function f); // MPI_Waitall, MPI_Waitsome

} // namespace parjava::analysis
