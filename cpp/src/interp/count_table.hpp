// A counter per 64-bit key in one flat open-addressing table (linear probing, power-of-two
// size, at most half full). Keys are never erased: a count goes back to zero and its slot stays,
// so a key seen once costs nothing more to count again, and nothing is allocated once the table
// has grown. It replaces std::unordered_map on the engine's per-receive path, whose lookup is a
// division by a prime and a pointer chase per call.
#pragma once

#include <cstdint>
#include <vector>

namespace parjava::interp {

class CountTable {
public:
  // The count of `key`; 0 when it was never counted.
  [[nodiscard]] std::uint32_t get(std::uint64_t key) const {
    if (slots_.empty()) {
      return 0;
    }
    for (std::size_t i = hash(key) & mask_;; i = (i + 1) & mask_) {
      const Slot &s = slots_[i];
      if (s.used == 0) {
        return 0;
      }
      if (s.key == key) {
        return s.count;
      }
    }
  }

  // The count of `key`, inserted at zero when new.
  std::uint32_t &at(std::uint64_t key) {
    if (slots_.empty() || 2 * (used_ + 1) > slots_.size()) {
      grow();
    }
    std::size_t i = hash(key) & mask_;
    while (slots_[i].used != 0) {
      if (slots_[i].key == key) {
        return slots_[i].count;
      }
      i = (i + 1) & mask_;
    }
    slots_[i] = {key, 0, 1};
    ++used_;
    return slots_[i].count;
  }

private:
  struct Slot {
    std::uint64_t key;
    std::uint32_t count;
    std::uint32_t used;
  };

  static std::size_t hash(std::uint64_t key) {
    key ^= key >> 33U;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33U;
    return static_cast<std::size_t>(key);
  }

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 256 : old.size() * 2, Slot{0, 0, 0});
    mask_ = slots_.size() - 1;
    for (const Slot &s : old) {
      if (s.used != 0) {
        std::size_t i = hash(s.key) & mask_;
        while (slots_[i].used != 0) {
          i = (i + 1) & mask_;
        }
        slots_[i] = s;
      }
    }
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::size_t used_ = 0;
};

} // namespace parjava::interp
