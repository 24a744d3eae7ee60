// The first half of the frontend pipeline: parse the sources, collect the functions of the
// input (templates instantiated, lambdas), build the control structure of each, name the
// variables, and run the control-variable analysis. The model emitter and the estimation-code
// instrumenter both work from the result, so both agree on what every node is.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "calls.hpp"
#include "compilation.hpp"
#include "expression_writer.hpp"
#include "parjava/frontend/build_options.hpp"
#include "program.hpp"

namespace parjava::frontend {

// An MPI argument the model cannot compute: the estimation run records its value.
struct ValueProbeSite {
  std::uint32_t node = 0; // model id of the cfc
  std::string argument;   // model argument name
  std::string unit;       // model text the measured mean is multiplied by
  const clang::Expr *expr = nullptr;
};

// Where the instrumenter puts one probe: the structure node it measures and its slot.
struct ProbeSite {
  std::uint32_t slot = 0;
  std::uint8_t kind = 0; // ProbeKind
  StructIndex node = kNoStruct;
  const clang::Expr *value = nullptr; // Value probes
  // Input probes: the statement at whose end the input holds its value, and the variable as
  // written there (`cmd.nSteps`).
  const clang::Stmt *after = nullptr;
  std::string spelling{};
  // A timing probe of a function called from measured nests and from other places: silent
  // while such a nest runs (PJ_QBEGIN). A Fragment probe whose nest calls program functions:
  // its executions make those probes silent (probe_planner.cpp, quiet functions).
  bool quiet = false;
  bool quiets = false;
};

struct AnalysedSources {
  BuildOptions options;
  ParsedSources parsed;
  Program program;
  std::unique_ptr<CallClassifier> calls;
  std::unique_ptr<ExpressionWriter> writer;
  FunctionId entry = kNoFunction;
  std::vector<ValueProbeSite> value_probes; // filled by the model emitter
  std::vector<ProbeSite> probe_sites;       // filled by the probe planner
};

std::unique_ptr<AnalysedSources> analyse_sources(const BuildOptions &options);

// A readable listing of the control structure with the analysis results (parjava-model
// --structure), for people checking what the builder understood.
std::string describe_structure(const Program &program);

// Turn text into a valid identifier: letters, digits and underscores, not starting with a
// digit.
std::string identifier(const std::string &text);

} // namespace parjava::frontend
