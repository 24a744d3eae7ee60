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

enum class LocalDefinitions : std::uint8_t { Missing, Empty, Present };

// Whether a location's local definition file exists and holds any record. Writers (parjava,
// our benchmarks' generator) leave an empty one per location: the OTF2 chunk header and the
// end-of-file and end-of-buffer marks, 20 bytes. Reading it through the library allocates and
// clears a whole definition chunk (4 MiB by default) per location for nothing, several
// per cent of a load; such a file is recognised from its bytes instead. Anything else is
// Present and read by the library.
LocalDefinitions local_definitions(const std::string &path);

} // namespace parjava::trace::detail
