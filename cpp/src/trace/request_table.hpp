// PendingRequests: the posted, not yet completed requests of one process, by request id.
#pragma once

#include <cstdint>
#include <vector>

#include "parjava/trace/trace.hpp"

namespace parjava::trace::detail {

// Open-addressing map request id -> pending post event (linear probing, backward-shift
// deletion): a few pending requests per process, looked up once per request event.
class PendingRequests {
public:
  PendingRequests() : slots_(16) {}

  void clear() {
    if (size_ != 0) {
      for (auto &s : slots_) {
        s.event = kNoEvent;
      }
      size_ = 0;
    }
  }

  [[nodiscard]] EventIndex find(std::uint64_t id) const {
    for (auto s = home(id);; s = next(s)) {
      if (slots_[s].event == kNoEvent) {
        return kNoEvent;
      }
      if (slots_[s].id == id) {
        return slots_[s].event;
      }
    }
  }

  // Set the pending post of `id`, replacing an older one (a post never completed).
  void put(std::uint64_t id, EventIndex event) {
    if (2 * (size_ + 1) > slots_.size()) {
      grow();
    }
    auto s = home(id);
    while (slots_[s].event != kNoEvent && slots_[s].id != id) {
      s = next(s);
    }
    if (slots_[s].event == kNoEvent) {
      ++size_;
    }
    slots_[s] = {id, event};
  }

  void erase(std::uint64_t id) {
    auto s = home(id);
    for (;; s = next(s)) {
      if (slots_[s].event == kNoEvent) {
        return;
      }
      if (slots_[s].id == id) {
        break;
      }
    }
    // Backward-shift deletion keeps every probe chain unbroken without tombstones.
    auto hole = s;
    for (auto j = next(s); slots_[j].event != kNoEvent; j = next(j)) {
      const auto h = home(slots_[j].id);
      const bool movable = hole <= j ? (h <= hole || h > j) : (h <= hole && h > j);
      if (movable) {
        slots_[hole] = slots_[j];
        hole = j;
      }
    }
    slots_[hole].event = kNoEvent;
    --size_;
  }

private:
  struct Slot {
    std::uint64_t id = 0;
    EventIndex event = kNoEvent;
  };
  [[nodiscard]] std::size_t home(std::uint64_t id) const {
    return static_cast<std::size_t>((id * 0x9E3779B97F4A7C15ULL) >> 32U) & (slots_.size() - 1);
  }
  [[nodiscard]] std::size_t next(std::size_t s) const { return (s + 1) & (slots_.size() - 1); }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    size_ = 0;
    for (const auto &s : old) {
      if (s.event != kNoEvent) {
        put(s.id, s.event);
      }
    }
  }

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
};

} // namespace parjava::trace::detail
