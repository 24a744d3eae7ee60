// analyze_intervals: choose the processes, walk each once, integrate (analyze_intervals.hpp).
#include "parjava/analysis/intervals/analyze_intervals.hpp"
#include "parjava/analysis/intervals/interval_parts.hpp"

#include <algorithm>
#include <string>

#include "collective_timing.hpp"
#include "interval_summary.hpp"
#include "node_table.hpp"
#include "parjava/error.hpp"
#include "process_walker.hpp"
#include "region_classes.hpp"

namespace parjava::analysis {
std::vector<IntervalProcess> interval_processes(const trace::Trace &trace,
                                                const std::vector<std::uint8_t> &owned) {
  std::vector<IntervalProcess> processes;
  for (std::uint32_t l = 0; l < trace.locations.size(); ++l) {
    const auto &loc = trace.locations[l];
    const bool cpu =
        loc.type == trace::LocationType::CpuThread || loc.type == trace::LocationType::Other;
    const bool mine = owned.empty() || (l < owned.size() && owned[l] != 0);
    if (cpu && mine && trace.location_begin(l) < trace.location_end(l)) {
      processes.push_back({l, loc.rank, loc.thread, loc.name});
    }
  }
  return processes;
}

std::vector<IntervalProcess> interval_processes(const trace::Trace &trace) {
  return interval_processes(trace, {});
}

namespace detail {

void throw_no_processes(const trace::Trace &trace) {
  throw Error(ErrorKind::Analysis,
              "interval analysis: the trace" +
                  (trace.metadata.path.empty() ? std::string() : " '" + trace.metadata.path + "'") +
                  " has no CPU location with events; record the program with the tracer or "
                  "give an OTF2 archive that contains its processes");
}

void add_warnings(const trace::Trace &trace, IntervalTree &tree) {
  const auto &issues = tree.issues;
  auto &w = tree.warnings;
  if (issues.intervals_left_open != 0) {
    w.push_back(std::to_string(issues.intervals_left_open) +
                " interval execution(s) were still open at the last event of their process "
                "(the program ended or was killed inside them); they were closed there");
  }
  if (issues.intervals_cut != 0) {
    w.push_back(std::to_string(issues.intervals_cut) +
                " interval execution(s) were closed early because an enclosing interval ended "
                "first (markers, MPI_Pcontrol phases or regions are not properly nested)");
  }
  if (issues.calls_left_open != 0) {
    w.push_back(std::to_string(issues.calls_left_open) +
                " process(es) ended inside a runtime call; its time up to the last event counts "
                "as MPI time");
  }
  const auto &u = trace.unmatched;
  if (u.sends + u.receives != 0) {
    w.push_back(std::to_string(u.sends + u.receives) +
                " message event(s) have no matching partner in the trace: their waiting and "
                "skew times are not counted");
  }
  if (u.collectives_incomplete != 0) {
    w.push_back(std::to_string(u.collectives_incomplete) +
                " collective instance(s) lack members: their skew is measured over the members "
                "present");
  }
  if (u.intervals_unclosed + u.intervals_unopened != 0) {
    w.push_back(std::to_string(u.intervals_unclosed + u.intervals_unopened) +
                " interval marker(s) have no matching begin or end and were ignored or closed "
                "at the end of their process");
  }
}

} // namespace detail

IntervalTree analyze_interval_part(const trace::Trace &trace, const IntervalOptions &options,
                                   const std::vector<std::uint8_t> &owned,
                                   const IntervalProgress &progress) {
  if (options.max_depth < -1) {
    throw Error(ErrorKind::Usage, "interval analysis: max_depth must be -1 (no limit) or >= 0, "
                                  "got " +
                                      std::to_string(options.max_depth));
  }
  IntervalTree tree;
  tree.options = options;
  if (options.execution == ExecutionTimeBasis::PerExecution) {
    tree.options.record_executions = true;
  }
  tree.processes = interval_processes(trace, owned);
  if (tree.processes.empty() && owned.empty()) {
    detail::throw_no_processes(trace);
  }
  if (!tree.processes.empty()) {
    tree.begin =
        trace.events
            .time[static_cast<std::size_t>(trace.location_begin(tree.processes.front().location))];
    tree.end = tree.begin;
  }
  for (const auto &p : tree.processes) {
    const auto first = trace.location_begin(p.location);
    const auto last = trace.location_end(p.location);
    tree.begin = std::min(tree.begin, trace.events.time[static_cast<std::size_t>(first)]);
    tree.end = std::max(tree.end, trace.events.time[static_cast<std::size_t>(last - 1)]);
    tree.events += static_cast<std::uint64_t>(last - first);
  }

  const auto regions = detail::classify_regions(trace);
  const auto collectives = detail::collective_timings(trace);
  detail::NodeTable table(trace, tree.options, tree.nodes);
  detail::ProcessWalker walker(trace, tree.options, regions, collectives, table, tree);
  for (std::uint32_t p = 0; p < tree.processes.size(); ++p) {
    walker.walk(p);
    if (progress) {
      progress(p + 1, tree.processes.size());
    }
  }
  tree.issues = walker.issues();
  return tree;
}

IntervalTree analyze_intervals(const trace::Trace &trace, const IntervalOptions &options,
                               const IntervalProgress &progress) {
  auto tree = analyze_interval_part(trace, options, {}, progress);
  detail::summarize(tree);
  detail::add_warnings(trace, tree);
  return tree;
}

} // namespace parjava::analysis
