// How the nodes of a machine are wired: a flat crossbar (every node reaches every other at its
// NIC's rate; only the NICs are shared), a flat cluster (SimGrid's <cluster>: private links and
// an optional backbone), a fat tree, a dragonfly, a torus, or explicit links and routes. Every
// topology but the crossbar has links that the messages crossing them share max-min fairly (the
// flow-level model of SimGrid: Velho, Schnorr, Casanova, Legrand, "On the validity of flow-level
// TCP network models for grid and cloud simulations", ACM TOMACS 23(4), 2013). The links, the
// routes and the sharing are computed by machine::Fabric (fabric.hpp); docs/networks.md describes
// each topology with its routing.
//
// Units are SI: bytes per second, seconds.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parjava::machine {

enum class TopologyKind : std::uint8_t { Crossbar, Star, FatTree, Dragonfly, Torus, Routes };

// How a link is shared (SimGrid's sharing_policy): Shared, one capacity for both directions;
// SplitDuplex, one capacity per direction; Fatpipe, every flow gets the whole capacity.
enum class LinkSharing : std::uint8_t { Shared, SplitDuplex, Fatpipe };

// Dragonfly routing: Minimal (the links SimGrid 3.32's DragonflyZone picks) or Valiant (to a
// pseudo-randomly chosen intermediate group first, then minimally to the destination).
enum class DragonflyRouting : std::uint8_t { Minimal, Valiant };

// "crossbar", "star", "fat_tree", "dragonfly", "torus", "routes" (the JSON `kind`).
std::string_view topology_kind_name(TopologyKind kind);
// "shared", "splitduplex", "fatpipe" (SimGrid's names, lower case).
std::string_view link_sharing_name(LinkSharing sharing);
std::string_view dragonfly_routing_name(DragonflyRouting routing);

struct LinkParameters {
  double bandwidth = 0.0; // bytes/s, > 0
  double latency = 0.0;   // s, >= 0
  LinkSharing sharing = LinkSharing::SplitDuplex;
  bool operator==(const LinkParameters &) const = default;
};

// SimGrid's piecewise-constant factor of the message size ("65472:0.94;15424:0.70;0:0.81"): the
// factor of a size is the one of the largest threshold <= size; below every threshold, 1.
struct PiecewiseFactor {
  std::vector<std::pair<std::uint64_t, double>> points; // ascending thresholds
  [[nodiscard]] double at(std::uint64_t bytes) const noexcept;
  [[nodiscard]] bool empty() const noexcept { return points.empty(); }
  bool operator==(const PiecewiseFactor &) const = default;
};
// Parses SimGrid's form (entries in any order, separated by ';'); throws ErrorKind::Machine
// naming `field` for a malformed entry, a negative or non-finite factor, or a repeated size.
PiecewiseFactor parse_piecewise_factor(std::string_view text, std::string_view field);
// Back to SimGrid's form, largest threshold first ("" for an empty factor).
std::string format_piecewise_factor(const PiecewiseFactor &factor);

// Corrections of the flow-level model, as SimGrid's CM02/SMPI network model applies them
// (src/kernel/resource/models/network_cm02.cpp, v3.32): a message of n bytes on a route of
// latency L and links l waits latency_factor(n) * L, then progresses at bandwidth_factor(n)
// times its max-min share; its share is bounded by tcp_gamma / (2 L) when tcp_gamma > 0; with
// weight_s > 0 flows share a bottleneck in inverse proportion to their penalty L + sum over the
// route of weight_s / bandwidth(l) (RTT unfairness); with crosstraffic every flow also uses 5 %
// of its rate on the reverse route (the acknowledgements). The defaults change nothing, but
// for min_bytes: messages of at most that many bytes are not flows (their transfer is a sliver
// of their latency; they still queue on the NICs and pay the route's latency), which keeps
// floods of tiny messages (barriers, 8-byte all-to-alls) at the crossbar's speed.
struct FlowParameters {
  PiecewiseFactor latency_factor;
  PiecewiseFactor bandwidth_factor;
  double tcp_gamma = 0.0; // bytes
  double weight_s = 0.0;  // bytes
  bool crosstraffic = false;
  std::uint64_t min_bytes = 1024;
  bool operator==(const FlowParameters &) const = default;
};

// A fat tree in the parallel generalized fat tree notation (Zahavi's PGFT, SimGrid's FAT_TREE
// topo_parameters "levels;down;up;parallel"): at level i (0 = the nodes), `down[i]` children per
// switch of level i+1, `up[i]` parents per element of level i, `parallel[i]` cables between a
// child and each of its parents. Capacity: the product of `down`.
struct FatTreeShape {
  std::vector<int> down;
  std::vector<int> up;
  std::vector<int> parallel;
  bool operator==(const FatTreeShape &) const = default;
};

