#include "parjava/machine/machine_json.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "json_reader.hpp"
#include "machine_json_wiring.hpp"
#include "parjava/error.hpp"
#include "parjava/machine/units.hpp"
#include "validation.hpp"

namespace parjava::machine {

namespace {

using json = nlohmann::json;
using detail::field_path;
using detail::Reader;
using detail::type_name;

// ------------------------------------------------------------------ networks

Network read_network(const Reader &in, const json &value, const std::string &field) {
  in.object(value, field);
  const std::string kind = in.string(in.require(value, field, "kind"), field_path(field, "kind"));
  const auto get = [&](std::string_view key) -> const json & {
    return in.require(value, field, key);
  };
  if (kind == "hockney") {
    in.only(value, field, {"kind", "latency", "bandwidth", "eager_limit"});
    HockneyParameters p;
    p.latency = in.quantity(get("latency"), field_path(field, "latency"), Dimension::Time);
    p.bandwidth =
        in.quantity(get("bandwidth"), field_path(field, "bandwidth"), Dimension::Bandwidth);
    p.eager_limit = in.bytes(get("eager_limit"), field_path(field, "eager_limit"));
    return in.with_origin([&] { return Network::hockney(p, field); });
  }
  if (kind == "loggp") {
    in.only(value, field, {"kind", "L", "o", "g", "G", "O", "S"});
    LogGPParameters p;
    p.L = in.quantity(get("L"), field_path(field, "L"), Dimension::Time);
    p.o = in.quantity(get("o"), field_path(field, "o"), Dimension::Time);
    p.g = in.quantity(get("g"), field_path(field, "g"), Dimension::Time);
    p.G = in.quantity(get("G"), field_path(field, "G"), Dimension::TimePerByte);
    p.O = in.quantity(get("O"), field_path(field, "O"), Dimension::TimePerByte);
    p.S = in.bytes(get("S"), field_path(field, "S"));
    return in.with_origin([&] { return Network::loggp(p, field); });
  }
  if (kind == "table") {
    in.only(value, field, {"kind", "points", "eager_limit"});
    MeasuredTable table;
    const std::string points_field = field_path(field, "points");
    const json &points = in.array(get("points"), points_field);
    for (std::size_t i = 0; i < points.size(); ++i) {
      const std::string point_field = points_field + "[" + std::to_string(i) + "]";
      const json &point = points[i];
      if (!point.is_array() || point.size() != 2) {
        in.fail(point_field, "expected a pair [bytes, seconds], got " +
                                 std::string(type_name(point)) +
                                 (point.is_array() ? " of " + std::to_string(point.size()) : ""));
      }
      table.points.push_back({in.bytes(point[0], point_field + "[0]"),
                              in.quantity(point[1], point_field + "[1]", Dimension::Time)});
    }
    table.eager_limit = in.bytes(get("eager_limit"), field_path(field, "eager_limit"));
    return in.with_origin([&] { return Network::table(std::move(table), field); });
  }
  in.fail(field_path(field, "kind"),
          "unknown network kind \"" + kind + "\" (expected hockney, loggp or table)");
}

json write_network(const Network &network) {
  json out;
  out["kind"] = network_kind_name(network.kind());
  if (const auto *h = network.as_hockney()) {
    out["latency"] = h->latency;
    out["bandwidth"] = h->bandwidth;
    out["eager_limit"] = h->eager_limit;
  } else if (const auto *p = network.as_loggp()) {
    out["L"] = p->L;
    out["o"] = p->o;
    out["g"] = p->g;
    out["G"] = p->G;
    out["O"] = p->O;
    out["S"] = p->S;
  } else {
    const auto *table = network.as_table();
    json points = json::array();
    for (const TablePoint &point : table->points) {
      points.push_back(json::array({point.bytes, point.seconds}));
    }
    out["points"] = std::move(points);
    out["eager_limit"] = table->eager_limit;
  }
  return out;
}

// ------------------------------------------------------------------ threads

ThreadCosts read_threads(const Reader &in, const json &value, const std::string &field) {
  in.object(value, field);
  for (const auto &[key, unused] : value.items()) {
    bool known = false;
    for (std::string_view name : ThreadCosts::field_names) {
      known = known || key == name;
    }
    if (!known) {
      in.fail(field_path(field, key),
              "unknown thread cost (expected create, start, lock, try_lock, release, "
              "atomic_create, atomic_cas, semaphore_create, copy_per_byte, team_start)");
    }
  }
  ThreadCosts costs;
  for (std::string_view name : ThreadCosts::field_names) {
    const Dimension dimension = name == "copy_per_byte" ? Dimension::TimePerByte : Dimension::Time;
    const std::string path = field_path(field, name);
    if (name == "team_start" && !value.contains("team_start")) {
      costs.team_start = costs.start; // written before teams were costed apart
      continue;
    }
    costs.set(name, in.non_negative(in.require(value, field, name), path, dimension));
  }
  return costs;
}

json write_threads(const ThreadCosts &costs) {
  json out;
  for (std::string_view name : ThreadCosts::field_names) {
    out[std::string(name)] = costs.get(name);
  }
  return out;
}

// ------------------------------------------------------------------ measurement

json write_point(const MeasuredPoint &p) {
  return json{{"bytes", p.bytes},         {"seconds", p.seconds},
              {"ci95", p.ci95},           {"samples", p.samples},
              {"discarded", p.discarded}, {"operations_per_sample", p.operations_per_sample}};
}

MeasuredPoint read_point(const Reader &in, const json &value, const std::string &field) {
  in.object(value, field);
  in.only(value, field,
          {"bytes", "seconds", "ci95", "samples", "discarded", "operations_per_sample"});
  const auto get = [&](std::string_view key) -> const json & {
    return in.require(value, field, key);
  };
  MeasuredPoint p;
  p.bytes = in.bytes(get("bytes"), field_path(field, "bytes"));
  p.seconds = in.non_negative(get("seconds"), field_path(field, "seconds"), Dimension::Time);
  p.ci95 = in.non_negative(get("ci95"), field_path(field, "ci95"), Dimension::Time);
  p.samples = in.count(get("samples"), field_path(field, "samples"));
  p.discarded = in.count(get("discarded"), field_path(field, "discarded"));
  p.operations_per_sample =
      in.count(get("operations_per_sample"), field_path(field, "operations_per_sample"));
  return p;
}

json write_points(const std::vector<MeasuredPoint> &points) {
  json out = json::array();
  for (const MeasuredPoint &p : points) {
    out.push_back(write_point(p));
  }
  return out;
}

std::vector<MeasuredPoint> read_points(const Reader &in, const json &value,
                                       const std::string &field) {
  std::vector<MeasuredPoint> points;
  const json &items = in.array(value, field);
  for (std::size_t i = 0; i < items.size(); ++i) {
    points.push_back(read_point(in, items[i], field + "[" + std::to_string(i) + "]"));
  }
  return points;
}

json write_fit_error(const FitError &e) {
  return json{{"rms_relative", e.rms_relative},
              {"max_relative", e.max_relative},
              {"worst_bytes", e.worst_bytes},
              {"points", e.points}};
}

FitError read_fit_error(const Reader &in, const json &value, const std::string &field) {
  in.object(value, field);
  in.only(value, field, {"rms_relative", "max_relative", "worst_bytes", "points"});
  const auto get = [&](std::string_view key) -> const json & {
    return in.require(value, field, key);
  };
  FitError e;
  e.rms_relative =
      in.non_negative(get("rms_relative"), field_path(field, "rms_relative"), Dimension::Ratio);
  e.max_relative =
      in.non_negative(get("max_relative"), field_path(field, "max_relative"), Dimension::Ratio);
  e.worst_bytes = in.bytes(get("worst_bytes"), field_path(field, "worst_bytes"));
  e.points = static_cast<std::size_t>(in.count(get("points"), field_path(field, "points")));
  return e;
}

json write_series(const PingPongSeries &s) {
  json out;
  out["pair"] = s.pair;
  out["rank_a"] = s.rank_a;
  out["rank_b"] = s.rank_b;
  out["points"] = write_points(s.points);
  out["send_overhead"] = write_points(s.send_overhead);
  out["gap"] = s.gap;
  out["hockney"] = json{{"latency", s.hockney.parameters.latency},
                        {"bandwidth", s.hockney.parameters.bandwidth},
                        {"eager_limit", s.hockney.parameters.eager_limit},
                        {"error", write_fit_error(s.hockney.error)},
                        {"constrained", s.hockney.constrained}};
  if (s.loggp) {
    const LogGPParameters &p = s.loggp->parameters;
    out["loggp"] = json{{"L", p.L},
                        {"o", p.o},
                        {"g", p.g},
                        {"G", p.G},
                        {"O", p.O},
                        {"S", p.S},
                        {"error", write_fit_error(s.loggp->error)},
                        {"constrained", s.loggp->constrained}};
  } else {
    out["loggp"] = nullptr;
  }
  const EagerLimitDetection &d = s.eager_detection;
  out["eager_detection"] = json{{"detected", d.detected},
                                {"last_eager_bytes", d.last_eager_bytes},
                                {"first_rendezvous_bytes", d.first_rendezvous_bytes},
                                {"jump_seconds", d.jump_seconds},
                                {"jump_relative", d.jump_relative}};
  out["eager_bisection"] = write_points(s.eager_bisection);
  out["eager_probes"] = json::array();
  for (const EagerProbe &probe : s.eager_probes) {
    out["eager_probes"].push_back(json{
        {"bytes", probe.bytes}, {"send_seconds", probe.send_seconds}, {"blocked", probe.blocked}});
  }
  out["eager_limit"] = s.eager_limit;
  out["eager_limit_source"] = s.eager_limit_source;
  return out;
}

PingPongSeries read_series(const Reader &in, const json &value, const std::string &field) {
  in.object(value, field);
  in.only(value, field,
          {"pair", "rank_a", "rank_b", "points", "send_overhead", "gap", "hockney", "loggp",
           "eager_detection", "eager_bisection", "eager_probes", "eager_limit",
           "eager_limit_source"});
  const auto get = [&](std::string_view key) -> const json & {
    return in.require(value, field, key);
  };
  const auto path = [&](std::string_view key) { return field_path(field, key); };
  PingPongSeries s;
  s.pair = in.string(get("pair"), path("pair"));
  s.rank_a = in.count(get("rank_a"), path("rank_a"));
  s.rank_b = in.count(get("rank_b"), path("rank_b"));
  s.points = read_points(in, get("points"), path("points"));
  s.send_overhead = read_points(in, get("send_overhead"), path("send_overhead"));
  s.gap = in.non_negative(get("gap"), path("gap"), Dimension::Time);

  const std::string hockney_field = path("hockney");
  const json &hockney = in.object(get("hockney"), hockney_field);
  in.only(hockney, hockney_field, {"latency", "bandwidth", "eager_limit", "error", "constrained"});
  const auto hget = [&](std::string_view key) -> const json & {
    return in.require(hockney, hockney_field, key);
  };
  s.hockney.parameters.latency =
      in.quantity(hget("latency"), field_path(hockney_field, "latency"), Dimension::Time);
  s.hockney.parameters.bandwidth =
      in.quantity(hget("bandwidth"), field_path(hockney_field, "bandwidth"), Dimension::Bandwidth);
  s.hockney.parameters.eager_limit =
      in.bytes(hget("eager_limit"), field_path(hockney_field, "eager_limit"));
  s.hockney.error = read_fit_error(in, hget("error"), field_path(hockney_field, "error"));
  s.hockney.constrained = in.boolean(hget("constrained"), field_path(hockney_field, "constrained"));

  const json &loggp = get("loggp");
  if (!loggp.is_null()) {
    const std::string loggp_field = path("loggp");
    in.object(loggp, loggp_field);
    in.only(loggp, loggp_field, {"L", "o", "g", "G", "O", "S", "error", "constrained"});
    const auto lget = [&](std::string_view key) -> const json & {
      return in.require(loggp, loggp_field, key);
    };
    LogGPFit fit;
    fit.parameters.L = in.quantity(lget("L"), field_path(loggp_field, "L"), Dimension::Time);
    fit.parameters.o = in.quantity(lget("o"), field_path(loggp_field, "o"), Dimension::Time);
    fit.parameters.g = in.quantity(lget("g"), field_path(loggp_field, "g"), Dimension::Time);
    fit.parameters.G = in.quantity(lget("G"), field_path(loggp_field, "G"), Dimension::TimePerByte);
    fit.parameters.O = in.quantity(lget("O"), field_path(loggp_field, "O"), Dimension::TimePerByte);
    fit.parameters.S = in.bytes(lget("S"), field_path(loggp_field, "S"));
    fit.error = read_fit_error(in, lget("error"), field_path(loggp_field, "error"));
    fit.constrained = in.boolean(lget("constrained"), field_path(loggp_field, "constrained"));
    s.loggp = fit;
  }

  const std::string detection_field = path("eager_detection");
  const json &detection = in.object(get("eager_detection"), detection_field);
  in.only(
      detection, detection_field,
      {"detected", "last_eager_bytes", "first_rendezvous_bytes", "jump_seconds", "jump_relative"});
  const auto dget = [&](std::string_view key) -> const json & {
    return in.require(detection, detection_field, key);
  };
  EagerLimitDetection &d = s.eager_detection;
  d.detected = in.boolean(dget("detected"), field_path(detection_field, "detected"));
  d.last_eager_bytes =
      in.bytes(dget("last_eager_bytes"), field_path(detection_field, "last_eager_bytes"));
  d.first_rendezvous_bytes = in.bytes(dget("first_rendezvous_bytes"),
                                      field_path(detection_field, "first_rendezvous_bytes"));
  d.jump_seconds = in.quantity(dget("jump_seconds"), field_path(detection_field, "jump_seconds"),
                               Dimension::Time);
  d.jump_relative =
      in.plain_number(dget("jump_relative"), field_path(detection_field, "jump_relative"));
  s.eager_bisection = read_points(in, get("eager_bisection"), path("eager_bisection"));
  const json &probes = in.array(get("eager_probes"), path("eager_probes"));
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const std::string item = path("eager_probes") + "[" + std::to_string(i) + "]";
    const json &probe = in.object(probes[i], item);
    in.only(probe, item, {"bytes", "send_seconds", "blocked"});
    EagerProbe entry;
    entry.bytes = in.bytes(in.require(probe, item, "bytes"), field_path(item, "bytes"));
    entry.send_seconds = in.non_negative(in.require(probe, item, "send_seconds"),
                                         field_path(item, "send_seconds"), Dimension::Time);
    entry.blocked = in.boolean(in.require(probe, item, "blocked"), field_path(item, "blocked"));
    s.eager_probes.push_back(entry);
  }
  s.eager_limit = in.bytes(get("eager_limit"), path("eager_limit"));
  s.eager_limit_source = in.string(get("eager_limit_source"), path("eager_limit_source"));
  return s;
}

json write_measurement(const Measurement &m) {
  json out;
  out["tool"] = m.tool;
  out["mode"] = m.mode;
  out["host"] = m.host;
  out["mpi_library"] = m.mpi_library;
  out["date"] = m.date;
  out["ranks"] = m.ranks;
  out["duration_seconds"] = m.duration_seconds;
  out["target_relative_ci"] = m.target_relative_ci;
  out["ping_pong"] = json::array();
  for (const PingPongSeries &s : m.ping_pong) {
    out["ping_pong"].push_back(write_series(s));
  }
  out["sendrecv"] = write_points(m.sendrecv);
  out["collectives"] = json::array();
  for (const CollectiveTiming &c : m.collectives) {
    out["collectives"].push_back(
        json{{"operation", c.operation}, {"ranks", c.ranks}, {"timing", write_point(c.timing)}});
  }
  out["configured"] = json::object();
  for (const auto &[name, value] : m.configured) {
    out["configured"][name] = value;
  }
  out["notes"] = m.notes;
  return out;
}

Measurement read_measurement(const Reader &in, const json &value, const std::string &field) {
  in.object(value, field);
  in.only(value, field,
          {"tool", "mode", "host", "mpi_library", "date", "ranks", "duration_seconds",
           "target_relative_ci", "ping_pong", "sendrecv", "collectives", "configured", "notes"});
  const auto get = [&](std::string_view key) -> const json & {
    return in.require(value, field, key);
  };
  const auto path = [&](std::string_view key) { return field_path(field, key); };
  Measurement m;
  m.tool = in.string(get("tool"), path("tool"));
  m.mode = in.string(get("mode"), path("mode"));
  m.host = in.string(get("host"), path("host"));
  m.mpi_library = in.string(get("mpi_library"), path("mpi_library"));
  m.date = in.string(get("date"), path("date"));
  m.ranks = in.count(get("ranks"), path("ranks"));
  m.duration_seconds =
      in.non_negative(get("duration_seconds"), path("duration_seconds"), Dimension::Time);
  m.target_relative_ci =
      in.non_negative(get("target_relative_ci"), path("target_relative_ci"), Dimension::Ratio);
  const json &series = in.array(get("ping_pong"), path("ping_pong"));
  for (std::size_t i = 0; i < series.size(); ++i) {
    m.ping_pong.push_back(
        read_series(in, series[i], path("ping_pong") + "[" + std::to_string(i) + "]"));
  }
  m.sendrecv = read_points(in, get("sendrecv"), path("sendrecv"));
  const json &collectives = in.array(get("collectives"), path("collectives"));
  for (std::size_t i = 0; i < collectives.size(); ++i) {
    const std::string item = path("collectives") + "[" + std::to_string(i) + "]";
    const json &c = in.object(collectives[i], item);
    in.only(c, item, {"operation", "ranks", "timing"});
    CollectiveTiming timing;
    timing.operation = in.string(in.require(c, item, "operation"), field_path(item, "operation"));
    timing.ranks = in.count(in.require(c, item, "ranks"), field_path(item, "ranks"));
    timing.timing = read_point(in, in.require(c, item, "timing"), field_path(item, "timing"));
    m.collectives.push_back(std::move(timing));
  }
  const json &configured = in.object(get("configured"), path("configured"));
  for (const auto &[name, number] : configured.items()) {
    m.configured[name] = in.integer(number, field_path(path("configured"), name));
  }
  const json &notes = in.array(get("notes"), path("notes"));
  for (std::size_t i = 0; i < notes.size(); ++i) {
    m.notes.push_back(in.string(notes[i], path("notes") + "[" + std::to_string(i) + "]"));
  }
  return m;
}

// ------------------------------------------------------------------ machine

Machine read_machine(const Reader &in, const json &document) {
  in.object(document, "");
  const json *version = nullptr;
  if (const auto found = document.find("schema_version"); found != document.end()) {
    version = &*found;
  } else {
    in.fail("schema_version", "missing required field (this parjava reads schema_version " +
                                  std::to_string(machine_schema_version) +
                                  "; is this a parjava machine description?)");
  }
  const std::int64_t schema = in.integer(*version, "schema_version");
  if (schema != machine_schema_version) {
    in.fail("schema_version", "this file has schema_version " + std::to_string(schema) +
                                  " but this parjava reads version " +
                                  std::to_string(machine_schema_version) +
                                  "; re-measure with `parjava netbench` or convert the file");
  }
  in.only(document, "",
          {"schema_version", "name", "description", "sources", "nodes", "cores_per_node",
           "ranks_per_node", "power", "intra_node", "inter_node", "threads", "measurement",
           "topology", "placement", "endpoint_contention", "node_names"});
  const auto get = [&](std::string_view key) -> const json & {
    return in.require(document, "", key);
  };
  const std::string name = in.string(get("name"), "name");
  NodeLayout layout;
  layout.nodes = in.count(get("nodes"), "nodes");
  layout.cores_per_node = in.count(get("cores_per_node"), "cores_per_node");
  layout.ranks_per_node = in.count(get("ranks_per_node"), "ranks_per_node");
  const double power = in.quantity(get("power"), "power", Dimension::Ratio);
  Network intra = read_network(in, get("intra_node"), "intra_node");
  std::optional<Network> inter;
  if (const json &value = get("inter_node"); !value.is_null()) {
    inter = read_network(in, value, "inter_node");
  }
  const ThreadCosts threads = read_threads(in, get("threads"), "threads");
  Machine machine = in.with_origin(
      [&] { return Machine(name, layout, std::move(intra), std::move(inter), threads, power); });
  if (const auto found = document.find("description"); found != document.end()) {
    machine.set_description(in.string(*found, "description"));
  }
  if (const auto found = document.find("sources"); found != document.end()) {
    std::vector<std::string> sources;
    const json &items = in.array(*found, "sources");
    for (std::size_t i = 0; i < items.size(); ++i) {
      sources.push_back(in.string(items[i], "sources[" + std::to_string(i) + "]"));
    }
    machine.set_sources(std::move(sources));
  }
  if (const auto found = document.find("measurement"); found != document.end()) {
    if (!found->is_null()) {
      machine.set_measurement(read_measurement(in, *found, "measurement"));
    }
  }
  // The wiring (additive to schema version 1: absent means a crossbar, block placement and
  // endpoint contention, what every machine had before).
  if (const auto found = document.find("node_names"); found != document.end()) {
    std::vector<std::string> names;
    const json &items = in.array(*found, "node_names");
    for (std::size_t i = 0; i < items.size(); ++i) {
      names.push_back(in.string(items[i], "node_names[" + std::to_string(i) + "]"));
    }
    in.with_origin([&] {
      machine.set_node_names(std::move(names));
      return 0;
    });
  }
  if (const auto found = document.find("topology"); found != document.end()) {
    const Topology topology = detail::read_topology(in, *found, "topology");
    machine = in.with_origin([&] { return machine.with_topology(topology); });
  }
  if (const auto found = document.find("placement"); found != document.end()) {
    const Placement placement = detail::read_placement_json(in, *found, "placement");
    machine = in.with_origin([&] { return machine.with_placement(placement); });
  }
  if (const auto found = document.find("endpoint_contention"); found != document.end()) {
    machine = machine.with_endpoint_contention(in.boolean(*found, "endpoint_contention"));
  }
  return machine;
}

} // namespace

