// Merging the parts of a parallel interval analysis into the serial tree (interval_parts.hpp).
#include "parjava/analysis/intervals/interval_parts.hpp"

#include <algorithm>
#include <cstddef>
#include <map>
#include <numeric>
#include <tuple>
#include <utility>

#include "interval_summary.hpp"
#include "parjava/error.hpp"

namespace parjava::analysis {
namespace {

// Identity of a node under its parent, as NodeTable keys it: (source, site, id), with the
// site spelled out (file, line) or, for user regions, the region.
using NodeKey = std::tuple<std::uint32_t, std::uint8_t, std::string, std::uint32_t, std::uint32_t,
                           std::int64_t>;

NodeKey key_of(std::uint32_t merged_parent, const IntervalNode &n) {
  const bool region = n.source == IntervalSource::Region;
  return {
      merged_parent,        static_cast<std::uint8_t>(n.source), region ? std::string() : n.file,
      region ? 0U : n.line, region ? n.region : trace::kNoRef,   n.user_id};
}

struct Slot {
  IntervalNode node;                                       // identity fields, from the creator
  std::vector<std::pair<std::uint32_t, std::size_t>> rows; // (global process, part) per row
  std::vector<std::uint64_t> executions;
  std::vector<CharacteristicRow> values;
};

} // namespace

IntervalTree merge_interval_parts(const trace::Trace &trace, const IntervalOptions &options,
                                  std::vector<IntervalTree> parts) {
  IntervalTree tree;
  tree.options = options;
  if (options.execution == ExecutionTimeBasis::PerExecution) {
    tree.options.record_executions = true;
  }
  // The serial processes are the CPU locations with events in location order; the parts hold
  // disjoint sets of them.
  std::vector<std::tuple<std::uint32_t, std::size_t, std::uint32_t>> all; // location, part, local
  for (std::size_t k = 0; k < parts.size(); ++k) {
    for (std::uint32_t p = 0; p < parts[k].processes.size(); ++p) {
      all.emplace_back(parts[k].processes[p].location, k, p);
    }
  }
  if (all.empty()) {
    detail::throw_no_processes(trace);
  }
  std::sort(all.begin(), all.end());
  std::vector<std::vector<std::uint32_t>> global(parts.size());
  for (std::size_t k = 0; k < parts.size(); ++k) {
    global[k].assign(parts[k].processes.size(), 0);
  }
  for (std::uint32_t g = 0; g < all.size(); ++g) {
    const auto [location, k, p] = all[g];
    if (g > 0 && std::get<0>(all[g - 1]) == location) {
      throw Error(ErrorKind::Analysis, "merging interval parts: location " +
                                           std::to_string(location) + " was analysed by two parts");
    }
    global[k][p] = g;
    tree.processes.push_back(parts[k].processes[p]);
  }

  // Nodes by identity; each part's nodes come parents first, so a parent's slot is known.
  std::map<NodeKey, std::uint32_t> slots_by_key;
  std::vector<Slot> slots(1);
  slots[0].node = parts[0].nodes[0]; // a part always has its root
  slots[0].node.first_process = 0;
  slots[0].node.first_lookup = 0;
  std::vector<std::vector<std::uint32_t>> slot_of(parts.size());
  bool first_part = true;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    auto &nodes = parts[k].nodes;
    auto &map = slot_of[k];
    map.assign(nodes.size(), 0);
    for (std::uint32_t i = 0; i < nodes.size(); ++i) {
      auto &n = nodes[i];
      std::uint32_t s = 0;
      if (i != 0) {
        const auto key = key_of(map[n.parent], n);
        const auto [it, inserted] =
            slots_by_key.try_emplace(key, static_cast<std::uint32_t>(slots.size()));
        s = it->second;
        const auto creator = n.processes.empty() ? 0U : global[k][n.first_process];
        if (inserted) {
          slots.emplace_back();
          slots.back().node = n;
          slots.back().node.first_process = creator;
          slots.back().node.parent = map[n.parent];
        } else {
          auto &have = slots[s].node;
          if (std::tie(creator, n.first_lookup) < std::tie(have.first_process, have.first_lookup)) {
            const auto parent = have.parent;
            have = n;
            have.first_process = creator;
            have.parent = parent;
          }
        }
      } else if (!first_part && slots[0].node.sequential != n.sequential) {
        throw Error(ErrorKind::Analysis, "merging interval parts: the parts used other options");
      }
      map[i] = s;
      for (std::size_t r = 0; r < n.processes.size(); ++r) {
        slots[s].rows.emplace_back(global[k][n.processes[r]], k);
        slots[s].executions.push_back(n.executions[r]);
        slots[s].values.push_back(n.values[r]);
      }
    }
    first_part = false;
  }

  // The serial creation order: by the process that met the node first, then by when.
  std::vector<std::uint32_t> order(slots.size());
  std::iota(order.begin(), order.end(), 0U);
  std::stable_sort(order.begin() + 1, order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const auto &x = slots[a].node;
    const auto &y = slots[b].node;
    return std::tie(x.first_process, x.first_lookup) < std::tie(y.first_process, y.first_lookup);
  });
  std::vector<std::uint32_t> id_of(slots.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) {
    id_of[order[i]] = i;
  }
  tree.nodes.resize(slots.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) {
    auto &slot = slots[order[i]];
    auto &node = tree.nodes[i];
    node = std::move(slot.node);
    node.id = i;
    node.children.clear();
    node.processes.clear();
    node.executions.clear();
    node.values.clear();
    node.exclusive.clear();
    if (i != 0) {
      node.parent = id_of[node.parent];
      tree.nodes[node.parent].children.push_back(i); // parents come first; children by id
    }
    std::vector<std::size_t> rows(slot.rows.size());
    std::iota(rows.begin(), rows.end(), std::size_t{0});
    std::sort(rows.begin(), rows.end(),
              [&](std::size_t a, std::size_t b) { return slot.rows[a] < slot.rows[b]; });
    for (const auto r : rows) {
      node.processes.push_back(slot.rows[r].first);
      node.executions.push_back(slot.executions[r]);
      node.values.push_back(slot.values[r]);
    }
  }

  // Executions are kept by process, each process's in its walk's order.
  for (std::size_t k = 0; k < parts.size(); ++k) {
    for (const auto &x : parts[k].executions) {
      tree.executions.push_back({id_of[slot_of[k][x.node]], global[k][x.process], x.begin, x.end});
    }
  }
  std::stable_sort(
      tree.executions.begin(), tree.executions.end(),
      [](const IntervalExecution &a, const IntervalExecution &b) { return a.process < b.process; });

  bool any = false;
  for (const auto &part : parts) {
    if (!part.processes.empty()) {
      tree.begin = any ? std::min(tree.begin, part.begin) : part.begin;
      tree.end = any ? std::max(tree.end, part.end) : part.end;
      any = true;
    }
    tree.events += part.events;
    tree.issues.intervals_left_open += part.issues.intervals_left_open;
    tree.issues.intervals_cut += part.issues.intervals_cut;
    tree.issues.calls_left_open += part.issues.calls_left_open;
  }
  detail::summarize(tree);
  detail::add_warnings(trace, tree);
  return tree;
}

} // namespace parjava::analysis