// SimGrid's DRAGONFLY topo_parameters "groups,blue;chassis,black;routers,green;nodes": groups of
// chassis of routers, each router serving `nodes` nodes; routers of a chassis all-to-all (green,
// `router_links` cables each), routers of the same slot in the chassis of a group all-to-all
// (black, `chassis_links`), one global (blue) link of `group_links` cables between every two
// groups. Capacity: groups * chassis * routers * nodes.
struct DragonflyShape {
  int groups = 1;
  int group_links = 1;
  int chassis = 1;
  int chassis_links = 1;
  int routers = 1;
  int router_links = 1;
  int nodes = 1;
  bool operator==(const DragonflyShape &) const = default;
};

// One named link of an explicit topology (SimGrid <link>).
struct NamedLink {
  std::string name;
  LinkParameters parameters;
  bool operator==(const NamedLink &) const = default;
};

// A route between two nodes of an explicit topology (SimGrid <route>): the links in order, each
// crossed upwards (true) or downwards (false; matters for split-duplex links only).
struct ExplicitRoute {
  int source = 0;
  int destination = 0;
  std::vector<std::pair<int, bool>> links; // (index into Topology::links, up)
  bool operator==(const ExplicitRoute &) const = default;
};

struct Topology {
  TopologyKind kind = TopologyKind::Crossbar;
  // Star, FatTree, Dragonfly, Torus: every link (a star's private links), SimGrid's cluster
  // bw / lat / sharing_policy. A bandwidth of 0 means "the inter-node network's bandwidth".
  LinkParameters link{};
  // Star: the backbone all inter-node traffic crosses (bb_bw / bb_lat / bb_sharing_policy);
  // absent: none (SimGrid creates one only when bb_bw or bb_lat is given).
  bool has_backbone = false;
  LinkParameters backbone{};
  // Star, FatTree, Dragonfly, Torus: a limiter link of this bandwidth per node (SimGrid's
  // limiter_link, shared by everything the node sends and receives); 0: none.
  double limiter = 0.0;
  FatTreeShape fat_tree{};
  DragonflyShape dragonfly{};
  DragonflyRouting routing = DragonflyRouting::Minimal;
  std::vector<int> torus; // dimension sizes, dimension 0 varying fastest
  // Routes: the links and one route per ordered pair of nodes that exchange messages.
  int route_nodes = 0;
  std::vector<NamedLink> links;
  std::vector<ExplicitRoute> routes;
  FlowParameters flow{};
  // How the fat tree was asked for, for describe() ("3-ary 2-level, taper 2").
  std::string origin;

  bool operator==(const Topology &) const = default;

  // --- constructors that validate (ErrorKind::Machine naming the field)
  static Topology crossbar();
  static Topology star(const LinkParameters &private_links,
                       const LinkParameters *backbone = nullptr);
  static Topology fat_tree_topology(const FatTreeShape &shape, const LinkParameters &link);
  // A two-or-more-level fat tree of `radix`-port switches: every switch below the top uses
  // radix/2 ports down and radix/2 / taper up (taper 2: half the uplinks, a 2:1 oversubscribed
  // tree), the top level uses all its ports down. Capacity (radix/2)^(levels-1) * radix.
  static Topology k_ary_fat_tree(int radix, int levels, double taper, const LinkParameters &link);
  static Topology dragonfly_topology(const DragonflyShape &shape, DragonflyRouting routing,
                                     const LinkParameters &link);
  static Topology torus_topology(std::vector<int> dimensions, const LinkParameters &link);

  // The most nodes it connects (0: unlimited, the crossbar and the star).
  [[nodiscard]] std::int64_t capacity() const;
  // Throws ErrorKind::Machine naming the first invalid field ("topology.fat_tree.down[1]").
  void validate(std::string_view field = "topology") const;
  // One line, e.g. "fat tree 2;18,36;1,18;1,1 (648 nodes), links 12.4 GB/s 0 s splitduplex".
  [[nodiscard]] std::string describe() const;
  // SimGrid's topo_parameters form of a fat tree, dragonfly or torus ("" otherwise).
  [[nodiscard]] std::string parameters_text() const;
};

// Parses SimGrid's topo_parameters for `kind` (FatTree, Dragonfly or Torus) into `topology`;
// throws ErrorKind::Machine naming `field` and what was expected.
void parse_topology_parameters(Topology &topology, std::string_view text, std::string_view field);

} // namespace parjava::machine
