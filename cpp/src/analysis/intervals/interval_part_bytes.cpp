// A part's interval tree as bytes (interval_parts.hpp): what a parallel analysis rank sends to
// the one that merges. Only what the merge reads travels — processes, nodes' identity, rows and
// executions, executions' records, the walk's counts — in native byte order (the ranks of one
// job share a machine type). Summaries and exclusive parts are recomputed after the merge.
#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>

#include "../part_bytes.hpp"
#include "parjava/analysis/intervals/interval_parts.hpp"
#include "parjava/error.hpp"

namespace parjava::analysis {
namespace {

using detail::Reader;
using detail::Writer;

constexpr std::uint32_t kMagic = 0x31504950U; // "PIP1"

} // namespace

std::string interval_part_bytes(const IntervalTree &tree) {
  Writer w;
  w.put(kMagic);
  w.put<std::uint64_t>(tree.processes.size());
  for (const auto &p : tree.processes) {
    w.put(p.location);
    w.put(p.rank);
    w.put(p.thread);
    w.put(p.name);
  }
  w.put<std::uint64_t>(tree.nodes.size());
  for (const auto &n : tree.nodes) {
    w.put(n.parent);
    w.put(n.level);
    w.put(static_cast<std::uint8_t>(n.source));
    w.put(n.name);
    w.put(n.file);
    w.put(n.line);
    w.put(n.user_id);
    w.put(n.region);
    w.put(static_cast<std::uint8_t>(n.sequential ? 1 : 0));
    w.put(n.first_process);
    w.put(n.first_lookup);
    w.put(n.processes);
    w.put(n.executions);
    w.put(n.values);
  }
  w.put(tree.executions);
  w.put(tree.begin);
  w.put(tree.end);
  w.put(tree.events);
  w.put(tree.issues);
  return std::move(w.out);
}

IntervalTree interval_part_from_bytes(const std::string &bytes) {
  Reader r(bytes, "interval part");
  if (bytes.size() < sizeof(kMagic) || r.get<std::uint32_t>() != kMagic) {
    throw Error(ErrorKind::Analysis, "interval part: the received bytes are not an interval part");
  }
  IntervalTree tree;
  const auto processes = r.get<std::uint64_t>();
  for (std::uint64_t i = 0; i < processes; ++i) {
    IntervalProcess p;
    p.location = r.get<std::uint32_t>();
    p.rank = r.get<std::int32_t>();
    p.thread = r.get<std::int32_t>();
    p.name = r.get_string();
    tree.processes.push_back(std::move(p));
  }
  const auto nodes = r.get<std::uint64_t>();
  for (std::uint64_t i = 0; i < nodes; ++i) {
    IntervalNode n;
    n.id = static_cast<std::uint32_t>(i);
    n.parent = r.get<std::uint32_t>();
    n.level = r.get<std::uint32_t>();
    const auto source = r.get<std::uint8_t>();
    n.name = r.get_string();
    n.file = r.get_string();
    n.line = r.get<std::uint32_t>();
    n.user_id = r.get<std::int64_t>();
    n.region = r.get<std::uint32_t>();
    n.sequential = r.get<std::uint8_t>() != 0;
    n.first_process = r.get<std::uint32_t>();
    n.first_lookup = r.get<std::uint64_t>();
    n.processes = r.get_vector<std::uint32_t>();
    n.executions = r.get_vector<std::uint64_t>();
    n.values = r.get_vector<CharacteristicRow>();
    const bool parent_ok = i == 0 ? n.parent == kNoNode : n.parent < i;
    const bool rows_ok = n.processes.size() == n.executions.size() &&
                         n.processes.size() == n.values.size() &&
                         n.first_process < std::max<std::uint64_t>(processes, 1);
    bool processes_ok = true;
    for (const auto p : n.processes) {
      processes_ok = processes_ok && p < processes;
    }
    if (source > static_cast<std::uint8_t>(IntervalSource::Region) || !parent_ok || !rows_ok ||
        !processes_ok) {
      throw Error(ErrorKind::Analysis,
                  "interval part: node " + std::to_string(i) + " of the received part is damaged");
    }
    n.source = static_cast<IntervalSource>(source);
    tree.nodes.push_back(std::move(n));
  }
  tree.executions = r.get_vector<IntervalExecution>();
  for (const auto &x : tree.executions) {
    if (x.node >= nodes || x.process >= processes) {
      throw Error(ErrorKind::Analysis, "interval part: an execution of the received part names "
                                       "no node or process of it");
    }
  }
  tree.begin = r.get<trace::Timestamp>();
  tree.end = r.get<trace::Timestamp>();
  tree.events = r.get<std::uint64_t>();
  tree.issues = r.get<IntervalWalkIssues>();
  if (nodes == 0 || !r.done()) {
    throw Error(ErrorKind::Analysis, "interval part: the received bytes are not one whole part");
  }
  return tree;
}

} // namespace parjava::analysis
