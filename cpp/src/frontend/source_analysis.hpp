// The first half of the frontend pipeline: parse the sources, collect the functions of the
// input (templates instantiated, lambdas), build the control structure of each, name the
// variables, and run the control-variable analysis. The model emitter and the estimation-code
// instrumenter both work from the result, so both agree on what every node is.
#pragma once

#include <memory>
#include <string>

#include "calls.hpp"
#include "compilation.hpp"
#include "expression_writer.hpp"
#include "parjava/frontend/build_options.hpp"
#include "program.hpp"

namespace parjava::frontend {

struct AnalysedSources {
  BuildOptions options;
  ParsedSources parsed;
  Program program;
  std::unique_ptr<CallClassifier> calls;
  std::unique_ptr<ExpressionWriter> writer;
  FunctionId entry = kNoFunction;
};

std::unique_ptr<AnalysedSources> analyse_sources(const BuildOptions &options);

// A readable listing of the control structure with the analysis results (parjava-model
// --structure), for people checking what the builder understood.
std::string describe_structure(const Program &program);

// Turn text into a valid identifier: letters, digits and underscores, not starting with a
// digit.
std::string identifier(const std::string &text);

} // namespace parjava::frontend
