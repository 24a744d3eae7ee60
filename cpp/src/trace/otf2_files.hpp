// Where the files of an OTF2 archive are, checked before the library opens them so that a
// missing or empty file gets an error naming it.
#pragma once

#include <cstdint>
#include <string>

namespace parjava::trace::detail {

struct ArchiveFiles {
  std::string anchor;    // DIR/NAME.otf2
  std::string directory; // DIR
  std::string name;      // NAME

  [[nodiscard]] std::string global_definitions() const { return directory + "/" + name + ".def"; }
  [[nodiscard]] std::string events_of(std::uint64_t location) const {
    return directory + "/" + name + "/" + std::to_string(location) + ".evt";
  }
  [[nodiscard]] std::string definitions_of(std::uint64_t location) const {
    return directory + "/" + name + "/" + std::to_string(location) + ".def";
  }
};

// Resolve `path` (an anchor file or a directory with exactly one anchor) and check that the
// anchor and the global definitions exist and are not empty. Throws TraceError otherwise.
ArchiveFiles find_archive(const std::string &path);

// Size of a file, or -1 when it does not exist.
std::int64_t file_size(const std::string &path);

} // namespace parjava::trace::detail
