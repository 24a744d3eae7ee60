// One program out of a compilation database that builds several (issue 12, whole programs):
// ORNL minisweep's CMake database holds `sweep` and `tester`, each with its own `main`, beside
// the library files both link. Modelling the whole database put two mains in one program, and
// the model was the tester's. The program is the one the command line names (`./sweep ...`
// runs sweep.c's main): the units of the other mains are left out.
#pragma once

#include <optional>
#include <string>

#include "compilation.hpp"
#include "parjava/frontend/build_options.hpp"

namespace parjava::frontend {

// When `options` takes every file of a database (no sources named) and more than one unit
// defines `main`, keeps the unit whose file stem is the command line's program name (argv[0],
// or the model's name) and drops the other mains' units; returns a note saying which program
// was modelled. Throws Error(Usage) naming the files that define main when neither names one.
std::optional<std::string> choose_program(ParsedSources &parsed, const BuildOptions &options);

} // namespace parjava::frontend
