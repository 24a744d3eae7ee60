#include "parjava/netbench/message_sizes.hpp"

namespace parjava::netbench {

std::vector<std::uint64_t> ping_pong_sizes(std::uint64_t max_bytes) {
  std::vector<std::uint64_t> sizes{0};
  for (std::uint64_t power = 1; power <= max_bytes; power *= 2) {
    if (power >= 4 && power / 4 * 3 > sizes.back()) {
      sizes.push_back(power / 4 * 3); // the midpoint between power / 2 and power
    }
    sizes.push_back(power);
    if (power > max_bytes / 2) {
      break;
    }
  }
  if (sizes.back() < max_bytes) {
    if (sizes.back() / 2 * 3 < max_bytes) {
      sizes.push_back(sizes.back() / 2 * 3);
    }
    sizes.push_back(max_bytes);
  }
  return sizes;
}

std::vector<std::uint64_t> sparse_sizes(std::uint64_t max_bytes) {
  std::vector<std::uint64_t> sizes{0};
  for (std::uint64_t power = 1; power <= max_bytes; power *= 4) {
    sizes.push_back(power);
    if (power > max_bytes / 4) {
      break;
    }
  }
  if (sizes.back() < max_bytes) {
    sizes.push_back(max_bytes);
  }
  return sizes;
}

} // namespace parjava::netbench
