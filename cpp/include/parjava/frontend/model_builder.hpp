// The model builder (issue 7; seed 000 notes §2.8, §3.5): C/C++ sources with their flags, or a
// compile_commands.json, become a program model with a source range on every node and a list
// of diagnostics saying what was reduced, what became opaque and what was not understood.
#pragma once

#include <string>
#include <vector>

#include "parjava/frontend/build_options.hpp"
#include "parjava/frontend/diagnostic.hpp"
#include "parjava/frontend/estimation_plan.hpp"
#include "parjava/model/model.hpp"

namespace parjava::frontend {

struct BuildResult {
  model::Model model; // validated
  std::vector<Diagnostic> diagnostics;
  EstimationPlan plan; // where the estimation code would measure (see instrument.hpp)
};

// Throws Error(Usage) for missing files or options, Error(Frontend) when the sources do not
// compile or have no entry function. Constructs the builder does not understand never throw:
// they are diagnostics.
BuildResult build_model(const BuildOptions &options);

// A readable listing of the control structure and analysis results, for checking what the
// builder understood (parjava-model --structure).
std::string describe_structure_of(const BuildOptions &options);

} // namespace parjava::frontend
