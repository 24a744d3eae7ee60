// The estimation code (seed 000 notes §1.5 step 3, §6; seed 003 notes §6.5): an instrumented
// copy of the user's sources, written with Clang's Rewriter, with probes at the places the
// estimation plan names, plus the probe runtime. Compiling and running it is the caller's job
// (python/parjava/frontend.py does it with the user's compiler under mpirun).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "parjava/frontend/build_options.hpp"
#include "parjava/frontend/diagnostic.hpp"
#include "parjava/frontend/estimation_plan.hpp"
#include "parjava/model/model.hpp"

namespace parjava::frontend {

struct InstrumentedSource {
  std::string original;                      // the user's file
  std::string instrumented;                  // its probed copy
  std::string directory;                     // where the compile command runs
  std::vector<std::string> command;          // the user's compile command, on the probed copy
  std::vector<std::string> original_command; // the user's own, for the unmodified program
};

// A header of the program, copied (with the probes placed in it, if any) to a mirror directory
// the estimation code's include paths search first. Line k of the copy is line k + 1 (a #line
// directive names the original).
struct HeaderCopy {
  std::string original;
  std::string instrumented;
  bool probed = false; // whether any probe is in it
};

// Where a placed probe is: in the original file (what the compiler's messages name, through
// #line) and in the instrumented copy (the same line, after the copy's two header lines).
struct ProbeLocation {
  std::uint32_t slot = 0;
  std::string function; // model name of the function holding it
  std::string file;     // original file and line of the node it measures
  unsigned line = 0;
  std::string instrumented;
  unsigned instrumented_line = 0;
};

// A function written in a source file, by original lines (to name the function of an error).
struct InstrumentedFunction {
  std::string name;
  std::string file;
  unsigned first_line = 0;
  unsigned last_line = 0;
};

struct Instrumentation {
  model::Model model; // the model the plan's node ids refer to
  EstimationPlan plan;
  std::vector<Diagnostic> diagnostics;
  std::vector<InstrumentedSource> sources;
  std::vector<HeaderCopy> headers;      // the program's own headers, mirrored
  std::string runtime_source;           // parjava_probes.c (compile with -DPJ_SLOTS=<plan.slots>)
  std::string directory;                // where everything was written
  std::vector<ProbeLocation> locations; // every placed probe
  std::vector<InstrumentedFunction> functions; // every function with a body in the sources
};

// Build the model, plan the probes and write the estimation code into `directory` (created if
// missing). Probes that cannot be placed are left out of the plan (with a diagnostic); the
// functions named in `without` (model names) get none, for a caller whose compiler rejected
// their probes. Throws Error(Frontend) if the sources do not parse, Error(Run) if files cannot
// be written.
Instrumentation instrument(const BuildOptions &options, const std::string &directory,
                           const std::set<std::string> &without = {});

} // namespace parjava::frontend
