// A process's address space as /proc/<pid>/maps described it, to turn the raw addresses a
// traced process recorded (return addresses, lock variables) into addresses that mean the same
// in every process despite ASLR: (mapped file, offset in that file).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace parjava::tracer {

struct Mapping {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::uint64_t offset = 0; // offset in the file of `start`
  std::string path;         // empty for anonymous mappings; "[heap]", "[stack]", ... as given
};

// Where an address lies: a file and the offset in it, or an anonymous mapping (identified by
// its size and the offset of the address in it, the same for symmetric heaps on every PE).
struct ResolvedAddress {
  std::string path; // file path, or "" for anonymous / pseudo mappings
  std::uint64_t file_offset = 0;
  std::uint64_t mapping_size = 0;
  std::uint64_t offset_in_mapping = 0;
  [[nodiscard]] bool file_backed() const { return !path.empty() && path.front() == '/'; }
};

class MemoryMap {
public:
  MemoryMap() = default;
  // Parse the text of /proc/<pid>/maps; malformed lines are skipped.
  static MemoryMap parse(std::string_view text);

  [[nodiscard]] std::optional<ResolvedAddress> locate(std::uint64_t address) const;
  [[nodiscard]] bool empty() const { return mappings_.empty(); }
  [[nodiscard]] const std::vector<Mapping> &mappings() const { return mappings_; }

private:
  std::vector<Mapping> mappings_; // sorted by start
};

} // namespace parjava::tracer
