#include "machine_json_wiring.hpp"

namespace parjava::machine::detail {

namespace {

LinkSharing read_sharing(const Reader &in, const json &value, const std::string &field) {
  const std::string text = in.string(value, field);
  for (LinkSharing s : {LinkSharing::Shared, LinkSharing::SplitDuplex, LinkSharing::Fatpipe}) {
    if (text == link_sharing_name(s)) {
      return s;
    }
  }
  in.fail(field, "unknown sharing \"" + text + "\" (expected shared, splitduplex or fatpipe)");
}

LinkParameters read_link(const Reader &in, const json &value, const std::string &field,
                         LinkSharing default_sharing) {
  in.object(value, field);
  in.only(value, field, {"bandwidth", "latency", "sharing"});
  LinkParameters link;
  link.sharing = default_sharing;
  if (const auto found = value.find("bandwidth"); found != value.end()) {
    link.bandwidth = in.non_negative(*found, field_path(field, "bandwidth"), Dimension::Bandwidth);
  }
  if (const auto found = value.find("latency"); found != value.end()) {
    link.latency = in.non_negative(*found, field_path(field, "latency"), Dimension::Time);
  }
  if (const auto found = value.find("sharing"); found != value.end()) {
    link.sharing = read_sharing(in, *found, field_path(field, "sharing"));
  }
  return link;
}

json write_link(const LinkParameters &link) {
  return json{{"bandwidth", link.bandwidth},
              {"latency", link.latency},
              {"sharing", std::string(link_sharing_name(link.sharing))}};
}

std::vector<int> read_counts(const Reader &in, const json &value, const std::string &field) {
  std::vector<int> out;
  const json &items = in.array(value, field);
  for (std::size_t i = 0; i < items.size(); ++i) {
    out.push_back(in.count(items[i], field + "[" + std::to_string(i) + "]"));
  }
  return out;
}

FlowParameters read_flow(const Reader &in, const json &value, const std::string &field) {
  in.object(value, field);
  in.only(
      value, field,
      {"latency_factor", "bandwidth_factor", "tcp_gamma", "weight_s", "crosstraffic", "min_bytes"});
  FlowParameters flow;
  const auto factor = [&](std::string_view key, PiecewiseFactor &out) {
    if (const auto found = value.find(std::string(key)); found != value.end()) {
      const std::string path = field_path(field, key);
      const std::string text = found->is_number() ? "0:" + std::to_string(found->get<double>())
                                                  : in.string(*found, path);
      out = in.with_origin([&] { return parse_piecewise_factor(text, path); });
    }
  };
  factor("latency_factor", flow.latency_factor);
  factor("bandwidth_factor", flow.bandwidth_factor);
  if (const auto found = value.find("tcp_gamma"); found != value.end()) {
    flow.tcp_gamma = in.non_negative(*found, field_path(field, "tcp_gamma"), Dimension::Size);
  }
  if (const auto found = value.find("weight_s"); found != value.end()) {
    flow.weight_s = in.non_negative(*found, field_path(field, "weight_s"), Dimension::Size);
  }
  if (const auto found = value.find("crosstraffic"); found != value.end()) {
    flow.crosstraffic = in.boolean(*found, field_path(field, "crosstraffic"));
  }
  if (const auto found = value.find("min_bytes"); found != value.end()) {
    flow.min_bytes = in.bytes(*found, field_path(field, "min_bytes"));
  }
  return flow;
}

} // namespace

Topology read_topology(const Reader &in, const json &value, const std::string &field) {
  in.object(value, field);
  const std::string kind = in.string(in.require(value, field, "kind"), field_path(field, "kind"));
  const auto path = [&](std::string_view key) { return field_path(field, key); };
  const auto has = [&](std::string_view key) { return value.contains(std::string(key)); };
  const auto get = [&](std::string_view key) -> const json & {
    return in.require(value, field, key);
  };
  Topology t;
  const auto common = [&](LinkSharing sharing) {
    if (has("link")) {
      t.link = read_link(in, get("link"), path("link"), sharing);
    } else {
      t.link.sharing = sharing;
    }
    if (has("limiter")) {
      t.limiter = in.non_negative(get("limiter"), path("limiter"), Dimension::Bandwidth);
    }
    if (has("flow")) {
      t.flow = read_flow(in, get("flow"), path("flow"));
    }
    if (has("origin")) {
      t.origin = in.string(get("origin"), path("origin"));
    }
  };
  if (kind == "crossbar") {
    in.only(value, field, {"kind"});
  } else if (kind == "star") {
    in.only(value, field, {"kind", "link", "backbone", "limiter", "flow", "origin"});
    t.kind = TopologyKind::Star;
    common(LinkSharing::SplitDuplex);
    if (has("backbone") && !get("backbone").is_null()) {
      t.has_backbone = true;
      t.backbone = read_link(in, get("backbone"), path("backbone"), LinkSharing::Shared);
    }
  } else if (kind == "fat_tree") {
    in.only(value, field,
            {"kind", "down", "up", "parallel", "radix", "levels", "taper", "parameters", "link",
             "limiter", "flow", "origin"});
    common(LinkSharing::SplitDuplex);
    if (has("radix")) {
      const int radix = in.count(get("radix"), path("radix"));
      const int levels = in.count(get("levels"), path("levels"));
      const double taper = has("taper") ? in.plain_number(get("taper"), path("taper")) : 1.0;
      const LinkParameters link = t.link;
      const FlowParameters flow = t.flow;
      const double limiter = t.limiter;
      t = in.with_origin([&] { return Topology::k_ary_fat_tree(radix, levels, taper, link); });
      t.flow = flow;
      t.limiter = limiter;
    } else if (has("parameters")) {
      t.kind = TopologyKind::FatTree;
      in.with_origin([&] {
        parse_topology_parameters(t, in.string(get("parameters"), path("parameters")),
                                  path("parameters"));
        return 0;
      });
    } else {
      t.kind = TopologyKind::FatTree;
      t.fat_tree.down = read_counts(in, get("down"), path("down"));
      t.fat_tree.up = read_counts(in, get("up"), path("up"));
      t.fat_tree.parallel = read_counts(in, get("parallel"), path("parallel"));
    }
    if (has("origin")) {
      t.origin = in.string(get("origin"), path("origin"));
    }
  } else if (kind == "dragonfly") {
    in.only(value, field,
            {"kind", "groups", "group_links", "chassis", "chassis_links", "routers", "router_links",
             "nodes", "parameters", "routing", "link", "limiter", "flow", "origin"});
    t.kind = TopologyKind::Dragonfly;
    common(LinkSharing::SplitDuplex);
    if (has("parameters")) {
      in.with_origin([&] {
        parse_topology_parameters(t, in.string(get("parameters"), path("parameters")),
                                  path("parameters"));
        return 0;
      });
    } else {
      DragonflyShape &s = t.dragonfly;
      s.groups = in.count(get("groups"), path("groups"));
      s.group_links = has("group_links") ? in.count(get("group_links"), path("group_links")) : 1;
      s.chassis = in.count(get("chassis"), path("chassis"));
      s.chassis_links =
          has("chassis_links") ? in.count(get("chassis_links"), path("chassis_links")) : 1;
      s.routers = in.count(get("routers"), path("routers"));
      s.router_links =
          has("router_links") ? in.count(get("router_links"), path("router_links")) : 1;
      s.nodes = in.count(get("nodes"), path("nodes"));
    }
    if (has("routing")) {
      const std::string routing = in.string(get("routing"), path("routing"));
      if (routing == "valiant") {
        t.routing = DragonflyRouting::Valiant;
      } else if (routing != "minimal") {
        in.fail(path("routing"),
                "unknown routing \"" + routing + "\" (expected minimal or valiant)");
      }
    }
  } else if (kind == "torus") {
    in.only(value, field,
            {"kind", "dimensions", "parameters", "link", "limiter", "flow", "origin"});
    t.kind = TopologyKind::Torus;
    common(LinkSharing::SplitDuplex);
    if (has("parameters")) {
      in.with_origin([&] {
        parse_topology_parameters(t, in.string(get("parameters"), path("parameters")),
                                  path("parameters"));
        return 0;
      });
    } else {
      t.torus = read_counts(in, get("dimensions"), path("dimensions"));
    }
  } else if (kind == "routes") {
    in.only(value, field, {"kind", "nodes", "links", "routes", "flow", "origin"});
    t.kind = TopologyKind::Routes;
    t.route_nodes = in.count(get("nodes"), path("nodes"));
    const json &links = in.array(get("links"), path("links"));
    for (std::size_t i = 0; i < links.size(); ++i) {
      const std::string item = path("links") + "[" + std::to_string(i) + "]";
      in.object(links[i], item);
      in.only(links[i], item, {"name", "bandwidth", "latency", "sharing"});
      NamedLink link;
      link.name = in.string(in.require(links[i], item, "name"), field_path(item, "name"));
      json parameters = links[i];
      parameters.erase("name");
      link.parameters = read_link(in, parameters, item, LinkSharing::Shared);
      t.links.push_back(std::move(link));
    }
    const json &routes = in.array(get("routes"), path("routes"));
    for (std::size_t i = 0; i < routes.size(); ++i) {
      const std::string item = path("routes") + "[" + std::to_string(i) + "]";
      in.object(routes[i], item);
      in.only(routes[i], item, {"source", "destination", "links"});
      ExplicitRoute r;
      r.source = in.count(in.require(routes[i], item, "source"), field_path(item, "source"));
      r.destination =
          in.count(in.require(routes[i], item, "destination"), field_path(item, "destination"));
      const json &hops = in.array(in.require(routes[i], item, "links"), field_path(item, "links"));
      for (std::size_t h = 0; h < hops.size(); ++h) {
        const std::string hop = field_path(item, "links") + "[" + std::to_string(h) + "]";
        if (!hops[h].is_array() || hops[h].size() != 2) {
          in.fail(hop, "expected [link index, \"up\" or \"down\"]");
        }
        const int index = in.count(hops[h][0], hop + "[0]");
        const std::string direction = in.string(hops[h][1], hop + "[1]");
        if (direction != "up" && direction != "down") {
          in.fail(hop + "[1]", "expected \"up\" or \"down\", got \"" + direction + "\"");
        }
        r.links.emplace_back(index, direction == "up");
      }
      t.routes.push_back(std::move(r));
    }
    if (has("flow")) {
      t.flow = read_flow(in, get("flow"), path("flow"));
    }
  } else {
    in.fail(path("kind"), "unknown topology \"" + kind +
                              "\" (expected crossbar, star, fat_tree, dragonfly, torus or routes)");
  }
  in.with_origin([&] {
    t.validate(field);
    return 0;
  });
  return t;
}

json write_topology(const Topology &t) {
  json out;
  out["kind"] = std::string(topology_kind_name(t.kind));
  if (t.kind == TopologyKind::Crossbar) {
    return out;
  }
  if (t.kind != TopologyKind::Routes) {
    out["link"] = write_link(t.link);
    out["limiter"] = t.limiter;
  }
  switch (t.kind) {
  case TopologyKind::Star:
    out["backbone"] = t.has_backbone ? write_link(t.backbone) : json();
    break;
  case TopologyKind::FatTree:
    out["down"] = t.fat_tree.down;
    out["up"] = t.fat_tree.up;
    out["parallel"] = t.fat_tree.parallel;
    break;
  case TopologyKind::Dragonfly: {
    const DragonflyShape &s = t.dragonfly;
    out["groups"] = s.groups;
    out["group_links"] = s.group_links;
    out["chassis"] = s.chassis;
    out["chassis_links"] = s.chassis_links;
    out["routers"] = s.routers;
    out["router_links"] = s.router_links;
    out["nodes"] = s.nodes;
    out["routing"] = std::string(dragonfly_routing_name(t.routing));
    break;
  }
  case TopologyKind::Torus:
    out["dimensions"] = t.torus;
    break;
  case TopologyKind::Routes: {
    out["nodes"] = t.route_nodes;
    out["links"] = json::array();
    for (const NamedLink &l : t.links) {
      json link = write_link(l.parameters);
      link["name"] = l.name;
      out["links"].push_back(link);
    }
    out["routes"] = json::array();
    for (const ExplicitRoute &r : t.routes) {
      json hops = json::array();
      for (const auto &[index, up] : r.links) {
        hops.push_back(json::array({index, up ? "up" : "down"}));
      }
      out["routes"].push_back(
          json{{"source", r.source}, {"destination", r.destination}, {"links", hops}});
    }
    break;
  }
  default:
    break;
  }
  const FlowParameters &f = t.flow;
  if (!(f == FlowParameters{})) {
    out["flow"] = json{{"latency_factor", format_piecewise_factor(f.latency_factor)},
                       {"bandwidth_factor", format_piecewise_factor(f.bandwidth_factor)},
                       {"tcp_gamma", f.tcp_gamma},
                       {"weight_s", f.weight_s},
                       {"crosstraffic", f.crosstraffic},
                       {"min_bytes", f.min_bytes}};
  }
  if (!t.origin.empty()) {
    out["origin"] = t.origin;
  }
  return out;
}

Placement read_placement_json(const Reader &in, const json &value, const std::string &field) {
  in.object(value, field);
  const std::string kind = in.string(in.require(value, field, "kind"), field_path(field, "kind"));
  if (kind == "block") {
    in.only(value, field, {"kind"});
    return Placement::block();
  }
  if (kind == "round_robin") {
    in.only(value, field, {"kind"});
    return Placement::round_robin();
  }
  if (kind == "explicit") {
    in.only(value, field, {"kind", "nodes", "source"});
    std::vector<int> nodes =
        read_counts(in, in.require(value, field, "nodes"), field_path(field, "nodes"));
    std::string source;
    if (const auto found = value.find("source"); found != value.end()) {
      source = in.string(*found, field_path(field, "source"));
    }
    return in.with_origin([&] { return Placement::explicit_nodes(std::move(nodes), source); });
  }
  in.fail(field_path(field, "kind"),
          "unknown placement \"" + kind + "\" (expected block, round_robin or explicit)");
}

json write_placement_json(const Placement &placement) {
  json out;
  out["kind"] = std::string(placement_kind_name(placement.kind));
  if (placement.kind == PlacementKind::Explicit) {
    out["nodes"] = placement.nodes;
    if (!placement.source.empty()) {
      out["source"] = placement.source;
    }
  }
  return out;
}

} // namespace parjava::machine::detail
