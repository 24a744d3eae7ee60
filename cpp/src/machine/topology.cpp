#include "parjava/machine/topology.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <tuple>

#include "parjava/machine/units.hpp"
#include "validation.hpp"

namespace parjava::machine {

using detail::fail;
using detail::field_path;

std::string_view topology_kind_name(TopologyKind kind) {
  switch (kind) {
  case TopologyKind::Crossbar:
    return "crossbar";
  case TopologyKind::Star:
    return "star";
  case TopologyKind::FatTree:
    return "fat_tree";
  case TopologyKind::Dragonfly:
    return "dragonfly";
  case TopologyKind::Torus:
    return "torus";
  case TopologyKind::Routes:
    return "routes";
  }
  return "unknown";
}

std::string_view link_sharing_name(LinkSharing sharing) {
  switch (sharing) {
  case LinkSharing::Shared:
    return "shared";
  case LinkSharing::SplitDuplex:
    return "splitduplex";
  case LinkSharing::Fatpipe:
    return "fatpipe";
  }
  return "unknown";
}

std::string_view dragonfly_routing_name(DragonflyRouting routing) {
  return routing == DragonflyRouting::Valiant ? "valiant" : "minimal";
}

// ---- piecewise factors ------------------------------------------------------------------------

double PiecewiseFactor::at(std::uint64_t bytes) const noexcept {
  double factor = 1.0;
  for (const auto &[threshold, value] : points) {
    if (threshold > bytes) {
      break;
    }
    factor = value;
  }
  return factor;
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == separator) {
      parts.push_back(trim(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  return parts;
}

int positive_int(std::string_view text, std::string_view field, std::string_view what) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || value < 1) {
    fail(field, "expected " + std::string(what) + " as a whole number >= 1, got \"" +
                    std::string(text) + "\"");
  }
  return value;
}

void require_link(const LinkParameters &link, std::string_view field) {
  detail::require_non_negative(link.bandwidth, field_path(field, "bandwidth"));
  detail::require_non_negative(link.latency, field_path(field, "latency"));
}

std::int64_t product(const std::vector<int> &values) {
  std::int64_t p = 1;
  for (int v : values) {
    p *= v;
    if (p > (std::int64_t{1} << 40)) {
      return p;
    }
  }
  return p;
}

std::string join(const std::vector<int> &values, char separator) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    out += (i == 0 ? "" : std::string(1, separator)) + std::to_string(values[i]);
  }
  return out;
}

} // namespace

PiecewiseFactor parse_piecewise_factor(std::string_view text, std::string_view field) {
  PiecewiseFactor factor;
  if (trim(text).empty()) {
    return factor;
  }
  // A single number is a constant factor (SimGrid accepts "0.97" for network/bandwidth-factor).
  if (text.find(':') == std::string_view::npos) {
    const std::string number(trim(text));
    char *end = nullptr;
    const double value = std::strtod(number.c_str(), &end);
    if (end != number.c_str() + number.size() || !std::isfinite(value) || value <= 0.0) {
      fail(field, "expected a factor > 0 or entries \"size:factor;...\", got \"" + number + "\"");
    }
    factor.points.emplace_back(0, value);
    return factor;
  }
  for (std::string_view entry : split(text, ';')) {
    if (entry.empty()) {
      continue;
    }
    const std::size_t colon = entry.find(':');
    if (colon == std::string_view::npos) {
      fail(field, "entry \"" + std::string(entry) + "\" is not \"size:factor\"");
    }
    const std::string_view size_text = trim(entry.substr(0, colon));
    const std::string value_text(trim(entry.substr(colon + 1)));
    std::uint64_t size = 0;
    const auto [size_end, size_error] =
        std::from_chars(size_text.data(), size_text.data() + size_text.size(), size);
    if (size_error != std::errc{} || size_end != size_text.data() + size_text.size()) {
      fail(field, "entry \"" + std::string(entry) + "\": the size must be a whole number of bytes");
    }
    char *end = nullptr;
    const double value = std::strtod(value_text.c_str(), &end);
    if (value_text.empty() || end != value_text.c_str() + value_text.size() ||
        !std::isfinite(value) || value <= 0.0) {
      fail(field, "entry \"" + std::string(entry) + "\": the factor must be a number > 0");
    }
    for (const auto &[existing, unused] : factor.points) {
      if (existing == size) {
        fail(field, "size " + std::to_string(size) + " is given twice");
      }
    }
    factor.points.emplace_back(size, value);
  }
  std::sort(factor.points.begin(), factor.points.end());
  return factor;
}

