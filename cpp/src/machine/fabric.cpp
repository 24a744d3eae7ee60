#include "parjava/machine/fabric.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include "parjava/error.hpp"

namespace parjava::machine {

Fabric::Fabric(const Topology &topology, std::int64_t nodes, double default_bandwidth)
    : topology_(topology), nodes_(nodes), default_bandwidth_(default_bandwidth) {
  topology_.validate();
  const std::int64_t capacity = topology_.capacity();
  if (capacity > 0 && nodes > capacity) {
    throw Error(ErrorKind::Usage, "the run needs " + std::to_string(nodes) +
                                      " nodes, but the topology (" + topology_.describe() +
                                      ") connects " + std::to_string(capacity) +
                                      "; use more ranks per node or a larger topology");
  }
  if (topology_.kind != TopologyKind::Routes && topology_.kind != TopologyKind::Crossbar) {
    dirs_ = topology_.link.sharing == LinkSharing::SplitDuplex ? 2 : 1;
  }
  switch (topology_.kind) {
  case TopologyKind::Crossbar:
    break;
  case TopologyKind::Star:
    build_star();
    break;
  case TopologyKind::FatTree:
    build_fat_tree();
    break;
  case TopologyKind::Dragonfly:
    build_dragonfly();
    break;
  case TopologyKind::Torus:
    build_torus();
    break;
  case TopologyKind::Routes:
    build_routes();
    break;
  }
}

std::uint32_t Fabric::add_links(std::size_t count, double bandwidth, double latency,
                                LinkSharing sharing, bool host) {
  const std::size_t first = bandwidth_.size();
  if (first + count >= std::numeric_limits<std::uint32_t>::max()) {
    throw Error(ErrorKind::Usage, "the topology has more than 2^32 links");
  }
  const double bw = bandwidth > 0.0 ? bandwidth : default_bandwidth_;
  const std::uint8_t flags = static_cast<std::uint8_t>(
      (sharing == LinkSharing::Fatpipe ? kFatpipe : 0) | (host ? kHost : 0));
  bandwidth_.insert(bandwidth_.end(), count, bw);
  latency_.insert(latency_.end(), count, latency);
  flags_.insert(flags_.end(), count, flags);
  return static_cast<std::uint32_t>(first);
}

// ---- star (SimGrid's flat cluster) ---------------------------------------------------------

void Fabric::build_star() {
  const LinkParameters &l = topology_.link;
  private_base_ =
      add_links(static_cast<std::size_t>(nodes_) * dirs_, l.bandwidth, l.latency, l.sharing, true);
  if (topology_.limiter > 0.0) {
    limiters_ = true;
    limiter_base_ = add_links(static_cast<std::size_t>(nodes_), topology_.limiter, 0.0,
                              LinkSharing::Shared, true);
  }
  if (topology_.has_backbone) {
    const LinkParameters &b = topology_.backbone;
    backbone_ = add_links(1, b.bandwidth, b.latency, b.sharing, false);
  }
}

// ---- fat tree (PGFT) -----------------------------------------------------------------------
//
// Elements of level l (0: nodes) carry labels of h digits; digit p ranges over up[p] when
// p < l and over down[p] otherwise, digit 0 varying fastest, and an element's position in its
// level is its label read as that mixed-radix number. A parent of an element of level l differs
// from it in digit l only; the cable j between an element and its parent of digit u is link
// (l, position, u, j). This is SimGrid 3.32's FatTreeZone labelling.

void Fabric::build_fat_tree() {
  const FatTreeShape &s = topology_.fat_tree;
  const std::size_t h = s.down.size();
  level_size_.assign(h + 1, 1);
  stride_.assign(h + 1, std::vector<std::int64_t>(h + 1, 1));
  up_product_.assign(h + 1, 1);
  for (std::size_t level = 0; level <= h; ++level) {
    for (std::size_t p = 0; p < h; ++p) {
      const std::int64_t radix = p < level ? s.up[p] : s.down[p];
      stride_[level][p + 1] = stride_[level][p] * radix;
    }
    level_size_[level] = stride_[level][h];
    if (level > 0) {
      up_product_[level] = up_product_[level - 1] * s.up[level - 1];
    }
  }
  level_base_.assign(h, 0);
  const LinkParameters &l = topology_.link;
  for (std::size_t level = 0; level < h; ++level) {
    const auto count =
        static_cast<std::size_t>(level_size_[level] * s.up[level] * s.parallel[level] * dirs_);
    level_base_[level] = add_links(count, l.bandwidth, l.latency, l.sharing, level == 0);
  }
}

void Fabric::route_fat_tree(std::int32_t a, std::int32_t b, std::vector<std::uint32_t> &out) const {
  const FatTreeShape &s = topology_.fat_tree;
  const std::size_t h = s.down.size();
  const auto digit = [&](std::size_t level, std::int64_t position, std::size_t p) {
    const std::int64_t radix = p < level ? s.up[p] : s.down[p];
    return (position / stride_[level][p]) % radix;
  };
  const auto link = [&](std::size_t level, std::int64_t position, std::int64_t u, std::int64_t j,
                        std::uint32_t direction) {
    const std::int64_t index = (position * s.up[level] + u) * s.parallel[level] + j;
    return level_base_[level] + static_cast<std::uint32_t>(index) * dirs_ + direction;
  };
  const std::uint32_t down_direction = dirs_ == 2 ? 1 : 0;
  // Up: until the element's digits from its level on match the destination's.
  std::size_t level = 0;
  std::int64_t position = a;
  const auto covers = [&](std::size_t lvl, std::int64_t pos) {
    if (lvl == 0) {
      return false;
    }
    for (std::size_t p = lvl; p < h; ++p) {
      if (digit(lvl, pos, p) != digit(0, b, p)) {
        return false;
      }
    }
    return true;
  };
  while (!covers(level, position)) {
    // D-mod-k: the parent port from the destination's position.
    const std::int64_t k = static_cast<std::int64_t>(s.up[level]) * s.parallel[level];
    const std::int64_t d = (b / up_product_[level]) % k;
    const std::int64_t u = d % s.up[level];
    const std::int64_t j = d / s.up[level];
    out.push_back(link(level, position, u, j, 0));
    // The parent: the same digits, digit `level` replaced by u (radices of level + 1).
    std::int64_t parent = 0;
    for (std::size_t p = 0; p < h; ++p) {
      const std::int64_t value = p == level ? u : digit(level, position, p);
      parent += value * stride_[level + 1][p];
    }
    position = parent;
    ++level;
  }
  // Down: replace digit level-1 by the destination's; the cable by the source's position.
  while (level > 0) {
    const std::size_t below = level - 1;
    const std::int64_t u = digit(level, position, below);
    const std::int64_t j = a % s.parallel[below];
    std::int64_t child = 0;
    for (std::size_t p = 0; p < h; ++p) {
      const std::int64_t value = p == below ? digit(0, b, p) : digit(level, position, p);
      child += value * stride_[below][p];
    }
    out.push_back(link(below, child, u, j, down_direction));
    position = child;
    level = below;
  }
}

// ---- dragonfly -----------------------------------------------------------------------------
//
// Routers r = (group * chassis + c) * routers + b. Link ids: local (node, direction), green
// (chassis, smaller blade, larger blade, direction), black (group, smaller chassis, larger
// chassis, blade, direction), blue (smaller group, larger group, direction). Going from the
// smaller index to the larger uses direction 0 ("UP" in SimGrid), the other way direction 1.

void Fabric::build_dragonfly() {
  const DragonflyShape &s = topology_.dragonfly;
  const LinkParameters &l = topology_.link;
  const std::size_t routers = static_cast<std::size_t>(s.groups) * s.chassis * s.routers;
  local_base_ = add_links(routers * s.nodes * dirs_, l.bandwidth, l.latency, l.sharing, true);
  const double bw = l.bandwidth > 0.0 ? l.bandwidth : default_bandwidth_;
  green_base_ =
      add_links(static_cast<std::size_t>(s.groups) * s.chassis * s.routers * s.routers * dirs_,
                bw * s.router_links, l.latency, l.sharing, false);
  black_base_ =
      add_links(static_cast<std::size_t>(s.groups) * s.chassis * s.chassis * s.routers * dirs_,
                bw * s.chassis_links, l.latency, l.sharing, false);
  blue_base_ = add_links(static_cast<std::size_t>(s.groups) * s.groups * dirs_, bw * s.group_links,
                         l.latency, l.sharing, false);
}

void Fabric::route_routers(std::int64_t from, std::int64_t to,
                           std::vector<std::uint32_t> &out) const {
  const DragonflyShape &s = topology_.dragonfly;
  const std::int64_t R = s.routers;
  const std::int64_t C = s.chassis;
  const std::int64_t G = s.groups;
  const auto coords = [&](std::int64_t r) {
    return std::array<std::int64_t, 3>{r / (C * R), (r / R) % C, r % R};
  };
  const auto direction = [&](std::int64_t x, std::int64_t y) {
    return static_cast<std::uint32_t>(dirs_ == 2 && x > y ? 1 : 0);
  };
  auto [g, c, b] = coords(from);
  const auto [tg, tc, tb] = coords(to);
  const auto green = [&](std::int64_t to_blade) {
    const std::int64_t lo = std::min(b, to_blade);
    const std::int64_t hi = std::max(b, to_blade);
    out.push_back(green_base_ +
                  static_cast<std::uint32_t>((((g * C + c) * R + lo) * R + hi) * dirs_) +
                  direction(b, to_blade));
    b = to_blade;
  };
  const auto black = [&](std::int64_t to_chassis) {
    const std::int64_t lo = std::min(c, to_chassis);
    const std::int64_t hi = std::max(c, to_chassis);
    out.push_back(black_base_ +
                  static_cast<std::uint32_t>((((g * C + lo) * C + hi) * R + b) * dirs_) +
                  direction(c, to_chassis));
    c = to_chassis;
  };
  if (g != tg) {
    // The global link towards group tg leaves from router tg of chassis 0 (SimGrid's wiring).
    if (b != tg) {
      green(tg);
    }
    if (c != 0) {
      black(0);
    }
    const std::int64_t lo = std::min(g, tg);
    const std::int64_t hi = std::max(g, tg);
    out.push_back(blue_base_ + static_cast<std::uint32_t>((lo * G + hi) * dirs_) +
                  direction(g, tg));
    // It arrives at router g of chassis 0 of group tg.
    b = g;
    c = 0;
    g = tg;
  }
  if (b != tb) {
    green(tb);
  }
  if (c != tc) {
    black(tc);
  }
}

// ---- torus ---------------------------------------------------------------------------------

void Fabric::build_torus() {
  const LinkParameters &l = topology_.link;
  const std::size_t count = static_cast<std::size_t>(nodes_ > 0 ? topology_.capacity() : 0) *
                            topology_.torus.size() * dirs_;
  add_links(count, l.bandwidth, l.latency, l.sharing, false);
}

void Fabric::route_torus(std::int32_t a, std::int32_t b, std::vector<std::uint32_t> &out) const {
  const std::vector<int> &dims = topology_.torus;
  const std::int64_t D = static_cast<std::int64_t>(dims.size());
  std::int64_t current = a;
  std::int64_t stride = 1;
  for (std::int64_t j = 0; j < D; ++j) {
    const std::int64_t size = dims[static_cast<std::size_t>(j)];
    const std::int64_t my = (a / stride) % size;
    const std::int64_t target = (b / stride) % size;
    // SimGrid's rule, decided from the source's coordinate: right when the target is at most
    // half way round to the right, or when going right wraps round to it.
    const bool right = (target > my && target <= my + size / 2) ||
                       (my > size / 2 && (my + size / 2) % size >= target);
    while ((current / stride) % size != target) {
      const std::int64_t position = (current / stride) % size;
      if (right) {
        const std::int64_t next =
            position == size - 1 ? current - (size - 1) * stride : current + stride;
        out.push_back(static_cast<std::uint32_t>((current * D + j) * dirs_));
        current = next;
      } else {
        const std::int64_t next = position == 0 ? current + (size - 1) * stride : current - stride;
        out.push_back(static_cast<std::uint32_t>((next * D + j) * dirs_ + (dirs_ == 2 ? 1 : 0)));
        current = next;
      }
    }
    stride *= size;
  }
}

// ---- explicit routes -----------------------------------------------------------------------

void Fabric::build_routes() {
  named_link_id_.reserve(topology_.links.size());
  for (const NamedLink &link : topology_.links) {
    const LinkParameters &p = link.parameters;
    const std::size_t ids = p.sharing == LinkSharing::SplitDuplex ? 2 : 1;
    named_link_id_.push_back(add_links(ids, p.bandwidth, p.latency, p.sharing, false));
  }
  for (const ExplicitRoute &r : topology_.routes) {
    const auto offset = static_cast<std::uint32_t>(route_links_.size());
    for (const auto &[index, up] : r.links) {
      const NamedLink &link = topology_.links[static_cast<std::size_t>(index)];
      const bool split = link.parameters.sharing == LinkSharing::SplitDuplex;
      route_links_.push_back(named_link_id_[static_cast<std::size_t>(index)] +
                             (split && !up ? 1U : 0U));
    }
    const std::uint64_t key =
        (static_cast<std::uint64_t>(r.source) << 32U) | static_cast<std::uint32_t>(r.destination);
    route_index_[key] = {offset, static_cast<std::uint32_t>(route_links_.size()) - offset};
  }
}

// ---- routes ----------------------------------------------------------------------------------

void Fabric::route(std::int32_t a, std::int32_t b, std::uint64_t salt,
                   std::vector<std::uint32_t> &out) const {
  switch (topology_.kind) {
  case TopologyKind::Crossbar:
    return;
  case TopologyKind::Star: {
    const std::uint32_t down = dirs_ == 2 ? 1 : 0;
    if (limiters_) {
      out.push_back(limiter_base_ + static_cast<std::uint32_t>(a));
    }
    out.push_back(private_base_ + static_cast<std::uint32_t>(a) * dirs_);
    if (topology_.has_backbone) {
      out.push_back(backbone_);
    }
    out.push_back(private_base_ + static_cast<std::uint32_t>(b) * dirs_ + down);
    if (limiters_) {
      out.push_back(limiter_base_ + static_cast<std::uint32_t>(b));
    }
    return;
  }
  case TopologyKind::FatTree:
    route_fat_tree(a, b, out);
    return;
  case TopologyKind::Dragonfly: {
    const DragonflyShape &s = topology_.dragonfly;
    const std::int64_t from = a / s.nodes;
    const std::int64_t to = b / s.nodes;
    out.push_back(local_base_ + static_cast<std::uint32_t>(a) * dirs_);
    const std::int64_t per_group = static_cast<std::int64_t>(s.chassis) * s.routers;
    const std::int64_t g = from / per_group;
    const std::int64_t tg = to / per_group;
    if (topology_.routing == DragonflyRouting::Valiant && g != tg && s.groups > 2) {
      // An intermediate group other than the two ends, from a splitmix of the pair and salt.
      std::uint64_t z = (static_cast<std::uint64_t>(a) * 0x9e3779b97f4a7c15ULL) ^
                        (static_cast<std::uint64_t>(b) + 0x632be59bd9b4e019ULL) ^
                        (salt * 0xbf58476d1ce4e5b9ULL);
      z = (z ^ (z >> 30U)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27U)) * 0x94d049bb133111ebULL;
      z ^= z >> 31U;
      std::int64_t middle = static_cast<std::int64_t>(z % static_cast<std::uint64_t>(s.groups - 2));
      for (const std::int64_t end : {std::min(g, tg), std::max(g, tg)}) {
        if (middle >= end) {
          ++middle;
        }
      }
      // The router where the global link from the source group arrives in the middle group.
      const std::int64_t entry = middle * per_group + g;
      route_routers(from, entry, out);
      route_routers(entry, to, out);
    } else if (from != to) {
      route_routers(from, to, out);
    }
    out.push_back(local_base_ + static_cast<std::uint32_t>(b) * dirs_ + (dirs_ == 2 ? 1U : 0U));
    return;
  }
  case TopologyKind::Torus:
    route_torus(a, b, out);
    return;
  case TopologyKind::Routes: {
    const std::uint64_t key =
        (static_cast<std::uint64_t>(a) << 32U) | static_cast<std::uint32_t>(b);
    const auto found = route_index_.find(key);
    if (found == route_index_.end()) {
      throw Error(ErrorKind::Machine, "the machine's topology has no route from node " +
                                          std::to_string(a) + " to node " + std::to_string(b));
    }
    out.insert(out.end(), route_links_.begin() + found->second.first,
               route_links_.begin() + found->second.first + found->second.second);
    return;
  }
  }
}

