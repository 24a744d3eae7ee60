// The simulator's event queue: a 4-ary min-heap of 24-byte entries ordered by (time, seq), seq
// being LogGOPSim's insertion counter `aqtime` (anchor §4), so the order is total and equal to
// LogGOPSim's. A 4-ary heap halves the depth of a binary heap and keeps the four children of a
// node in one or two cache lines. Private to the loggp part.
#pragma once

#include <cstdint>
#include <vector>

#include "parjava/loggp/loggp_rules.hpp"

namespace parjava::loggp {

// What a queue entry stands for (kept in the top two bits of Event::info).
enum class EntryKind : std::uint32_t {
  Operation = 0, // op = the operation, info = its host
  Message = 1,   // op = the send whose message this is, info = the sender host
  Group = 2,     // op = a blocked group id (see blocked_groups.hpp), seq = its first member
};

struct Event {
  SimTime time;
  std::uint64_t seq;
  std::uint32_t op;
  std::uint32_t info; // host (30 bits) | kind << 30

  static constexpr std::uint32_t kHostMask = (1U << 30U) - 1U;
  [[nodiscard]] EntryKind kind() const noexcept { return static_cast<EntryKind>(info >> 30U); }
  [[nodiscard]] std::uint32_t host() const noexcept { return info & kHostMask; }
  static std::uint32_t pack(EntryKind kind, std::uint32_t host) noexcept {
    return host | (static_cast<std::uint32_t>(kind) << 30U);
  }
};

[[nodiscard]] inline bool earlier(const Event &a, const Event &b) noexcept {
  return a.time < b.time || (a.time == b.time && a.seq < b.seq);
}
[[nodiscard]] inline bool earlier(SimTime time, std::uint64_t seq, const Event &b) noexcept {
  return time < b.time || (time == b.time && seq < b.seq);
}

class EventQueue {
public:
  [[nodiscard]] bool empty() const noexcept { return heap_.empty(); }
  [[nodiscard]] std::size_t size() const noexcept { return heap_.size(); }
  [[nodiscard]] const Event &top() const noexcept { return heap_.front(); }
  void reserve(std::size_t n) { heap_.reserve(n); }

  void push(const Event &e) {
    std::size_t hole = heap_.size();
    heap_.push_back(e);
    while (hole > 0) {
      const std::size_t parent = (hole - 1U) / 4U;
      if (!earlier(e, heap_[parent])) {
        break;
      }
      heap_[hole] = heap_[parent];
      hole = parent;
    }
    heap_[hole] = e;
  }

  Event pop() {
    const Event result = heap_.front();
    const Event last = heap_.back();
    heap_.pop_back();
    const std::size_t n = heap_.size();
    if (n > 0) {
      std::size_t hole = 0;
      for (;;) {
        const std::size_t first_child = 4U * hole + 1U;
        if (first_child >= n) {
          break;
        }
        std::size_t best = first_child;
        const std::size_t end = first_child + 4U < n ? first_child + 4U : n;
        for (std::size_t c = first_child + 1U; c < end; ++c) {
          if (earlier(heap_[c], heap_[best])) {
            best = c;
          }
        }
        if (!earlier(heap_[best], last)) {
          break;
        }
        heap_[hole] = heap_[best];
        hole = best;
      }
      heap_[hole] = last;
    }
    return result;
  }

  [[nodiscard]] std::size_t capacity_bytes() const noexcept {
    return heap_.capacity() * sizeof(Event);
  }

private:
  std::vector<Event> heap_;
};

} // namespace parjava::loggp
