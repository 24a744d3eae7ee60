#include "finding_sink.hpp"

#include <algorithm>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace parjava::analysis {

std::vector<Finding> FindingSink::take_sorted() {
  // Sorting 16-byte keys and moving each row once is several times faster than sorting the
  // 72-byte rows.
  struct Key {
    trace::Timestamp time;
    std::uint32_t location;
    std::uint32_t row;
  };
  std::vector<Key> keys;
  keys.reserve(size_);
  std::uint32_t row = 0;
  for (const auto &chunk : chunks_) {
    for (const auto &f : chunk) {
      keys.push_back({f.time, f.location, row++});
    }
  }
  std::sort(keys.begin(), keys.end(), [](const Key &a, const Key &b) {
    return a.time != b.time ? a.time < b.time
                            : (a.location != b.location ? a.location < b.location : a.row < b.row);
  });
  // The rows are moved into the result chunk by chunk, each chunk freed as soon as it is
  // copied, and then permuted in place by following the permutation's cycles: the transient
  // peak is the result plus the keys (72 + 16 bytes per finding, plus one chunk), where
  // gathering into a second vector held the chunks, the keys and the result (160, issue 15).
  std::vector<Finding> out;
  out.reserve(size_);
  for (auto &chunk : chunks_) {
    out.insert(out.end(), chunk.begin(), chunk.end());
    std::vector<Finding>().swap(chunk);
#if defined(__GLIBC__)
    // A freed chunk in the middle of the heap stays resident until trimmed.
    malloc_trim(0);
#endif
  }
  chunks_.clear();
  size_ = 0;
  // out[i] must become the row keys[i].row; a placed position's key is set to itself.
  const auto n = static_cast<std::uint32_t>(out.size());
  for (std::uint32_t start = 0; start < n; ++start) {
    if (keys[start].row == start) {
      continue;
    }
    const Finding first = out[start];
    std::uint32_t at = start;
    for (;;) {
      const std::uint32_t from = keys[at].row;
      keys[at].row = at;
      if (from == start) {
        out[at] = first;
        break;
      }
      out[at] = out[from];
      at = from;
    }
  }
  return out;
}

} // namespace parjava::analysis
