// Reference parameters a program's own parsing function only reads inputs into (issue 12,
// program inputs become parameters). Mantevo's miniXyce parses its options in a helper that
// takes every setting by reference, `get_parms(argc, argv, ..., double &t_stop, ...)`, which
// copies argv into strings and calls `parse_command_line(argc, argv_strings, ..., t_stop, ...)`
// for the command line, a parameters file and a defaults file in turn; each sets
// `t_stop = atof(argv[i].data());` under `parm_name == "tstop"`. The caller's t_stop was data
// written through a reference, so the time loop `while (t < t_stop)` replayed its estimation
// count at every -tstop. When every write of such a parameter is a number read (or a constant,
// or the parameter passed on to another such parameter), what the call leaves in the caller's
// variable is a program input: measured by the estimation run, named after the variable, and
// set by `params=` (origin "helper").
#pragma once

#include <map>
#include <string>

#include "calls.hpp"
#include "program.hpp"

namespace parjava::frontend {

// Fills program.input_references: the canonical declaration of each such parameter -> what the
// function reads into it ("atof(argv[i].data())", for the parameter's documentation).
void find_input_references(Program &program, const CallClassifier &calls);

} // namespace parjava::frontend
