// The links of a topology (topology.hpp) built for a number of nodes, and the route between two
// nodes. Routes are computed on demand from the topology's arithmetic (no per-pair table, so a
// fat tree of 2^20 nodes costs a few arrays of links), except for explicit routes.
//
// Routing (docs/networks.md "Topologies"):
//  * star: the source's limiter and private link (up), the backbone, the destination's private
//    link (down) and limiter — SimGrid's flat <cluster>;
//  * fat tree: up to the nearest common ancestor, the parent chosen by destination mod k
//    (D-mod-k), down by the destination's label, parallel cables chosen by the source — the
//    links SimGrid 3.32's FatTreeZone picks;
//  * dragonfly, minimal: the node's router; a green hop to the router of the chassis whose
//    global link leads to the destination group, a black hop to chassis 0, the blue (global)
//    link, then green and black hops inside the destination group; Valiant: minimally to a
//    pseudo-random intermediate group first (chosen from the source, destination and `salt`);
//  * torus: dimension-order routing, dimension 0 first, each dimension the short way round
//    (SimGrid 3.32's TorusZone, including its choice when both ways are equally long).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "parjava/machine/topology.hpp"

namespace parjava::machine {

class Fabric {
public:
  // `nodes`: how many nodes are in use (at most the topology's capacity, else ErrorKind::Usage);
  // `default_bandwidth`: bytes/s for links whose bandwidth is 0 (the inter-node network's).
  Fabric(const Topology &topology, std::int64_t nodes, double default_bandwidth);

  [[nodiscard]] const Topology &topology() const noexcept { return topology_; }
  [[nodiscard]] std::int64_t nodes() const noexcept { return nodes_; }
  [[nodiscard]] std::size_t link_count() const noexcept { return bandwidth_.size(); }
  [[nodiscard]] double bandwidth(std::uint32_t link) const { return bandwidth_[link]; }
  [[nodiscard]] double latency(std::uint32_t link) const { return latency_[link]; }
  // Fatpipe links bound every flow by their bandwidth but are not shared.
  [[nodiscard]] bool fatpipe(std::uint32_t link) const { return (flags_[link] & kFatpipe) != 0; }
  // A node's own links (a star's private links and limiters, a fat tree's node cables, a
  // dragonfly's node-router links): its NIC. Without endpoint contention they are not shared.
  [[nodiscard]] bool host_link(std::uint32_t link) const { return (flags_[link] & kHost) != 0; }
  // A readable name ("fat tree level 1 switch 3 -> parent 0 up", "blue 0-2").
  [[nodiscard]] std::string link_name(std::uint32_t link) const;

  // Appends the links from node a to node b (a != b), in order. Throws ErrorKind::Machine for an
  // explicit topology without a route between them.
  void route(std::int32_t a, std::int32_t b, std::uint64_t salt,
             std::vector<std::uint32_t> &out) const;
  // Sum of the latencies of route(a, b) in seconds (Valiant with salt 0).
  [[nodiscard]] double route_latency(std::int32_t a, std::int32_t b) const;
  // Number of links of route(a, b).
  [[nodiscard]] std::size_t hops(std::int32_t a, std::int32_t b) const;

private:
  static constexpr std::uint8_t kFatpipe = 1;
  static constexpr std::uint8_t kHost = 2;
  std::uint32_t add_links(std::size_t count, double bandwidth, double latency, LinkSharing sharing,
                          bool host);
  void build_star();
  void build_fat_tree();
  void build_dragonfly();
  void build_torus();
  void build_routes();
  void route_fat_tree(std::int32_t a, std::int32_t b, std::vector<std::uint32_t> &out) const;
  void route_routers(std::int64_t from, std::int64_t to, std::vector<std::uint32_t> &out) const;
  void route_torus(std::int32_t a, std::int32_t b, std::vector<std::uint32_t> &out) const;

  Topology topology_;
  std::int64_t nodes_ = 0;
  double default_bandwidth_ = 0.0;
  std::uint32_t dirs_ = 1; // 2 for split-duplex links (an id per direction)
  std::vector<double> bandwidth_;
  std::vector<double> latency_;
  std::vector<std::uint8_t> flags_;
  // star
  std::uint32_t private_base_ = 0, limiter_base_ = 0, backbone_ = 0;
  bool limiters_ = false;
  // fat tree (PGFT): per level, the number of elements, the first link id, and the digit
  // radices and strides of the labels
  std::vector<std::int64_t> level_size_;
  std::vector<std::uint32_t> level_base_;
  std::vector<std::vector<std::int64_t>> stride_; // stride_[level][digit]
  std::vector<std::int64_t> up_product_;          // prod(up[0..level)) per level
  // dragonfly
  std::uint32_t local_base_ = 0, green_base_ = 0, black_base_ = 0, blue_base_ = 0;
  // explicit routes: (a << 32 | b) -> [offset, offset + length) in route_links_
  std::unordered_map<std::uint64_t, std::pair<std::uint32_t, std::uint32_t>> route_index_;
  std::vector<std::uint32_t> route_links_;
  std::vector<std::uint32_t> named_link_id_; // first id of each named link
};

} // namespace parjava::machine
