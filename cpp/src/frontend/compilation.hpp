// Parsing the user's sources with Clang: the compilation database (flags or
// compile_commands.json), the include paths a standalone tool needs (Clang's resource directory,
// Open MPI's headers, GCC's omp.h), and Clang's errors turned into one FrontendError.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <clang/Frontend/ASTUnit.h>
#include <clang/Tooling/Syntax/Tokens.h>

#include "parjava/frontend/build_options.hpp"
#include "pragma_macros.hpp"

namespace parjava::frontend {

// How one source file is compiled: the compiler command line as the user gave it (for the
// instrumented copy) and the directory it runs in.
struct CompileCommand {
  std::string file;                   // absolute path
  std::string directory;              // working directory of the command
  std::vector<std::string> arguments; // argv, compiler first, including the source file
};

struct ParsedSources {
  std::vector<std::unique_ptr<clang::ASTUnit>> units; // one per source, in order
  std::vector<CompileCommand> commands;               // parallel to units
  // The expanded token streams, parallel to units when BuildOptions::keep_tokens is set (the
  // estimation code writes a macro use out expanded when a probe belongs inside it).
  std::vector<std::unique_ptr<clang::syntax::TokenBuffer>> tokens;
  // Definitions `#define NAME #pragma ...` read as `_Pragma("...")` (pragma_macros.hpp).
  std::vector<PragmaMacro> pragma_macros;
};

// Parse every source; throws Error(Frontend) with Clang's first errors if any file does not
// compile, and Error(Usage) for missing files or an unreadable compilation database.
ParsedSources parse_sources(const BuildOptions &options);

// Open MPI's include directories (`mpicc --showme:compile`), empty when mpicc is missing.
const std::vector<std::string> &mpi_include_dirs();

// The compiler a source is built with when no compilation database names one.
std::string default_compiler(const std::string &file);

bool is_cxx_file(const std::string &file);

} // namespace parjava::frontend