double Fabric::route_latency(std::int32_t a, std::int32_t b) const {
  std::vector<std::uint32_t> links;
  route(a, b, 0, links);
  double sum = 0.0;
  for (std::uint32_t l : links) {
    sum += latency_[l];
  }
  return sum;
}

std::size_t Fabric::hops(std::int32_t a, std::int32_t b) const {
  std::vector<std::uint32_t> links;
  route(a, b, 0, links);
  return links.size();
}

std::string Fabric::link_name(std::uint32_t link) const {
  const std::string direction = dirs_ == 2 ? (link % 2 == 0 ? " up" : " down") : "";
  switch (topology_.kind) {
  case TopologyKind::Star:
    if (topology_.has_backbone && link == backbone_) {
      return "backbone";
    }
    if (limiters_ && link >= limiter_base_ && link < limiter_base_ + nodes_) {
      return "limiter of node " + std::to_string(link - limiter_base_);
    }
    return "private link of node " + std::to_string((link - private_base_) / dirs_) + direction;
  case TopologyKind::FatTree: {
    std::size_t level = level_base_.size() - 1;
    while (level > 0 && link < level_base_[level]) {
      --level;
    }
    const FatTreeShape &s = topology_.fat_tree;
    const std::int64_t index = (link - level_base_[level]) / dirs_;
    const std::int64_t position =
        index / (static_cast<std::int64_t>(s.up[level]) * s.parallel[level]);
    const std::int64_t u = (index / s.parallel[level]) % s.up[level];
    return "fat tree level " + std::to_string(level) + " element " + std::to_string(position) +
           " to parent " + std::to_string(u) + direction;
  }
  case TopologyKind::Dragonfly:
    if (link < green_base_) {
      return "node link " + std::to_string((link - local_base_) / dirs_) + direction;
    }
    if (link < black_base_) {
      return "green link " + std::to_string((link - green_base_) / dirs_) + direction;
    }
    if (link < blue_base_) {
      return "black link " + std::to_string((link - black_base_) / dirs_) + direction;
    }
    return "blue link " + std::to_string((link - blue_base_) / dirs_) + direction;
  case TopologyKind::Torus: {
    const std::size_t dims = topology_.torus.size();
    const std::uint32_t index = link / dirs_;
    return "torus link of node " + std::to_string(index / dims) + " dimension " +
           std::to_string(index % dims) + direction;
  }
  case TopologyKind::Routes:
    for (std::size_t i = named_link_id_.size(); i-- > 0;) {
      if (link >= named_link_id_[i]) {
        return topology_.links[i].name +
               (topology_.links[i].parameters.sharing == LinkSharing::SplitDuplex
                    ? (link == named_link_id_[i] ? "_UP" : "_DOWN")
                    : "");
      }
    }
    return "link " + std::to_string(link);
  case TopologyKind::Crossbar:
    break;
  }
  return "link " + std::to_string(link);
}

} // namespace parjava::machine
