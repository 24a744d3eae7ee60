// Object-like macros that hold a directive (`#define OMPFORSCHEDULE #pragma omp for`). They work
// only in builds that preprocess to a file first and compile that (miniMD's Makefiles: `-E`,
// then `-c` of the output), where the expansion starts a line and becomes a pragma. A compiler
// run on the source itself, Clang parsing for the model or mpicc compiling the estimation code,
// sees a stray '#'. Both read the definition as `_Pragma("omp for")` instead, which expands to
// the same directive in every build; the text keeps its lines (offsets after the definition
// move, so every reader of a source uses the same rewritten text).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <llvm/Support/VirtualFileSystem.h>

namespace parjava::frontend {

struct PragmaMacro {
  std::string file;
  std::uint32_t line = 0;
  std::string name;   // OMPFORSCHEDULE
  std::string pragma; // omp for schedule(static)
};

// The text with every such definition rewritten, or nothing when it has none. `found` (if
// given) receives one entry per rewritten definition (without the file).
std::optional<std::string> rewrite_pragma_macros(std::string_view text,
                                                 std::vector<PragmaMacro> *found = nullptr);

// The real file system, except that the program's own files (not under /usr or /opt) are read
// rewritten; `found` collects the definitions rewritten, with their files.
llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem>
pragma_macro_file_system(std::vector<PragmaMacro> &found);

} // namespace parjava::frontend