std::string format_piecewise_factor(const PiecewiseFactor &factor) {
  std::string out;
  for (auto it = factor.points.rbegin(); it != factor.points.rend(); ++it) {
    out += (out.empty() ? "" : ";") + std::to_string(it->first) + ":" +
           detail::show_number(it->second);
  }
  return out;
}

// ---- constructors -----------------------------------------------------------------------------

Topology Topology::crossbar() { return Topology{}; }

Topology Topology::star(const LinkParameters &private_links, const LinkParameters *backbone) {
  Topology t;
  t.kind = TopologyKind::Star;
  t.link = private_links;
  if (backbone != nullptr) {
    t.has_backbone = true;
    t.backbone = *backbone;
  }
  t.validate();
  return t;
}

Topology Topology::fat_tree_topology(const FatTreeShape &shape, const LinkParameters &link) {
  Topology t;
  t.kind = TopologyKind::FatTree;
  t.fat_tree = shape;
  t.link = link;
  t.validate();
  return t;
}

Topology Topology::k_ary_fat_tree(int radix, int levels, double taper, const LinkParameters &link) {
  if (radix < 2 || radix % 2 != 0) {
    fail("topology.radix",
         "switches need an even number of ports >= 2 (got " + std::to_string(radix) + ")");
  }
  if (levels < 1 || levels > 8) {
    fail("topology.levels", "must be between 1 and 8 (got " + std::to_string(levels) + ")");
  }
  if (!(taper >= 1.0) || !std::isfinite(taper)) {
    fail("topology.taper",
         "must be >= 1 (1: full bisection; got " + detail::show_number(taper) + ")");
  }
  const int half = radix / 2;
  const double uplinks = half / taper;
  if (levels > 1 && (std::fabs(uplinks - std::round(uplinks)) > 1e-9 || uplinks < 1.0)) {
    fail("topology.taper", "radix/2 / taper = " + std::to_string(half) + " / " +
                               detail::show_number(taper) +
                               " must be a whole number of uplinks >= 1");
  }
  FatTreeShape shape;
  for (int level = 0; level < levels; ++level) {
    const bool top = level == levels - 1;
    shape.down.push_back(top ? radix : half);
    // The nodes have one uplink each; every leaf or middle switch has radix/2 / taper.
    shape.up.push_back(level == 0 ? 1 : static_cast<int>(std::lround(uplinks)));
    shape.parallel.push_back(1);
  }
  Topology t = fat_tree_topology(shape, link);
  t.origin = std::to_string(levels) + "-level fat tree of " + std::to_string(radix) +
             "-port switches" + (taper > 1.0 ? ", taper " + detail::show_number(taper) + ":1" : "");
  return t;
}

Topology Topology::dragonfly_topology(const DragonflyShape &shape, DragonflyRouting routing,
                                      const LinkParameters &link) {
  Topology t;
  t.kind = TopologyKind::Dragonfly;
  t.dragonfly = shape;
  t.routing = routing;
  t.link = link;
  t.validate();
  return t;
}

Topology Topology::torus_topology(std::vector<int> dimensions, const LinkParameters &link) {
  Topology t;
  t.kind = TopologyKind::Torus;
  t.torus = std::move(dimensions);
  t.link = link;
  t.validate();
  return t;
}

std::int64_t Topology::capacity() const {
  switch (kind) {
  case TopologyKind::Crossbar:
  case TopologyKind::Star:
    return 0;
  case TopologyKind::FatTree:
    return product(fat_tree.down);
  case TopologyKind::Dragonfly:
    return static_cast<std::int64_t>(dragonfly.groups) * dragonfly.chassis * dragonfly.routers *
           dragonfly.nodes;
  case TopologyKind::Torus:
    return product(torus);
  case TopologyKind::Routes:
    return route_nodes;
  }
  return 0;
}

