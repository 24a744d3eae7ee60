// The program's own headers, copied for the estimation code (seed 000 notes §3.7.1: the probed
// program is the user's, compiled with the user's flags). Header-only C++ -- miniFE's templates,
// inline kernels -- holds its work in headers, so their probes must be compiled in every unit
// that includes them. Every header of the program a unit reads is copied, probed or not, into
// a mirror of its absolute path; each include directory of a compile command is preceded by its
// mirror, so an #include resolves to the copy of the file it resolved to before, and one copy
// serves every unit (the same inline function everywhere, as the one-definition rule wants).
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <clang/Basic/SourceManager.h>

#include "parjava/frontend/instrument.hpp"
#include "source_edits.hpp"

namespace parjava::frontend {

class HeaderMirror {
public:
  explicit HeaderMirror(std::filesystem::path root) : root_(std::move(root)) {}

  // Where the copy of `original` (an absolute real path) is written.
  [[nodiscard]] std::filesystem::path copy(const std::string &original) const;
  // The mirror of a directory.
  [[nodiscard]] std::filesystem::path directory_of(const std::filesystem::path &dir) const;

  // Probes placed in a header by one unit (units place probes in the functions they own).
  void edit(const std::string &header, std::vector<SourceEdits::Piece> pieces);
  // Every editable header a unit read.
  void add_headers_of(const clang::SourceManager &sm);

  // Put the mirror of each -I / -iquote directory of `command` (run in `cwd`) before it.
  void redirect(std::vector<std::string> &command, const std::string &cwd) const;

  // Write every copy; throws Error(Run) when a header cannot be read or written.
  [[nodiscard]] std::vector<HeaderCopy> write() const;

private:
  std::filesystem::path root_;
  std::map<std::string, std::vector<SourceEdits::Piece>> edits_;
  std::set<std::string> headers_;
};

} // namespace parjava::frontend
