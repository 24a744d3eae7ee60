// Queries on the interval tree.
#include "parjava/analysis/intervals/interval_tree.hpp"

namespace parjava::analysis {

std::string_view interval_source_name(IntervalSource source) {
  switch (source) {
  case IntervalSource::Root:
    return "root";
  case IntervalSource::Marker:
    return "marker";
  case IntervalSource::Pcontrol:
    return "pcontrol";
  case IntervalSource::Region:
    return "region";
  }
  return "unknown";
}

std::uint32_t IntervalTree::child_named(std::uint32_t parent, std::string_view name) const {
  if (parent >= nodes.size()) {
    return kNoNode;
  }
  for (const auto child : nodes[parent].children) {
    if (nodes[child].name == name) {
      return child;
    }
  }
  return kNoNode;
}

std::vector<std::uint32_t> IntervalTree::preorder(int max_level) const {
  std::vector<std::uint32_t> order;
  if (nodes.empty()) {
    return order;
  }
  order.reserve(nodes.size());
  std::vector<std::uint32_t> stack{0};
  while (!stack.empty()) {
    const auto n = stack.back();
    stack.pop_back();
    order.push_back(n);
    const auto &node = nodes[n];
    if (max_level >= 0 && static_cast<int>(node.level) >= max_level) {
      continue;
    }
    for (auto it = node.children.rbegin(); it != node.children.rend(); ++it) {
      stack.push_back(*it);
    }
  }
  return order;
}

} // namespace parjava::analysis
