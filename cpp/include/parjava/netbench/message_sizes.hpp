// The message sizes netbench measures.
#pragma once

#include <cstdint>
#include <vector>

namespace parjava::netbench {

// 0, 1, 2, 3, 4, 6, 8, 12, ... : 0 B, every power of two up to `max_bytes` and the midpoint
// 3 * 2^(k-1) between neighbouring powers, plus `max_bytes` itself.
std::vector<std::uint64_t> ping_pong_sizes(std::uint64_t max_bytes);

// 0, 1, 4, 16, ... (powers of four) up to `max_bytes`, plus `max_bytes`: fewer sizes for the
// secondary curves (Sendrecv).
std::vector<std::uint64_t> sparse_sizes(std::uint64_t max_bytes);

} // namespace parjava::netbench
