// Program inputs looked up by name in the command line's text (issue 12, program inputs become
// parameters). The Mantevo mini-apps (miniFE and its kin) join argv into one string and read
// each value by its key: `read_args_into_string(argc, argv, argstring);` then
// `params.nx = parse_parameter<int>(argstring, "nx", 10);`, which accepts "nx=40", "nx 40" and
// "-nx 40". A call with an arithmetic result, a key-like string literal argument and an argument
// holding the command line (argv, or a string a call filled from argv) is such a lookup: the
// variable it sets is the input named after the key, with the argument after the key as the
// program's default when it is a constant.
//
// An input file read into a table and looked up by key works the same way: LANL PENNANT's
// `cstop = inp->getInt("cstop", 999999);` (Driver.cc:54) is a const method of a program class
// with an arithmetic result and a key literal. Its value is measured by the estimation run and
// named after the variable it sets; a command line does not set it (`params=` does). A free
// function of the program given a key literal and no command line is such a lookup when it opens
// or reads a file, itself or through the functions it calls: UoB-HPC/flow's
// `mesh.global_nx = get_int_parameter("nx", flow_params)`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "variables.hpp"

namespace parjava::frontend {

struct KeyedLookup {
  std::string key;                  // "nx"
  std::vector<std::string> options; // the spellings a command line may use: nx, -nx, --nx
  std::optional<double> fallback;   // the default argument, when constant
  std::string what;                 // the call as written, shortened
  bool file = false;                // a lookup in a table or file, not the command line
};

std::optional<KeyedLookup> keyed_lookup(const clang::Expr *value, VariableResolver &vars);

} // namespace parjava::frontend
