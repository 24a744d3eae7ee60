// Shared helpers for the interpreter tests: machines with known parameters and models written
// as compact JSON node lists.
#pragma once

#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "parjava/interp/interpreter.hpp"
#include "parjava/machine/machine.hpp"
#include "parjava/model/model_json.hpp"

namespace parjava::interp::testing {

// Hockney network: T(n) = alpha + n / bandwidth, eager up to `eager` bytes; all ranks on one
// node unless ranks_per_node is given (then inter-node uses the same parameters x `inter`).
inline machine::Machine hockney(double alpha, double bandwidth, std::uint64_t eager = 1 << 20,
                                int ranks_per_node = 1 << 20, double inter_scale = 1.0) {
  machine::HockneyParameters intra{alpha, bandwidth, eager};
  machine::HockneyParameters inter{alpha * inter_scale, bandwidth / inter_scale, eager};
  machine::NodeLayout layout;
  layout.nodes = 4096;
  layout.cores_per_node = ranks_per_node;
  layout.ranks_per_node = ranks_per_node;
  return machine::Machine("test-hockney", layout, machine::Network::hockney(intra),
                          machine::Network::hockney(inter), machine::ThreadCosts{}, 1.0);
}

// LogGP with LogGOPSim's default parameters (anchors §3), in seconds.
inline machine::Machine loggp(double L = 2500e-9, double o = 1500e-9, double g = 1000e-9,
                              double G = 6e-9, double O = 0.0, std::uint64_t S = 65535) {
  machine::LogGPParameters p{L, o, g, G, O, S};
  machine::NodeLayout layout;
  layout.nodes = 4096;
  layout.cores_per_node = 1;
  layout.ranks_per_node = 1;
  return machine::Machine("test-loggp", layout, machine::Network::loggp(p),
                          machine::Network::loggp(p), machine::ThreadCosts{}, 1.0);
}

inline machine::Machine with_threads(const machine::Machine &m, machine::ThreadCosts costs) {
  return m.with_threads(costs);
}

// A model from its parameters and node list (the main function's body is node 1).
inline model::Model model_of(const std::string &params, const std::string &nodes,
                             const std::string &extra = "") {
  const std::string text = R"({"format": "parjava-model", "version": 1, "name": "t",
    "files": ["t.c"], "parameters": )" +
                           params + R"(, "functions": [{"name": "main", "params": [], "body": 1})" +
                           extra + R"(], "nodes": [)" + nodes + "]}";
  return model::model_from_json(text, "test model");
}

inline Prediction run(const model::Model &m, const machine::Machine &machine, std::int64_t np,
                      std::int64_t threads = 1, bool trace = false) {
  InterpretOptions o;
  o.processes = np;
  o.threads = threads;
  o.record_trace = trace;
  return interpret(m, machine, o);
}

} // namespace parjava::interp::testing

namespace parjava::interp::testing {

inline const NodeStatistics &stats(const Prediction &p, model::NodeId id) {
  for (const auto &s : p.nodes) {
    if (s.id == id) {
      return s;
    }
  }
  throw std::runtime_error("no node " + std::to_string(id));
}

// A machine whose network is free: only compute times count.
inline machine::Machine free_network() { return hockney(0.0, 1e30); }

} // namespace parjava::interp::testing

namespace parjava::interp::testing {

// A model whose main body is a switch on rank: `bodies[r]` is the comma-separated list of
// leaf node JSON objects (without ids) that rank r runs. Ids are assigned from 100 upward;
// source lines are 10 + the position in the rank's list, per rank r at line 100*r + ...
inline model::Model per_rank(const std::string &params,
                             const std::vector<std::vector<std::string>> &bodies) {
  std::string nodes;
  std::string cases;
  std::string children;
  std::uint32_t id = 100;
  for (std::size_t r = 0; r < bodies.size(); ++r) {
    const std::uint32_t body = id++;
    std::string leaf_ids;
    std::string leaves;
    for (std::size_t i = 0; i < bodies[r].size(); ++i) {
      const std::uint32_t leaf = id++;
      leaf_ids += (leaf_ids.empty() ? "" : ", ") + std::to_string(leaf);
      std::string obj = bodies[r][i];
      obj.insert(1, "\"id\": " + std::to_string(leaf) + ", \"source\": {\"file\": 0, \"line\": " +
                        std::to_string(100 * r + 10 + i) + "}, ");
      leaves += ",\n" + obj;
    }
    const std::uint32_t brk = id++;
    nodes += ",\n{\"id\": " + std::to_string(body) + ", \"kind\": \"seq\", \"children\": [" +
             leaf_ids + (leaf_ids.empty() ? "" : ", ") + std::to_string(brk) + "]}" + leaves +
             ",\n{\"id\": " + std::to_string(brk) + ", \"kind\": \"break\", \"target\": 2}";
    cases += std::string(cases.empty() ? "" : ", ") + "{\"labels\": [" + std::to_string(r) + "]}";
    children += (children.empty() ? "" : ", ") + std::to_string(body);
  }
  const std::string all = "{\"id\": 1, \"kind\": \"seq\", \"children\": [2]},\n"
                          "{\"id\": 2, \"kind\": \"switch\", \"value\": \"rank\", \"cases\": [" +
                          cases + "], \"children\": [" + children + "]}" + nodes;
  return model_of(params, all);
}

inline std::string compute(double seconds) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", seconds);
  return std::string("{\"kind\": \"cb\", \"time\": ") + text + "}";
}

inline std::string op(const std::string &name, const std::string &args) {
  return "{\"kind\": \"cfc\", \"op\": \"" + name + "\", \"args\": {" + args + "}}";
}

} // namespace parjava::interp::testing