Machine machine_from_json(std::string_view text, std::string_view origin) {
  const Reader in(origin);
  json document;
  try {
    document = json::parse(text);
  } catch (const json::exception &error) {
    // A syntax error, or a number JSON allows but a double cannot hold (1e309). nlohmann's
    // message ends with the byte offset; say it is not JSON and where.
    in.fail("", std::string("not valid JSON: ") + error.what());
  }
  return read_machine(in, document);
}

namespace {
json parse_document(const Reader &in, std::string_view text) {
  try {
    return json::parse(text);
  } catch (const json::exception &error) {
    in.fail("", std::string("not valid JSON: ") + error.what());
  }
}
} // namespace

Topology topology_from_json(std::string_view text, std::string_view origin) {
  const Reader in(origin);
  return detail::read_topology(in, parse_document(in, text), "topology");
}

std::string topology_to_json(const Topology &topology, int indent) {
  return detail::write_topology(topology).dump(indent);
}

Placement placement_from_json(std::string_view text, std::string_view origin) {
  const Reader in(origin);
  return detail::read_placement_json(in, parse_document(in, text), "placement");
}

std::string placement_to_json(const Placement &placement, int indent) {
  return detail::write_placement_json(placement).dump(indent);
}

std::string machine_to_json(const Machine &machine, int indent) {
  json out;
  out["schema_version"] = machine_schema_version;
  out["name"] = machine.name();
  out["description"] = machine.description();
  out["sources"] = machine.sources();
  out["nodes"] = machine.nodes();
  out["cores_per_node"] = machine.cores_per_node();
  out["ranks_per_node"] = machine.ranks_per_node();
  out["power"] = machine.power();
  out["intra_node"] = write_network(machine.intra_node());
  out["inter_node"] = machine.has_inter_node() ? write_network(machine.inter_node()) : json();
  out["threads"] = write_threads(machine.threads());
  out["topology"] = detail::write_topology(machine.topology());
  out["placement"] = detail::write_placement_json(machine.placement());
  out["endpoint_contention"] = machine.endpoint_contention();
  if (!machine.node_names().empty()) {
    out["node_names"] = machine.node_names();
  }
  if (const auto &measurement = machine.measurement(); measurement.has_value()) {
    out["measurement"] = write_measurement(*measurement);
  }
  return out.dump(indent) + "\n";
}

Machine load_machine(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    throw Error(ErrorKind::Machine,
                path + ": cannot open the machine description (" + std::strerror(errno) + ")");
  }
  std::ostringstream text;
  text << file.rdbuf();
  return machine_from_json(text.str(), path);
}

void save_machine(const Machine &machine, const std::string &path) {
  const std::string text = machine_to_json(machine);
  // Write next to the target and rename, so an interrupted save never leaves half a file.
  const std::string temporary = path + ".tmp";
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    if (!file) {
      throw Error(ErrorKind::Machine,
                  path + ": cannot write the machine description (" + std::strerror(errno) + ")");
    }
    file << text;
    if (!file.flush()) {
      throw Error(ErrorKind::Machine,
                  path + ": writing the machine description failed (" + std::strerror(errno) + ")");
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(temporary.c_str());
    throw Error(ErrorKind::Machine, path + ": cannot replace the file (" + reason + ")");
  }
}

} // namespace parjava::machine
