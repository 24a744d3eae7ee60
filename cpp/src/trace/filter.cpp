// filter(): copy the definitions, append the kept events through a TraceBuilder (which sorts
// nothing: the order is kept) and let finish() match the subset.
#include "parjava/trace/filter.hpp"

#include <algorithm>

#include "parjava/error.hpp"
#include "parjava/trace/builder.hpp"

namespace parjava::trace {

Trace filter(const Trace &trace, const TraceFilter &keep) {
  TraceBuilder b;
  b.metadata() = trace.metadata;
  b.metadata().warnings.clear();
  for (const auto &n : trace.system_nodes) {
    b.add_system_node(n.name, n.class_name, n.parent);
  }
  for (const auto &g : trace.location_groups) {
    b.add_location_group(g.name, g.rank, g.system_node);
  }
  std::vector<std::uint32_t> locations = keep.locations;
  if (locations.empty()) {
    for (std::uint32_t l = 0; l < trace.location_count(); ++l) {
      locations.push_back(l);
    }
  }
  std::sort(locations.begin(), locations.end());
  locations.erase(std::unique(locations.begin(), locations.end()), locations.end());
  for (const auto l : locations) {
    if (l >= trace.location_count()) {
      throw Error(ErrorKind::Usage, "filter: location " + std::to_string(l) +
                                        " does not exist (the trace has " +
                                        std::to_string(trace.location_count()) + ")");
    }
    const auto &loc = trace.locations[l];
    b.add_location(loc.rank, loc.thread, loc.name, loc.type, loc.group, loc.id);
  }
  for (const auto &r : trace.regions) {
    b.add_region(r);
  }
  for (const auto &c : trace.communicators) {
    if (c.self) {
      b.add_self_communicator(c.name);
    } else {
      b.add_communicator(c.name, c.members, c.parent);
    }
  }
  for (const auto &s : trace.callsites) {
    b.add_callsite(s.file, s.line, s.function);
  }
  for (const auto &m : trace.metrics) {
    b.add_metric(m);
  }

  std::vector<bool> region_kept(trace.regions.size(), keep.regions.empty());
  for (const auto r : keep.regions) {
    if (r >= trace.regions.size()) {
      throw Error(ErrorKind::Usage, "filter: region " + std::to_string(r) + " does not exist");
    }
    region_kept[r] = true;
  }
  const auto &e = trace.events;
  auto kept = [&](std::size_t i) {
    if (keep.time_window &&
        (e.time[i] < keep.time_window->first || e.time[i] >= keep.time_window->second)) {
      return false;
    }
    if (keep.regions.empty()) {
      return true;
    }
    return e.kind[i] != EventKind::Metric && e.region[i] < region_kept.size() &&
           region_kept[e.region[i]];
  };
  std::size_t count = 0;
  for (const auto l : locations) {
    for (auto i = trace.location_begin(l); i < trace.location_end(l); ++i) {
      count += kept(static_cast<std::size_t>(i)) ? 1U : 0U;
    }
  }
  b.reserve(count);
  for (std::uint32_t n = 0; n < locations.size(); ++n) {
    const auto l = locations[n];
    for (auto i = trace.location_begin(l); i < trace.location_end(l); ++i) {
      const auto u = static_cast<std::size_t>(i);
      if (kept(u)) {
        b.append(n, EventRecord{e.time[u], e.kind[u], e.region[u], e.peer[u], e.tag[u], e.comm[u],
                                e.bytes[u], e.aux[u], e.callsite[u]});
      }
    }
  }
  return b.finish();
}

} // namespace parjava::trace
