// What the estimation code measures and where the results go in the model (seed 000 notes
// §3.7, §4, §6; seed 003 notes §6.3 step 4: the map from probe numbers to model blocks).
// Every probe owns one slot of the runtime's arrays; the slot number is written into the
// instrumented source and into the estimates file, and the plan maps it back to a model node.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "parjava/model/node.hpp"

namespace parjava::frontend {

enum class ProbeKind : std::uint8_t {
  Block,      // entry/exit of a computational block or external call (cb, efc)
  Fragment,   // entry/exit of a loop without communication: the whole loop per execution
  Iterations, // the time of each iteration of a fragment's loop (balanced-loop test, §3.7.3)
  Trips,      // iterations per execution of a loop (a counter in the body)
  Branch,     // evaluations and true outcomes of an opaque if condition
  Switch,     // selector values of an opaque switch
  Value,      // the value of an MPI argument the model cannot compute
  Function,   // entry/exit of an unstructured function (its reduced block)
  Prologue,   // a constructor's member initialisers: from the marked call site to its body
  Sized,      // (bytes, time) of an external call whose cost follows its size (malloc, memcpy)
  Input,      // the value a program input (a model parameter) has where the program reads it
};

std::string_view probe_kind_name(ProbeKind kind);

struct Probe {
  std::uint32_t slot = 0;
  ProbeKind kind = ProbeKind::Block;
  model::NodeId node = 0;
  std::string argument; // Value: the cfc argument it stands for ("bytes", "dest");
                        // Input: the model parameter
  std::string unit;     // Value: model text the mean is multiplied by ("8": a count of doubles)
  // Sized: the callee, its bytes in model syntax ("" when the model cannot compute them; the
  // argument's text is then `argument`), and whether it allocates (the heap grows).
  std::string callee;
  std::string bytes;
  bool allocates = false;
};

// A loop whose measurements can reduce it to a block (notes 000 §3.7.2-§3.7.4): loops without
// communication, and opaque loops whose trip counts the model needs.
struct PlannedLoop {
  model::NodeId node = 0;
  std::string trips;          // the trip count per execution in model syntax; "" if not known
  std::string variable;       // a counted loop's variable ...
  std::string final_value;    // ... and its value after the loop, for code that reads it
  bool timed = false;         // has a Fragment probe of its own
  bool by_iterations = false; // timed by its Iterations probe alone (OpenMP work-sharing)
  // ... and that probe times each execution whole, from outside the directive (a sample is
  // the execution's time per iteration of a thread's share, with no probe inside the loop).
  bool by_construct = false;
  bool communicates = false;
};

struct EstimationPlan {
  std::vector<Probe> probes;
  std::vector<PlannedLoop> loops;
  std::uint32_t slots = 0;

  [[nodiscard]] const Probe *find(model::NodeId node, ProbeKind kind) const;
  [[nodiscard]] const PlannedLoop *loop(model::NodeId node) const;
  [[nodiscard]] std::string to_json() const;
  static EstimationPlan from_json(std::string_view text);
};

} // namespace parjava::frontend
