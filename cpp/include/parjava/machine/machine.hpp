// The target machine: everything the interpreter and the pattern scanner need to know about it
// (ARCHITECTURE §3 "Machine"): nodes and placement, the intra-node and inter-node networks, the
// thread primitive costs and the processor speed ratio. Measured by netbench, read from JSON or
// a DVM Predictor.par, or taken from a preset. Units are SI (seconds, bytes) throughout.
//
// This header is a contract between parts: the interpreter, the scanner and the Python layer
// code against it. Change it only additively.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "parjava/machine/measurement.hpp"
#include "parjava/machine/network.hpp"
#include "parjava/machine/placement.hpp"
#include "parjava/machine/thread_costs.hpp"
#include "parjava/machine/topology.hpp"

namespace parjava::machine {

// Nodes and ranks. Where each rank runs is the machine's Placement (placement.hpp; by default
// blocks: ranks [k * ranks_per_node, (k+1) * ranks_per_node) on node k, Open MPI's default
// --map-by slot / core).
struct NodeLayout {
  int nodes = 1;
  int cores_per_node = 1;
  int ranks_per_node = 1; // may exceed cores_per_node (oversubscription)
  bool operator==(const NodeLayout &) const = default;
};

class Machine {
public:
  // Validates everything and throws parjava::Error(ErrorKind::Machine) naming the field:
  // layout counts must be >= 1; power > 0; `inter_node` may be absent only when nodes == 1.
  Machine(std::string name, NodeLayout layout, Network intra_node,
          std::optional<Network> inter_node, ThreadCosts threads, double power);

  // --- identity and provenance
  [[nodiscard]] const std::string &name() const noexcept { return name_; }
  [[nodiscard]] const std::string &description() const noexcept { return description_; }
  [[nodiscard]] const std::vector<std::string> &sources() const noexcept { return sources_; }
  [[nodiscard]] const std::optional<Measurement> &measurement() const noexcept {
    return measurement_;
  }
  void set_name(std::string name) { name_ = std::move(name); }
  void set_description(std::string description) { description_ = std::move(description); }
  void set_sources(std::vector<std::string> sources) { sources_ = std::move(sources); }
  void set_measurement(std::optional<Measurement> measurement) {
    measurement_ = std::move(measurement);
  }

  // --- layout and placement
  [[nodiscard]] const NodeLayout &layout() const noexcept { return layout_; }
  [[nodiscard]] int nodes() const noexcept { return layout_.nodes; }
  [[nodiscard]] int cores_per_node() const noexcept { return layout_.cores_per_node; }
  [[nodiscard]] int ranks_per_node() const noexcept { return layout_.ranks_per_node; }
  // nodes * ranks_per_node: the number of ranks the machine holds.
  [[nodiscard]] std::int64_t max_ranks() const noexcept;
  // The node a rank runs on (by the placement). Throws ErrorKind::Usage for a rank outside
  // [0, max_ranks()), saying how to get a machine with more nodes (with_layout), or beyond an
  // explicit placement.
  [[nodiscard]] int node_of(std::int64_t rank) const;
  [[nodiscard]] bool same_node(std::int64_t rank_a, std::int64_t rank_b) const;
  [[nodiscard]] const Placement &placement() const noexcept { return placement_; }
  // Names of the nodes (SimGrid host names), empty when the nodes are only numbered.
  [[nodiscard]] const std::vector<std::string> &node_names() const noexcept { return node_names_; }
  void set_node_names(std::vector<std::string> names);

  // --- the wiring between nodes (topology.hpp): a crossbar unless given
  [[nodiscard]] const Topology &topology() const noexcept { return topology_; }
  // Whether a node's injection and ejection bandwidth is shared by the messages crossing it
  // (the ranks of a node share its NIC). On unless a machine says why not (docs/networks.md).
  [[nodiscard]] bool endpoint_contention() const noexcept { return endpoint_contention_; }

  // --- networks
  [[nodiscard]] const Network &intra_node() const noexcept { return intra_node_; }
  [[nodiscard]] bool has_inter_node() const noexcept { return inter_node_.has_value(); }
  // Throws ErrorKind::Machine when the machine has one node and no inter-node network.
  [[nodiscard]] const Network &inter_node() const;
  [[nodiscard]] const Network &network(bool intra_node) const;

  // One-way time of a message of `bytes` over the intra-node or inter-node network
  // (Network::p2p_time documents each model's formula).
  [[nodiscard]] double p2p_time(std::uint64_t bytes, bool intra_node) const;
  // The same between two ranks, choosing the network by placement.
  [[nodiscard]] double p2p_time_between(std::uint64_t bytes, std::int64_t rank_a,
                                        std::int64_t rank_b) const;
  [[nodiscard]] std::uint64_t eager_limit(bool intra_node) const;

  // --- threads and processor
  [[nodiscard]] const ThreadCosts &threads() const noexcept { return threads_; }
  // DVM's `power` (seed 002 §1.3.2): performance of the processor the times were measured on
  // divided by the performance of the target processor. The seed leaves open how it is applied
  // (§6 item 4); parjava decides: a time measured on the measuring processor takes
  // `seconds * power` on the target (power 2: the target is twice as slow).
  [[nodiscard]] double power() const noexcept { return power_; }
  [[nodiscard]] double scale_compute_time(double measured_seconds) const noexcept {
    return measured_seconds * power_;
  }

  // --- variations for what-if studies (each returns a validated copy)
  [[nodiscard]] Machine with_layout(const NodeLayout &layout) const;
  [[nodiscard]] Machine with_networks(const Network &intra_node,
                                      const std::optional<Network> &inter_node) const;
  [[nodiscard]] Machine with_threads(const ThreadCosts &threads) const;
  [[nodiscard]] Machine with_power(double power) const;
  // Throws ErrorKind::Machine when the topology connects fewer nodes than the layout has, or
  // when an inter-node LogGP network would have to share links (LogGP's g and G model the NIC;
  // link sharing needs the Hockney or table form).
  [[nodiscard]] Machine with_topology(const Topology &topology) const;
  [[nodiscard]] Machine with_placement(const Placement &placement) const;
  [[nodiscard]] Machine with_endpoint_contention(bool on) const;

  bool operator==(const Machine &) const = default;

private:
  std::string name_;
  std::string description_;
  std::vector<std::string> sources_;
  NodeLayout layout_;
  Network intra_node_;
  std::optional<Network> inter_node_;
  ThreadCosts threads_;
  double power_ = 1.0;
  std::optional<Measurement> measurement_;
  Topology topology_;
  Placement placement_;
  bool endpoint_contention_ = true;
  std::vector<std::string> node_names_;
  void validate_wiring() const;
};

} // namespace parjava::machine
