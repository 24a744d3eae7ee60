// Shared helpers for the interpreter tests: machines with known parameters and models written
// as compact JSON node lists.
#pragma once

#include <optional>
#include <string>

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
    "files": ["t.c"], "parameters": )" + params +
                           R"(, "functions": [{"name": "main", "params": [], "body": 1})" +
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
