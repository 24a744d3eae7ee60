// Which node each rank runs on. Block: ranks [k * ranks_per_node, (k+1) * ranks_per_node) on node
// k (Open MPI's default --map-by slot / core). Round robin: rank r on node r mod N (Open MPI's
// --map-by node), N the nodes in use. Explicit: rank r on nodes[r], read from a file (a hostfile
// or rankfile written out one rank per line).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace parjava::machine {

enum class PlacementKind : std::uint8_t { Block, RoundRobin, Explicit };

// "block", "round_robin", "explicit" (the JSON `kind`).
std::string_view placement_kind_name(PlacementKind kind);

struct Placement {
  PlacementKind kind = PlacementKind::Block;
  std::vector<int> nodes; // Explicit: the node of rank r
  std::string source;     // Explicit: the file it came from, for messages
  bool operator==(const Placement &) const = default;

  static Placement block() { return {}; }
  static Placement round_robin() { return {PlacementKind::RoundRobin, {}, {}}; }
  static Placement explicit_nodes(std::vector<int> nodes, std::string source = "");
};

// Parses a placement file: one rank per line, in rank order, each line a node index or a node
// name from `node_names` (SimGrid host names; SMPI's hostfile form), optionally followed by
// ":count" for that many consecutive ranks; blank lines and text after '#' are ignored. Throws
// ErrorKind::Machine naming `origin` and the line for an unknown name or a bad count.
Placement parse_placement(std::string_view text, const std::vector<std::string> &node_names,
                          std::string_view origin = "<string>");
Placement read_placement(const std::string &path, const std::vector<std::string> &node_names);

// The node of every rank of a run of `ranks` ranks on `nodes` nodes of `ranks_per_node` ranks.
// A run needing more nodes than `nodes` gets them (nodes of the same kind, added after the
// last), except for explicit placements, which must name a node for every rank (ErrorKind::Usage
// otherwise). `limit` > 0 caps the node count (the topology's capacity): beyond it, Usage.
std::vector<std::int32_t> place_ranks(const Placement &placement, std::int64_t ranks, int nodes,
                                      int ranks_per_node, std::int64_t limit = 0);

} // namespace parjava::machine
