// Variables that always hold main's argv (issue 12, program inputs become parameters). Real
// programs read their command line in a helper: `parse(argc, argv, &opts)` reads `argv[1]` as
// its own parameter, and HPCG's HPCG_Init(&argc, &argv, params) copies `char **argv = *argv_p;`
// first. A constant index of such a variable is a position of the command line (argv_index in
// calls.cpp), so the value is the parameter `argvK` that a new command line sets.
#pragma once

#include "calls.hpp"
#include "program.hpp"

namespace parjava::frontend {

// Fills program.argv_aliases: a parameter every live call passes main's argv (or an alias of
// it) to; a parameter every live call passes `&argv` to, and a local initialised from `*` such a
// pointer or from an alias. None of them may be assigned or stepped (`++argv` shifts positions).
// Also fills program.argv_records: the records with a `char **` field that a live call passes
// together with argv (`Arguments_create(&args, argc, argv)`).
void find_argv_aliases(Program &program, const CallClassifier &calls);

} // namespace parjava::frontend