void Topology::validate(std::string_view field) const {
  const auto require_counts = [&](const std::vector<int> &values, std::string_view name,
                                  std::size_t size) {
    if (values.size() != size) {
      fail(field_path(field, name), "needs " + std::to_string(size) +
                                        " entries, one per level (got " +
                                        std::to_string(values.size()) + ")");
    }
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (values[i] < 1) {
        fail(field_path(field, std::string(name) + "[" + std::to_string(i) + "]"),
             "must be >= 1 (got " + std::to_string(values[i]) + ")");
      }
    }
  };
  const auto require_capacity = [&](std::int64_t nodes) {
    if (nodes > (std::int64_t{1} << 31)) {
      fail(field, "connects " + std::to_string(nodes) + " nodes, more than 2^31");
    }
  };
  if (kind != TopologyKind::Crossbar && kind != TopologyKind::Routes) {
    require_link(link, field_path(field, "link"));
    detail::require_non_negative(limiter, field_path(field, "limiter"));
  }
  switch (kind) {
  case TopologyKind::Crossbar:
    break;
  case TopologyKind::Star:
    if (has_backbone) {
      require_link(backbone, field_path(field, "backbone"));
      if (backbone.sharing == LinkSharing::SplitDuplex) {
        fail(field_path(field, "backbone.sharing"),
             "a backbone is shared or fatpipe (SimGrid's bb_sharing_policy)");
      }
    }
    break;
  case TopologyKind::FatTree: {
    const std::size_t levels = fat_tree.down.size();
    if (levels == 0) {
      fail(field_path(field, "fat_tree.down"), "a fat tree needs at least one level");
    }
    const std::string tree = field_path(field, "fat_tree");
    require_counts(fat_tree.down, tree + ".down", levels);
    require_counts(fat_tree.up, tree + ".up", levels);
    require_counts(fat_tree.parallel, tree + ".parallel", levels);
    require_capacity(product(fat_tree.down));
    break;
  }
  case TopologyKind::Dragonfly: {
    const std::string d = field_path(field, "dragonfly");
    const DragonflyShape &s = dragonfly;
    const std::pair<std::string_view, int> counts[] = {
        {"groups", s.groups},   {"group_links", s.group_links},
        {"chassis", s.chassis}, {"chassis_links", s.chassis_links},
        {"routers", s.routers}, {"router_links", s.router_links},
        {"nodes", s.nodes}};
    for (const auto &[name, value] : counts) {
      if (value < 1) {
        fail(field_path(d, name), "must be >= 1 (got " + std::to_string(value) + ")");
      }
    }
    // SimGrid attaches the global link towards group g to the router of index g in each group
    // and reaches it through chassis 0: a group needs a router for every other group there.
    if (s.groups > s.routers && s.groups > 1) {
      fail(field_path(d, "groups"),
           std::to_string(s.groups) + " groups need at least as many routers per chassis (got " +
               std::to_string(s.routers) +
               "): the global link towards group g leaves from router g of chassis 0, as in "
               "SimGrid's DragonflyZone");
    }
    require_capacity(static_cast<std::int64_t>(s.groups) * s.chassis * s.routers * s.nodes);
    break;
  }
  case TopologyKind::Torus:
    if (torus.empty()) {
      fail(field_path(field, "torus"), "a torus needs at least one dimension");
    }
    require_counts(torus, field_path(field, "torus"), torus.size());
    require_capacity(product(torus));
    break;
  case TopologyKind::Routes: {
    if (route_nodes < 1) {
      fail(field_path(field, "nodes"), "must be >= 1");
    }
    for (std::size_t i = 0; i < links.size(); ++i) {
      require_link(links[i].parameters, field_path(field, "links[" + std::to_string(i) + "]"));
      if (!(links[i].parameters.bandwidth > 0.0)) {
        fail(field_path(field, "links[" + std::to_string(i) + "].bandwidth"), "must be > 0");
      }
    }
    for (std::size_t i = 0; i < routes.size(); ++i) {
      const ExplicitRoute &r = routes[i];
      const std::string rf = field_path(field, "routes[" + std::to_string(i) + "]");
      if (r.source < 0 || r.source >= route_nodes || r.destination < 0 ||
          r.destination >= route_nodes) {
        fail(rf, "node outside [0, " + std::to_string(route_nodes) + ")");
      }
      for (const auto &[link_index, up] : r.links) {
        (void)up;
        if (link_index < 0 || static_cast<std::size_t>(link_index) >= links.size()) {
          fail(rf, "link index " + std::to_string(link_index) + " outside the link list");
        }
      }
    }
    break;
  }
  }
  const FlowParameters &f = flow;
  detail::require_non_negative(f.tcp_gamma, field_path(field, "flow.tcp_gamma"));
  detail::require_non_negative(f.weight_s, field_path(field, "flow.weight_s"));
  for (const auto *factor : {&f.latency_factor, &f.bandwidth_factor}) {
    for (const auto &[size, value] : factor->points) {
      (void)size;
      if (!(value > 0.0) || !std::isfinite(value)) {
        fail(field_path(field, factor == &f.latency_factor ? "flow.latency_factor"
                                                           : "flow.bandwidth_factor"),
             "factors must be finite and > 0");
      }
    }
  }
}

std::string Topology::parameters_text() const {
  switch (kind) {
  case TopologyKind::FatTree:
    return std::to_string(fat_tree.down.size()) + ";" + join(fat_tree.down, ',') + ";" +
           join(fat_tree.up, ',') + ";" + join(fat_tree.parallel, ',');
  case TopologyKind::Dragonfly: {
    const DragonflyShape &s = dragonfly;
    return std::to_string(s.groups) + "," + std::to_string(s.group_links) + ";" +
           std::to_string(s.chassis) + "," + std::to_string(s.chassis_links) + ";" +
           std::to_string(s.routers) + "," + std::to_string(s.router_links) + ";" +
           std::to_string(s.nodes);
  }
  case TopologyKind::Torus:
    return join(torus, ',');
  default:
    return "";
  }
}

