// Parsing /proc/<pid>/maps (memory_map.hpp).
#include "parjava/tracer/memory_map.hpp"

#include <algorithm>
#include <charconv>

namespace parjava::tracer {
namespace {

bool parse_hex(std::string_view s, std::uint64_t &out) {
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out, 16);
  return ec == std::errc() && ptr == s.data() + s.size();
}

std::string_view next_field(std::string_view &line) {
  const auto start = line.find_first_not_of(' ');
  if (start == std::string_view::npos) {
    line = {};
    return {};
  }
  line.remove_prefix(start);
  const auto end = line.find(' ');
  const auto field = line.substr(0, end);
  line.remove_prefix(end == std::string_view::npos ? line.size() : end);
  return field;
}

} // namespace

MemoryMap MemoryMap::parse(std::string_view text) {
  MemoryMap map;
  while (!text.empty()) {
    const auto eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    // start-end perms offset dev inode [path]
    const auto range = next_field(line);
    next_field(line); // perms
    const auto offset = next_field(line);
    next_field(line); // dev
    next_field(line); // inode
    const auto path_start = line.find_first_not_of(' ');
    const auto path =
        path_start == std::string_view::npos ? std::string_view{} : line.substr(path_start);
    const auto dash = range.find('-');
    Mapping m;
    if (dash == std::string_view::npos || !parse_hex(range.substr(0, dash), m.start) ||
        !parse_hex(range.substr(dash + 1), m.end) || !parse_hex(offset, m.offset) ||
        m.end <= m.start) {
      continue;
    }
    m.path = std::string(path);
    map.mappings_.push_back(std::move(m));
  }
  std::sort(map.mappings_.begin(), map.mappings_.end(),
            [](const Mapping &a, const Mapping &b) { return a.start < b.start; });
  return map;
}

std::optional<ResolvedAddress> MemoryMap::locate(std::uint64_t address) const {
  auto it = std::upper_bound(mappings_.begin(), mappings_.end(), address,
                             [](std::uint64_t a, const Mapping &m) { return a < m.start; });
  if (it == mappings_.begin()) {
    return std::nullopt;
  }
  --it;
  if (address >= it->end) {
    return std::nullopt;
  }
  ResolvedAddress r;
  r.mapping_size = it->end - it->start;
  r.offset_in_mapping = address - it->start;
  if (!it->path.empty() && it->path.front() == '/') {
    r.path = it->path;
    r.file_offset = it->offset + r.offset_in_mapping;
  }
  return r;
}

} // namespace parjava::tracer
