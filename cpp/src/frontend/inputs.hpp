// Program inputs (issue 12 "Program inputs become parameters"): every value that reaches a loop
// bound, a message size or a peer from the command line, an input file or a broadcast of them
// becomes a named model parameter. The effects collector marks where a value is read
// (Program::inputs); this pass decides which of those reads are inputs (setup code run once,
// not data changing inside a loop), finds the command-line options that set them (a strcmp of
// argv[i] around `atoi(argv[i + 1])`, getopt's `case 'N':` and getopt_long's option table,
// option-table registrations), moves a registered option's value to the call that parses argv,
// and names the parameters after their variables.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "program.hpp"

namespace parjava::frontend {

// Runs after every function's structure is built and before variables are named (parameter
// names are reserved first, so no variable shadows one).
void analyse_inputs(Program &program);

// A parameter's name from the variable it sets: the last component of its source name
// (`cmd.nSteps` -> `nSteps`), with `_` appended where it would clash with a builtin or argv<k>.
std::string parameter_base_name(const Variable &v);

// The value a command line gives one of `options` ("-N 100", "-N100" for one-letter options,
// "--nSteps 100", "--nSteps=100"); nullopt when no option of the list is on it. `argv[0]` is
// the program. `position` k > 1 takes the k-th value after a separate option (`-n 20 30 40`).
std::optional<std::string> option_value(const std::vector<std::string> &argv,
                                        const std::vector<std::string> &options, int position = 1);

} // namespace parjava::frontend
