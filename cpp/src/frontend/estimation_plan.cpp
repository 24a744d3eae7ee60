#include "parjava/frontend/estimation_plan.hpp"

#include <nlohmann/json.hpp>

#include "parjava/error.hpp"

namespace parjava::frontend {

namespace {

constexpr ProbeKind kKinds[] = {ProbeKind::Block, ProbeKind::Fragment, ProbeKind::Iterations,
                                ProbeKind::Trips, ProbeKind::Branch,   ProbeKind::Switch,
                                ProbeKind::Value, ProbeKind::Function, ProbeKind::Prologue,
                                ProbeKind::Sized, ProbeKind::Input};

} // namespace

std::string_view probe_kind_name(ProbeKind kind) {
  switch (kind) {
  case ProbeKind::Block:
    return "block";
  case ProbeKind::Fragment:
    return "fragment";
  case ProbeKind::Iterations:
    return "iterations";
  case ProbeKind::Trips:
    return "trips";
  case ProbeKind::Branch:
    return "branch";
  case ProbeKind::Switch:
    return "switch";
  case ProbeKind::Value:
    return "value";
  case ProbeKind::Function:
    return "function";
  case ProbeKind::Prologue:
    return "prologue";
  case ProbeKind::Sized:
    return "sized";
  case ProbeKind::Input:
    return "input";
  }
  return "?";
}

const Probe *EstimationPlan::find(model::NodeId node, ProbeKind kind) const {
  for (const auto &p : probes) {
    if (p.node == node && p.kind == kind) {
      return &p;
    }
  }
  return nullptr;
}

const PlannedLoop *EstimationPlan::loop(model::NodeId node) const {
  for (const auto &l : loops) {
    if (l.node == node) {
      return &l;
    }
  }
  return nullptr;
}

std::string EstimationPlan::to_json() const {
  nlohmann::json doc;
  doc["format"] = "parjava-estimation-plan";
  doc["version"] = 1;
  doc["slots"] = slots;
  nlohmann::json probes_json = nlohmann::json::array();
  for (const auto &p : probes) {
    nlohmann::json j = {
        {"slot", p.slot}, {"kind", std::string(probe_kind_name(p.kind))}, {"node", p.node}};
    if (!p.argument.empty()) {
      j["argument"] = p.argument;
    }
    if (!p.unit.empty()) {
      j["unit"] = p.unit;
    }
    if (!p.callee.empty()) {
      j["callee"] = p.callee;
    }
    if (!p.bytes.empty()) {
      j["bytes"] = p.bytes;
    }
    if (p.allocates) {
      j["allocates"] = true;
    }
    probes_json.push_back(std::move(j));
  }
  doc["probes"] = std::move(probes_json);
  nlohmann::json loops_json = nlohmann::json::array();
  for (const auto &l : loops) {
    loops_json.push_back({{"node", l.node},
                          {"trips", l.trips},
                          {"variable", l.variable},
                          {"final", l.final_value},
                          {"timed", l.timed},
                          {"by_iterations", l.by_iterations},
                          {"by_construct", l.by_construct},
                          {"communicates", l.communicates}});
  }
  doc["loops"] = std::move(loops_json);
  return doc.dump(1);
}

EstimationPlan EstimationPlan::from_json(std::string_view text) {
  EstimationPlan plan;
  try {
    const nlohmann::json doc = nlohmann::json::parse(text);
    if (doc.value("format", "") != "parjava-estimation-plan") {
      throw Error(ErrorKind::Frontend, "not an estimation plan (format is not "
                                       "'parjava-estimation-plan')");
    }
    plan.slots = doc.at("slots").get<std::uint32_t>();
    for (const auto &j : doc.at("probes")) {
      Probe p;
      p.slot = j.at("slot").get<std::uint32_t>();
      p.node = j.at("node").get<model::NodeId>();
      const std::string kind = j.at("kind").get<std::string>();
      bool known = false;
      for (ProbeKind k : kKinds) {
        if (probe_kind_name(k) == kind) {
          p.kind = k;
          known = true;
        }
      }
      if (!known) {
        throw Error(ErrorKind::Frontend, "estimation plan: unknown probe kind '" + kind + "'");
      }
      p.argument = j.value("argument", "");
      p.unit = j.value("unit", "");
      p.callee = j.value("callee", "");
      p.bytes = j.value("bytes", "");
      p.allocates = j.value("allocates", false);
      plan.probes.push_back(std::move(p));
    }
    for (const auto &j : doc.at("loops")) {
      PlannedLoop l;
      l.node = j.at("node").get<model::NodeId>();
      l.trips = j.value("trips", "");
      l.variable = j.value("variable", "");
      l.final_value = j.value("final", "");
      l.timed = j.value("timed", false);
      l.by_iterations = j.value("by_iterations", false);
      l.by_construct = j.value("by_construct", false);
      l.communicates = j.value("communicates", false);
      plan.loops.push_back(std::move(l));
    }
  } catch (const nlohmann::json::exception &e) {
    throw Error(ErrorKind::Frontend, std::string("estimation plan: ") + e.what());
  }
  return plan;
}

} // namespace parjava::frontend
