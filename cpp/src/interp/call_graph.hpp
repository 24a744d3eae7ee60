// What the compiler needs to know about the model's call graph: which calls are recursive (a
// frame per activation), whether every recursive cycle has a depth the model can compute
// (docs/interpreter.md "Calls and recursion"), the deepest non-recursive call chain, and which
// nodes have communication below them (shared opaque draws, docs/model-schema.md).
#pragma once

#include <cstdint>
#include <vector>

#include "parjava/interp/options.hpp"
#include "parjava/model/model.hpp"

namespace parjava::interp {

struct CallGraph {
  bool recursive = false;                   // some function reaches itself
  std::vector<std::uint8_t> in_cycle;       // per function: part of a recursive cycle
  std::vector<std::uint8_t> recursive_call; // per node: a ufc inside a recursive cycle
  std::vector<std::uint8_t> communicates;   // per node: an MPI/PGAS operation below it
  std::uint32_t max_static_depth = 1;       // deepest call chain when not recursive
};

// Analyse the call graph of `model`. Throws Error(Model) naming the cycle, its calls and their
// guards when a recursive cycle has no condition the model computes on its way (opaque guards
// only, unless options.allow_opaque_recursion; no guard at all, always).
CallGraph analyse_call_graph(const model::Model &model, const InterpretOptions &options);

} // namespace parjava::interp
