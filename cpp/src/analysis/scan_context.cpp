#include "scan_context.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace parjava::analysis {

using trace::EventIndex;
using trace::Function;
using trace::kNoEvent;
using trace::kNoRef;

ScanContext::ScanContext(const trace::Trace &trace_in, const ScanOptions &options_in,
                         FindingSink &out)
    : trace(trace_in), ev(trace_in.events), options(options_in), locator_(trace_in), out_(out) {
  region_function_.reserve(trace.regions.size());
  for (const auto &region : trace.regions) {
    region_function_.push_back(region.function);
  }
  std::set<std::uint32_t> nodes;
  node_of_location_.reserve(trace.location_count());
  for (const auto &location : trace.locations) {
    std::int32_t node = -1;
    if (location.group != kNoRef && location.group < trace.location_groups.size()) {
      const auto system_node = trace.location_groups[location.group].system_node;
      if (system_node != kNoRef) {
        node = static_cast<std::int32_t>(system_node);
        nodes.insert(system_node);
      }
    }
    node_of_location_.push_back(node);
  }
  single_node_ = nodes.size() <= 1;
}

Call ScanContext::call_from_enter(EventIndex enter) const {
  Call call;
  if (enter == kNoEvent) {
    return call;
  }
  const auto u = static_cast<std::size_t>(enter);
  call.enter = enter;
  call.leave = ev.match[u];
  call.start = ev.time[u];
  call.end = call.leave == kNoEvent ? call.start : ev.time[static_cast<std::size_t>(call.leave)];
  call.region = ev.region[u];
  call.function = function_of_region(call.region);
  call.callsite = ev.callsite[u];
  return call;
}

bool ScanContext::same_node(std::uint32_t a, std::uint32_t b) const {
  const auto na = node_of_location_[a];
  const auto nb = node_of_location_[b];
  if (na >= 0 && nb >= 0) {
    return na == nb;
  }
  if (options.machine) {
    const auto ra = rank_of(a);
    const auto rb = rank_of(b);
    if (ra >= 0 && rb >= 0 && ra < options.machine->max_ranks() &&
        rb < options.machine->max_ranks()) {
      return options.machine->same_node(ra, rb);
    }
  }
  return single_node_;
}

std::int64_t ScanContext::transfer_time(std::uint64_t bytes, std::uint32_t a,
                                        std::uint32_t b) const {
  if (!options.machine) {
    return -1;
  }
  const bool intra = same_node(a, b) || !options.machine->has_inter_node();
  return std::llround(options.machine->p2p_time(bytes, intra) * 1e9);
}

std::uint32_t ScanContext::location_of_far(EventIndex e) const {
  const auto &offsets = trace.location_offsets;
  const auto it = std::upper_bound(offsets.begin(), offsets.end(), static_cast<std::uint64_t>(e));
  return static_cast<std::uint32_t>(it - offsets.begin() - 1);
}

bool is_wait(Function f) {
  return f == Function::MPI_Wait || f == Function::MPI_Waitany || f == Function::MPI_Waitall ||
         f == Function::MPI_Waitsome;
}

bool is_multi_completion(Function f) {
  return f == Function::MPI_Waitall || f == Function::MPI_Waitsome;
}

} // namespace parjava::analysis
