// Where the analyses put their findings during a scan: fixed-size chunks, so growing never
// copies what was found nor touches fresh memory twice (a doubling vector of a million findings
// would fault in about three times its final size), and a chunk freed by one scan is reused by
// the allocator in the next. take_sorted() returns one contiguous vector in report order.
#pragma once

#include <cstdint>
#include <vector>

#include "parjava/analysis/finding.hpp"

namespace parjava::analysis {

class FindingSink {
public:
  void push(const Finding &finding) {
    if (chunks_.empty() || chunks_.back().size() == kChunk) {
      chunks_.emplace_back();
      chunks_.back().reserve(kChunk);
    }
    chunks_.back().push_back(finding);
    ++size_;
  }
  [[nodiscard]] std::size_t size() const { return size_; }

  // All findings ordered by time, then location, then the order they were found in
  // (deterministic); the sink is empty afterwards.
  std::vector<Finding> take_sorted();

private:
  static constexpr std::size_t kChunkBits = 16;
  static constexpr std::size_t kChunk = std::size_t{1} << kChunkBits;
  std::vector<std::vector<Finding>> chunks_;
  std::size_t size_ = 0;
};

} // namespace parjava::analysis
