// Small queries on the Trace container; reading, writing and matching live in their own files.
#include "parjava/trace/trace.hpp"

#include <algorithm>
#include <unordered_set>

namespace parjava::trace {

std::int32_t Trace::process_count() const {
  std::unordered_set<std::int32_t> ranks;
  for (const auto &loc : locations) {
    if (loc.rank != kNoRank) {
      ranks.insert(loc.rank);
    }
  }
  return static_cast<std::int32_t>(ranks.size());
}

std::size_t Trace::memory_bytes() const {
  const auto &e = events;
  auto bytes_of = [](const auto &v) { return v.capacity() * sizeof(v[0]); };
  return bytes_of(e.time) + bytes_of(e.kind) + bytes_of(e.location) + bytes_of(e.region) +
         bytes_of(e.peer) + bytes_of(e.tag) + bytes_of(e.comm) + bytes_of(e.bytes) +
         bytes_of(e.aux) + bytes_of(e.callsite) + bytes_of(e.match) + bytes_of(e.link) +
         bytes_of(location_offsets) + bytes_of(collective_members) +
         collectives.capacity() * sizeof(CollectiveInstance);
}

} // namespace parjava::trace
