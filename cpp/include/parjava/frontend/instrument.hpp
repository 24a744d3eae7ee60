// The estimation code (seed 000 notes §1.5 step 3, §6; seed 003 notes §6.5): an instrumented
// copy of the user's sources, written with Clang's Rewriter, with probes at the places the
// estimation plan names, plus the probe runtime. Compiling and running it is the caller's job
// (python/parjava/frontend.py does it with the user's compiler under mpirun).
#pragma once

#include <string>
#include <vector>

#include "parjava/frontend/build_options.hpp"
#include "parjava/frontend/diagnostic.hpp"
#include "parjava/frontend/estimation_plan.hpp"
#include "parjava/model/model.hpp"

namespace parjava::frontend {

struct InstrumentedSource {
  std::string original;             // the user's file
  std::string instrumented;         // its probed copy
  std::string directory;            // where the compile command runs
  std::vector<std::string> command; // the user's compile command, on the probed copy
};

struct Instrumentation {
  model::Model model; // the model the plan's node ids refer to
  EstimationPlan plan;
  std::vector<Diagnostic> diagnostics;
  std::vector<InstrumentedSource> sources;
  std::string runtime_source; // parjava_probes.c (compile with -DPJ_SLOTS=<plan.slots>)
  std::string directory;      // where everything was written
};

// Build the model, plan the probes and write the estimation code into `directory` (created if
// missing). Throws Error(Frontend) if the sources do not parse, Error(Run) if files cannot be
// written.
Instrumentation instrument(const BuildOptions &options, const std::string &directory);

} // namespace parjava::frontend
