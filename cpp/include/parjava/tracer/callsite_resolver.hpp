// Turns (binary, file offset) into source file and line with the binary's DWARF line table
// (elfutils libdw), so call sites recorded as return addresses read as file:line. One resolver
// serves every process of a run: after ASLR is undone by MemoryMap, the same call site in
// different ranks is the same key and is resolved once.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace parjava::tracer {

struct SourceLine {
  std::string file; // as recorded in DWARF (absolute when the compiler knew the directory)
  std::uint32_t line = 0;
  std::string function; // enclosing function (demangled) where the symbol table has it
};

class CallSiteResolver {
public:
  CallSiteResolver();
  ~CallSiteResolver();
  CallSiteResolver(const CallSiteResolver &) = delete;
  CallSiteResolver &operator=(const CallSiteResolver &) = delete;

  // The source line of the call instruction that returns to `return_offset` (a file offset in
  // `binary`); nullopt when the binary cannot be read or has no line information.
  std::optional<SourceLine> resolve_return_address(const std::string &binary,
                                                   std::uint64_t return_offset);
  // The source line containing the instruction at `offset`.
  std::optional<SourceLine> resolve(const std::string &binary, std::uint64_t offset);

  // Binaries that could not be opened, or where addresses had no line information, with the
  // reason (for the assembly report).
  [[nodiscard]] std::map<std::string, std::string> failures() const;

private:
  struct Module;
  Module *module_for(const std::string &binary);

  std::map<std::string, std::unique_ptr<Module>> modules_;
  std::map<std::pair<std::string, std::uint64_t>, std::optional<SourceLine>> cache_;
};

} // namespace parjava::tracer
