// How the model builder finds and compiles the user's sources: files with flags, or a
// compile_commands.json (the way clang-tools-extra tools take their input).
#pragma once

#include <string>
#include <vector>

namespace parjava::frontend {

struct BuildOptions {
  // Source files (.c, .cpp, .cc, .cxx). With a compilation database and no sources, every file
  // of the database is used.
  std::vector<std::string> sources;
  // Compiler flags for every source (-I, -D, -std=..., -O2, -fopenmp); link flags (-l, -L) are
  // accepted and ignored while parsing.
  std::vector<std::string> args;
  // A compile_commands.json file or the directory holding it ("" when flags are given).
  std::string compile_commands;
  // Entry function of the program.
  std::string entry = "main";
  // Model name ("" derives it from the first source file).
  std::string name;
  // The command line the program will run with (argv[0] first): the default values of the
  // model's program parameters argc and argv1, argv2, ... (empty: argc = 1, the program's own
  // defaults apply).
  std::vector<std::string> argv;
  // Add Open MPI's include path (from `mpicc --showme:compile`) so <mpi.h> is found.
  bool find_mpi = true;
  // Keep the expanded token stream of every source (the instrumenter sets it: probes inside a
  // macro use are written into the use's expansion).
  bool keep_tokens = false;
};

} // namespace parjava::frontend
