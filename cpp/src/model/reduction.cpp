// Reducibility analysis and the reduction transformation (notes 000 §3.4, §3.7.2).
#include "parjava/model/reduction.hpp"

#include <algorithm>
#include <set>
#include <string>

#include "parjava/error.hpp"

namespace parjava::model {

namespace {

std::vector<NodeIndex> subtree(const Model &m, NodeIndex root) {
  std::vector<NodeIndex> out{root};
  for (std::size_t i = 0; i < out.size(); ++i) {
    for (NodeIndex c : m.nodes[out[i]].children) {
      out.push_back(c);
    }
  }
  return out;
}

void add_names(const Expression &e, std::set<std::string> &out) {
  for (auto &n : e.names()) {
    out.insert(n);
  }
}

// Names an individual node reads and writes.
void node_reads(const Node &n, std::set<std::string> &out) {
  add_names(n.cond, out);
  add_names(n.value, out);
  add_names(n.tasks, out);
  if (n.time.kind == TimeSpec::Kind::Expression) {
    add_names(n.time.expr, out);
  }
  if (n.cond_time.kind == TimeSpec::Kind::Expression) {
    add_names(n.cond_time.expr, out);
  }
  for (const auto *list : {&n.init, &n.update, &n.assign}) {
    for (const auto &a : *list) {
      add_names(a.value, out);
    }
  }
  for (const auto &a : n.args) {
    add_names(a, out);
  }
  for (const auto &a : n.op_args) {
    add_names(a.expr, out);
  }
}

void node_writes(const Node &n, std::set<std::string> &out) {
  for (const auto *list : {&n.init, &n.update, &n.assign}) {
    for (const auto &a : *list) {
      out.insert(a.variable);
    }
  }
  for (const auto &a : n.op_args) {
    if (a.kind == ArgKind::Variable) {
      out.insert(a.text);
    }
  }
}

bool is_run_constant(const Model &m, const std::string &name) {
  return m.parameter(name) != nullptr || name == "size" || name == "nthreads" ||
         name == "ANY_SOURCE" || name == "ANY_TAG" || name == "PROC_NULL";
}

// The first jump inside the subtree that leaves it (break/continue to an outside target, or a
// return), or kNoNode.
NodeIndex leaving_jump(const Model &m, const std::vector<NodeIndex> &nodes) {
  const std::set<NodeIndex> inside(nodes.begin(), nodes.end());
  for (NodeIndex n : nodes) {
    const Node &node = m.nodes[n];
    if (node.kind == NodeKind::Return) {
      return n;
    }
    if ((node.kind == NodeKind::Break || node.kind == NodeKind::Continue) &&
        !inside.contains(m.index_of(node.target))) {
      return n;
    }
  }
  return kNoNode;
}

} // namespace

Reducibility reducibility(const Model &m, NodeIndex root) {
  const std::vector<NodeIndex> nodes = subtree(m, root);
  for (NodeIndex n : nodes) {
    const Node &node = m.nodes[n];
    if (node.kind == NodeKind::Communication) {
      return {false, m.describe(n) + " communicates"};
    }
    if (node.kind == NodeKind::UserCall) {
      return {false, m.describe(n) + " calls function '" + node.callee + "'"};
    }
    if (node.kind == NodeKind::TaskGroup) {
      return {false, m.describe(n) + " is a task group"};
    }
  }
  if (const NodeIndex j = leaving_jump(m, nodes); j != kNoNode) {
    return {false, m.describe(j) + " leaves the fragment"};
  }
  std::set<std::string> reads;
  std::set<std::string> writes;
  for (NodeIndex n : nodes) {
    node_reads(m.nodes[n], reads);
    node_writes(m.nodes[n], writes);
  }
  for (const auto &name : reads) {
    if (is_run_constant(m, name) || writes.contains(name)) {
      continue;
    }
    return {false, "its time depends on '" + name + "', which is set outside it"};
  }
  return {true, ""};
}

std::vector<NodeId> mark_simple(Model &m) {
  for (NodeIndex n = 0; n < m.nodes.size(); ++n) {
    m.nodes[n].simple = reducibility(m, n).simple;
  }
  std::vector<NodeId> maximal;
  for (NodeIndex n = 0; n < m.nodes.size(); ++n) {
    const Node &node = m.nodes[n];
    if (!node.simple || is_leaf(node.kind)) {
      continue;
    }
    const NodeIndex p = m.parent(n);
    if (p == kNoNode || !m.nodes[p].simple) {
      maximal.push_back(node.id);
    }
  }
  return maximal;
}

void reduce(Model &m, NodeId id, const TimeSpec &time, std::vector<Assignment> assign) {
  m.validate();
  const NodeIndex root = m.index_of(id);
  const std::vector<NodeIndex> nodes = subtree(m, root);
  if (const NodeIndex j = leaving_jump(m, nodes); j != kNoNode) {
    throw Error(ErrorKind::Model, "cannot reduce " + m.describe(root) + ": " + m.describe(j) +
                                      " leaves it, so its time is not one number");
  }
  const std::set<NodeIndex> inside(nodes.begin(), nodes.end());
  std::set<std::string> writes;
  for (NodeIndex n : nodes) {
    node_writes(m.nodes[n], writes);
  }
  // Variables written inside and read outside (in the same function, or anywhere for
  // globals) are control variables the reduced block must still define.
  std::set<std::string> read_outside;
  const std::size_t function = m.function_of(root);
  for (NodeIndex n = 0; n < m.nodes.size(); ++n) {
    if (inside.contains(n)) {
      continue;
    }
    std::set<std::string> reads;
    node_reads(m.nodes[n], reads);
    for (const auto &name : reads) {
      if (!writes.contains(name)) {
        continue;
      }
      const bool global = std::any_of(m.globals.begin(), m.globals.end(),
                                      [&](const GlobalVariable &g) { return g.name == name; });
      if (global || m.function_of(n) == function) {
        read_outside.insert(name);
      }
    }
  }
  for (const auto &name : read_outside) {
    const bool given = std::any_of(assign.begin(), assign.end(),
                                   [&](const Assignment &a) { return a.variable == name; });
    if (!given) {
      std::string message = "cannot reduce " + m.describe(root);
      message += ": it sets '" + name + "', which is read after it; give its value in the ";
      message += "reduced block's assignments (assign=[(\"" + name + "\", ...)])";
      throw Error(ErrorKind::Model, message);
    }
  }
  // A rewritten bound inside now lives in the block that stands for its loop.
  for (RewrittenBound &b : m.rewritten_bounds) {
    if (m.has_node(b.node) && inside.contains(m.index_of(b.node))) {
      b.node = id;
    }
  }
  // Rewrite the root in place, then drop its descendants and renumber the arena.
  Node &r = m.nodes[root];
  Node reduced;
  reduced.id = r.id;
  reduced.kind = NodeKind::Reduced;
  reduced.source = r.source;
  reduced.label = r.label.empty() ? "reduced " + std::string(node_kind_name(r.kind)) : r.label;
  reduced.time = time;
  reduced.assign = std::move(assign);
  reduced.replaces = r.id;
  reduced.inputs = r.inputs;
  reduced.outputs = r.outputs;
  reduced.controls = r.controls;
  reduced.simple = true;
  r = std::move(reduced);
  std::vector<NodeIndex> remap(m.nodes.size(), kNoNode);
  std::vector<Node> kept;
  kept.reserve(m.nodes.size() - nodes.size() + 1);
  for (NodeIndex n = 0; n < m.nodes.size(); ++n) {
    if (n != root && inside.contains(n)) {
      continue;
    }
    remap[n] = static_cast<NodeIndex>(kept.size());
    kept.push_back(std::move(m.nodes[n]));
  }
  for (auto &node : kept) {
    for (auto &c : node.children) {
      c = remap[c];
    }
  }
  for (auto &f : m.functions) {
    f.body = remap[f.body];
  }
  m.nodes = std::move(kept);
  m.validate();
}

} // namespace parjava::model
