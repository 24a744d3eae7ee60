#include "parjava/machine/machine.hpp"

#include "parjava/error.hpp"
#include "validation.hpp"

namespace parjava::machine {

namespace {

void validate_layout(const NodeLayout &layout) {
  const auto require_count = [](int value, std::string_view field) {
    if (value < 1) {
      detail::fail(field, "must be >= 1 (got " + std::to_string(value) + ")");
    }
  };
  require_count(layout.nodes, "nodes");
  require_count(layout.cores_per_node, "cores_per_node");
  require_count(layout.ranks_per_node, "ranks_per_node");
}

} // namespace

Machine::Machine(std::string name, NodeLayout layout, Network intra_node,
                 std::optional<Network> inter_node, ThreadCosts threads, double power)
    : name_(std::move(name)), layout_(layout), intra_node_(std::move(intra_node)),
      inter_node_(std::move(inter_node)), threads_(threads), power_(power) {
  validate_layout(layout_);
  if (!inter_node_ && layout_.nodes > 1) {
    detail::fail("inter_node", "is required when the machine has more than one node (nodes = " +
                                   std::to_string(layout_.nodes) +
                                   "); give a network or set nodes to 1");
  }
  threads_.validate("threads");
  detail::require_positive(power_, "power");
}

std::int64_t Machine::max_ranks() const noexcept {
  return static_cast<std::int64_t>(layout_.nodes) * layout_.ranks_per_node;
}

int Machine::node_of(std::int64_t rank) const {
  if (rank < 0 || rank >= max_ranks()) {
    throw Error(ErrorKind::Usage,
                "rank " + std::to_string(rank) + " is outside machine \"" + name_ +
                    "\", which has " + std::to_string(layout_.nodes) + " node(s) x " +
                    std::to_string(layout_.ranks_per_node) +
                    " rank(s) per node = " + std::to_string(max_ranks()) +
                    " ranks; use a machine with more nodes (Machine.with_layout)");
  }
  switch (placement_.kind) {
  case PlacementKind::Block:
    break;
  case PlacementKind::RoundRobin:
    return static_cast<int>(rank % layout_.nodes);
  case PlacementKind::Explicit:
    if (rank >= static_cast<std::int64_t>(placement_.nodes.size())) {
      throw Error(ErrorKind::Usage,
                  "rank " + std::to_string(rank) + " is beyond the placement" +
                      (placement_.source.empty() ? std::string() : " from " + placement_.source) +
                      ", which places " + std::to_string(placement_.nodes.size()) + " ranks");
    }
    return placement_.nodes[static_cast<std::size_t>(rank)];
  }
  return static_cast<int>(rank / layout_.ranks_per_node);
}

void Machine::set_node_names(std::vector<std::string> names) {
  if (!names.empty() && static_cast<int>(names.size()) != layout_.nodes) {
    detail::fail("node_names", "names " + std::to_string(names.size()) +
                                   " nodes, but the machine has " + std::to_string(layout_.nodes));
  }
  node_names_ = std::move(names);
}

void Machine::validate_wiring() const {
  topology_.validate("topology");
  const std::int64_t capacity = topology_.capacity();
  if (capacity > 0 && layout_.nodes > capacity) {
    detail::fail("nodes", std::to_string(layout_.nodes) + " nodes, but the topology (" +
                              topology_.describe() + ") connects " + std::to_string(capacity));
  }
  if (topology_.kind != TopologyKind::Crossbar && inter_node_ &&
      inter_node_->kind() == NetworkKind::LogGP) {
    detail::fail("topology",
                 "link sharing needs a Hockney or table inter-node network: LogGP's g and G "
                 "already model the NIC and its L has no per-link part (use fitted(\"hockney\") "
                 "or keep the crossbar)");
  }
  if (placement_.kind == PlacementKind::Explicit) {
    for (std::size_t r = 0; r < placement_.nodes.size(); ++r) {
      if (placement_.nodes[r] >= layout_.nodes) {
        detail::fail(
            "placement.nodes[" + std::to_string(r) + "]",
            "node " + std::to_string(placement_.nodes[r]) + " of a machine with " +
                std::to_string(layout_.nodes) + " nodes" +
                (placement_.source.empty() ? std::string() : " (" + placement_.source + ")"));
      }
    }
  }
}

bool Machine::same_node(std::int64_t rank_a, std::int64_t rank_b) const {
  return node_of(rank_a) == node_of(rank_b);
}

const Network &Machine::inter_node() const {
  if (!inter_node_) {
    throw Error(ErrorKind::Machine,
                "machine \"" + name_ +
                    "\" has a single node and no inter-node network; give one with "
                    "Machine.with_networks (e.g. from Machine.preset(\"infiniband-edr\")) before "
                    "placing ranks on several nodes");
  }
  return *inter_node_;
}

const Network &Machine::network(bool intra_node) const {
  return intra_node ? intra_node_ : inter_node();
}

double Machine::p2p_time(std::uint64_t bytes, bool intra_node) const {
  return network(intra_node).p2p_time(bytes);
}

double Machine::p2p_time_between(std::uint64_t bytes, std::int64_t rank_a,
                                 std::int64_t rank_b) const {
  return p2p_time(bytes, same_node(rank_a, rank_b));
}

std::uint64_t Machine::eager_limit(bool intra_node) const {
  return network(intra_node).eager_limit();
}

Machine Machine::with_layout(const NodeLayout &layout) const {
  Machine copy = *this;
  copy.layout_ = layout;
  validate_layout(layout);
  if (!copy.inter_node_ && layout.nodes > 1) {
    detail::fail("inter_node",
                 "machine \"" + name_ + "\" has no inter-node network, so it cannot have " +
                     std::to_string(layout.nodes) + " nodes; add one with with_networks first");
  }
  if (static_cast<int>(copy.node_names_.size()) != layout.nodes) {
    copy.node_names_.clear();
  }
  copy.validate_wiring();
  return copy;
}

Machine Machine::with_networks(const Network &intra_node,
                               const std::optional<Network> &inter_node) const {
  Machine copy(name_, layout_, intra_node, inter_node, threads_, power_);
  copy.description_ = description_;
  copy.sources_ = sources_;
  copy.measurement_ = measurement_;
  copy.topology_ = topology_;
  copy.placement_ = placement_;
  copy.endpoint_contention_ = endpoint_contention_;
  copy.node_names_ = node_names_;
  copy.validate_wiring();
  return copy;
}

Machine Machine::with_threads(const ThreadCosts &threads) const {
  threads.validate("threads");
  Machine copy = *this;
  copy.threads_ = threads;
  return copy;
}

Machine Machine::with_topology(const Topology &topology) const {
  Machine copy = *this;
  copy.topology_ = topology;
  copy.validate_wiring();
  return copy;
}

Machine Machine::with_placement(const Placement &placement) const {
  Machine copy = *this;
  copy.placement_ = placement;
  copy.validate_wiring();
  return copy;
}

Machine Machine::with_endpoint_contention(bool on) const {
  Machine copy = *this;
  copy.endpoint_contention_ = on;
  return copy;
}

Machine Machine::with_power(double power) const {
  detail::require_positive(power, "power");
  Machine copy = *this;
  copy.power_ = power;
  return copy;
}

} // namespace parjava::machine