std::string Topology::describe() const {
  const auto link_text = [](const LinkParameters &l) {
    return (l.bandwidth > 0.0 ? format_bandwidth(l.bandwidth) : std::string("network bandwidth")) +
           ", " + format_time(l.latency) + ", " + std::string(link_sharing_name(l.sharing));
  };
  std::string out;
  switch (kind) {
  case TopologyKind::Crossbar:
    return "crossbar (non-blocking; only the NICs are shared)";
  case TopologyKind::Star:
    out = "flat cluster: private links " + link_text(link);
    out += has_backbone ? "; backbone " + link_text(backbone) : "; no backbone";
    break;
  case TopologyKind::FatTree:
    out = (origin.empty() ? std::string("fat tree") : origin) + " (" + parameters_text() + ", " +
          std::to_string(capacity()) + " nodes), links " + link_text(link);
    break;
  case TopologyKind::Dragonfly:
    out = "dragonfly " + parameters_text() + " (" + std::to_string(capacity()) + " nodes, " +
          std::string(dragonfly_routing_name(routing)) + " routing), links " + link_text(link);
    break;
  case TopologyKind::Torus:
    out = "torus " + join(torus, 'x') + " (dimension-order routing), links " + link_text(link);
    break;
  case TopologyKind::Routes:
    out = "explicit routes: " + std::to_string(route_nodes) + " nodes, " +
          std::to_string(links.size()) + " links, " + std::to_string(routes.size()) + " routes";
    break;
  }
  if (limiter > 0.0) {
    out += "; limiter " + format_bandwidth(limiter) + " per node";
  }
  if (!flow.latency_factor.empty() || !flow.bandwidth_factor.empty()) {
    out += "; SMPI latency/bandwidth factors";
  }
  return out;
}

void parse_topology_parameters(Topology &topology, std::string_view text, std::string_view field) {
  const std::vector<std::string_view> parts = split(text, ';');
  switch (topology.kind) {
  case TopologyKind::FatTree: {
    if (parts.size() != 4) {
      fail(field, "a fat tree is \"levels;down,...;up,...;parallel,...\" (4 parts separated by "
                  "';'), got \"" +
                      std::string(text) + "\"");
    }
    const int levels = positive_int(parts[0], field, "the number of levels");
    const auto vector = [&](std::string_view part, std::string_view what) {
      std::vector<int> values;
      for (std::string_view v : split(part, ',')) {
        values.push_back(positive_int(v, field, what));
      }
      if (values.size() != static_cast<std::size_t>(levels)) {
        fail(field, std::to_string(levels) + " levels but " + std::to_string(values.size()) + " " +
                        std::string(what) + " in \"" + std::string(part) + "\"");
      }
      return values;
    };
    topology.fat_tree.down = vector(parts[1], "child counts");
    topology.fat_tree.up = vector(parts[2], "parent counts");
    topology.fat_tree.parallel = vector(parts[3], "cable counts");
    break;
  }
  case TopologyKind::Dragonfly: {
    if (parts.size() != 4) {
      fail(field, "a dragonfly is \"groups,links;chassis,links;routers,links;nodes\", got \"" +
                      std::string(text) + "\"");
    }
    const auto pair = [&](std::string_view part, std::string_view what) {
      const std::vector<std::string_view> values = split(part, ',');
      if (values.size() != 2) {
        fail(field,
             "expected \"" + std::string(what) + ",links\", got \"" + std::string(part) + "\"");
      }
      return std::pair{positive_int(values[0], field, what),
                       positive_int(values[1], field, "a cable count")};
    };
    DragonflyShape &s = topology.dragonfly;
    std::tie(s.groups, s.group_links) = pair(parts[0], "groups");
    std::tie(s.chassis, s.chassis_links) = pair(parts[1], "chassis");
    std::tie(s.routers, s.router_links) = pair(parts[2], "routers");
    s.nodes = positive_int(parts[3], field, "nodes per router");
    break;
  }
  case TopologyKind::Torus: {
    topology.torus.clear();
    for (std::string_view v : split(text, ',')) {
      topology.torus.push_back(positive_int(v, field, "a dimension size"));
    }
    break;
  }
  default:
    fail(field, "topology parameters apply to fat_tree, dragonfly and torus only");
  }
}

} // namespace parjava::machine
