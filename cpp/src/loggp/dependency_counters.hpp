// Per-op counts of unsatisfied dependencies for the LogGP engine, as narrow as the schedule
// allows: 4 bits when no op has 8 or more incoming edges (every generated pattern; issue 18's
// memory bound of 200 bytes per rank beyond 16 per op leaves no room for a byte per op on
// schedules with 80 ops per rank), else 8, 16 or 32. A double completion (an eager send whose
// message a rendezvous-sized recv takes, anchor §4 quirk 3) decrements the dependents of an op
// once more, as LogGOPSim does; a counter already 0 then wraps to at least 2^W - (2^(W-1) - 1),
// above any real count, and never reaches 0 again. Private to the loggp part.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "parjava/loggp/goal_schedule.hpp"
#include "parjava/loggp/huge_page_allocator.hpp"

namespace parjava::loggp {

// One counter per op, each a T (huge pages: huge_page_allocator.hpp).
template <class T> class WideCounters {
public:
  static constexpr std::uint32_t kLimit = std::uint32_t{1} << (8U * sizeof(T) - 1U);

  explicit WideCounters(std::size_t n) : v_(n) {}
  [[nodiscard]] std::uint32_t get(OpId i) const noexcept { return v_[i]; }
  void set(OpId i, std::uint32_t value) noexcept { v_[i] = static_cast<T>(value); }
  // Decrement; true when the count reaches 0.
  bool decrement(OpId i) noexcept { return --v_[i] == 0; }
  [[nodiscard]] std::size_t bytes() const noexcept { return v_.capacity() * sizeof(T); }

private:
  std::vector<T, HugePageAllocator<T>> v_;
};

// Two counters per byte (op i in the low nibble of byte i / 2 when i is even).
class NibbleCounters {
public:
  static constexpr std::uint32_t kLimit = 8;

  explicit NibbleCounters(std::size_t n) : v_((n + 1U) / 2U) {}
  [[nodiscard]] std::uint32_t get(OpId i) const noexcept {
    return (v_[i >> 1U] >> shift(i)) & 0xfU;
  }
  void set(OpId i, std::uint32_t value) noexcept {
    std::uint8_t &b = v_[i >> 1U];
    b = static_cast<std::uint8_t>((b & ~(0xfU << shift(i))) | ((value & 0xfU) << shift(i)));
  }
  bool decrement(OpId i) noexcept {
    const std::uint32_t value = (get(i) - 1U) & 0xfU;
    set(i, value);
    return value == 0;
  }
  [[nodiscard]] std::size_t bytes() const noexcept { return v_.capacity(); }

private:
  static std::uint32_t shift(OpId i) noexcept { return (i & 1U) * 4U; }
  std::vector<std::uint8_t, HugePageAllocator<std::uint8_t>> v_;
};

} // namespace parjava::loggp
