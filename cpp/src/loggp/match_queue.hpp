// Per-host MPI match queues (LogGOPSim's receive queue RQ and unexpected queue UQ, anchor §4):
// FIFO lists searched for the first entry matching (source, tag), wildcards allowed on either
// side. LogGOPSim scans a std::list per host.
//
// Host-major layout: every host owns one record of whole cache lines (a single 64-byte line for
// a host with one CPU and one NIC) holding the engine's per-host clocks (the record's "prefix",
// see Engine::clock) followed by the headers of both queues, and a queue holding one entry keeps
// it inside its header. A message arriving at a host whose recv is already posted -- every tree,
// ring and dissemination -- thus finds the host's CPU and NIC free times and the posted recv's
// op id on one cache line, where separate clock, header and entry arrays cost three misses.
// Longer queues spill into one contiguous array (16 bytes per entry, scanned from the oldest
// live entry) taken from a pool of power-of-two blocks and given back as soon as the queue is
// empty (no heap allocation per host, memory in proportion to the entries alive at once, hot
// blocks reused first); once a queue holds more than kIndexThreshold entries an index from the
// exact (source, tag) key to the chain of its entries makes the common wildcard-free lookup
// O(1). Results are identical: the first matching entry in FIFO order is always the oldest entry
// of its key, which is the head of the key's chain. Private to the loggp part.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <unordered_map>
#include <vector>

#include "parjava/loggp/goal_schedule.hpp"
#include "parjava/loggp/huge_page_allocator.hpp"

namespace parjava::loggp {

struct QueueEntry {
  std::uint32_t src; // RQ: the recv's source (or kAnySource); UQ: the sending host
  std::uint32_t tag; // the recv's or the message's tag (or kAnyTag)
  std::uint32_t op;  // RQ: the recv op; UQ: the send op
  std::uint32_t aux; // unused by the queues (a dead pool entry has op == kNone)
};

[[nodiscard]] inline bool envelopes_match(std::uint32_t want_src, std::uint32_t want_tag,
                                          std::uint32_t src, std::uint32_t tag) noexcept {
  return (want_src == kAnySource || src == kAnySource || src == want_src) &&
         (want_tag == kAnyTag || tag == kAnyTag || tag == want_tag);
}

enum class MatchQueue : std::uint8_t { Receive = 0, Unexpected = 1 };

class MatchQueues {
public:
  static constexpr std::uint32_t kIndexThreshold = 48;
  static constexpr std::size_t kLine = 64;

  // `prefix_bytes` at the start of every host record belong to the caller (zero-initialised,
  // 8-byte aligned); see prefix().
  MatchQueues(std::uint32_t hosts, std::size_t prefix_bytes)
      : prefix_bytes_((prefix_bytes + 7U) / 8U * 8U),
        lines_per_host_((prefix_bytes_ + 2U * sizeof(Queue) + kLine - 1U) / kLine), hosts_(hosts),
        lines_(static_cast<std::size_t>(hosts) * lines_per_host_) {}
  MatchQueues(const MatchQueues &) = delete;
  MatchQueues &operator=(const MatchQueues &) = delete;
  MatchQueues(MatchQueues &&) = delete;
  MatchQueues &operator=(MatchQueues &&) = delete;
  ~MatchQueues() = default;

  // The caller's bytes of `host`'s record (the engine keeps the host's clocks there).
  [[nodiscard]] std::byte *prefix(std::uint32_t host) noexcept {
    return lines_[static_cast<std::size_t>(host) * lines_per_host_].bytes;
  }
  [[nodiscard]] const std::byte *prefix(std::uint32_t host) const noexcept {
    return lines_[static_cast<std::size_t>(host) * lines_per_host_].bytes;
  }

  void append(MatchQueue which, std::uint32_t host, const QueueEntry &entry) {
    Queue &q = queue(which, host);
    ++total_[static_cast<std::size_t>(which)];
    if (q.spilled == 0) {
      if (q.live == 0) { // the single entry lives in the header
        q.a = entry.src;
        q.b = entry.tag;
        q.c = entry.op;
        q.live = 1;
        return;
      }
      spill(q);
    }
    if (q.b == capacity_of(q)) {
      grow(q);
    }
    const std::uint32_t position = q.b++;
    pool_[q.a + position] = entry;
    ++q.live;
    if (q.indexed != 0) {
      index_of(which, host).link(entry, position);
    } else if (q.live > kIndexThreshold) {
      build_index(which, host, q);
    }
  }

  // Remove and return the oldest entry of `host`'s queue that matches (src, tag); out.aux is
  // not set.
  bool take_first_match(MatchQueue which, std::uint32_t host, std::uint32_t src, std::uint32_t tag,
                        QueueEntry &out) {
    Queue &q = queue(which, host);
    if (q.live == 0) {
      return false;
    }
    if (q.spilled == 0) {
      if (!envelopes_match(src, tag, q.a, q.b)) {
        return false;
      }
      out = QueueEntry{q.a, q.b, q.c, 0};
      q.live = 0;
      --total_[static_cast<std::size_t>(which)];
      return true;
    }
    if (q.indexed != 0 && src != kAnySource && tag != kAnyTag) {
      const KeyIndex &index = index_of(which, host);
      if (index.wildcards == 0) {
        const std::uint32_t position = index.first(src, tag);
        if (position == kNone) {
          return false;
        }
        out = pool_[q.a + position];
        remove(which, host, q, position);
        return true;
      }
    }
    const QueueEntry *entries = pool_.data() + q.a;
    for (std::uint32_t i = q.c; i < q.b; ++i) {
      const QueueEntry &e = entries[i];
      if (e.op != kNone && envelopes_match(src, tag, e.src, e.tag)) {
        out = e;
        remove(which, host, q, i);
        return true;
      }
    }
    return false;
  }

  [[nodiscard]] std::uint64_t total(MatchQueue which) const noexcept {
    return total_[static_cast<std::size_t>(which)];
  }

  // Start loading `host`'s record (clocks and both queue headers).
  void prefetch(std::uint32_t host) const noexcept {
    const Line *line = &lines_[static_cast<std::size_t>(host) * lines_per_host_];
    for (std::size_t i = 0; i < lines_per_host_; ++i) {
      __builtin_prefetch(line + i, 1);
    }
  }

  // The op id of the single entry `host`'s queue keeps in its header, else kNone (for prefetching
  // the op that a coming match will touch).
  [[nodiscard]] std::uint32_t single_op(MatchQueue which, std::uint32_t host) const noexcept {
    const Queue &q = queue(which, host);
    return q.spilled == 0 && q.live == 1 ? q.c : kNone;
  }

  // The oldest live entry of a spilled queue (where a scan for a match starts), else nullptr.
  [[nodiscard]] const QueueEntry *oldest_spilled(MatchQueue which,
                                                 std::uint32_t host) const noexcept {
    const Queue &q = queue(which, host);
    return q.spilled != 0 && q.live != 0 ? pool_.data() + q.a + q.c : nullptr;
  }

  // Bytes of the host records, the pool (its peak: it only grows) and the key indexes.
  [[nodiscard]] std::uint64_t memory_bytes() const noexcept {
    return lines_.capacity() * sizeof(Line) + pool_.capacity() * sizeof(QueueEntry) + index_peak_;
  }
  [[nodiscard]] std::size_t record_bytes() const noexcept { return lines_per_host_ * kLine; }

  // Visit the entries left in one kind of queue on every host, in host and FIFO order.
  template <class Visit> void for_each(MatchQueue which, Visit visit) const {
    for (std::uint32_t h = 0; h < hosts_; ++h) {
      const Queue &q = queue(which, h);
      if (q.live == 0) {
        continue;
      }
      if (q.spilled == 0) {
        visit(h, QueueEntry{q.a, q.b, q.c, 0});
        continue;
      }
      for (std::uint32_t i = q.c; i < q.b; ++i) {
        if (pool_[q.a + i].op != kNone) {
          visit(h, pool_[q.a + i]);
        }
      }
    }
  }

  static constexpr std::uint32_t kNone = 0xffffffffU;

private:
  // Exact (src, tag) -> chain of entry positions in FIFO order, plus the number of live
  // entries with a wildcard (which the index cannot answer for).
  struct KeyIndex {
    struct Chain {
      std::uint32_t first;
      std::uint32_t last;
    };
    std::unordered_map<std::uint64_t, Chain> chains;
    std::vector<std::uint32_t> next;
    std::uint32_t wildcards = 0;
    std::uint64_t counted = 0; // bytes() when it was built, as added to index_bytes_

    [[nodiscard]] std::uint64_t bytes() const noexcept {
      return sizeof(KeyIndex) + next.capacity() * sizeof(std::uint32_t) +
             chains.size() * (sizeof(std::uint64_t) + sizeof(Chain) + 2U * sizeof(void *));
    }

    static std::uint64_t key(std::uint32_t src, std::uint32_t tag) noexcept {
      return (static_cast<std::uint64_t>(src) << 32U) | tag;
    }
    void link(const QueueEntry &e, std::uint32_t position) {
      if (e.src == kAnySource || e.tag == kAnyTag) {
        ++wildcards;
      }
      if (next.size() <= position) {
        next.resize(static_cast<std::size_t>(position) + 1U, kNone);
      }
      next[position] = kNone;
      const auto [it, inserted] = chains.try_emplace(key(e.src, e.tag), Chain{position, position});
      if (!inserted) {
        next[it->second.last] = position;
        it->second.last = position;
      }
    }
    [[nodiscard]] std::uint32_t first(std::uint32_t src, std::uint32_t tag) const {
      const auto it = chains.find(key(src, tag));
      return it == chains.end() ? kNone : it->second.first;
    }
    // `position` is the head of its key's chain (the oldest entry of that key).
    void unlink_head(const QueueEntry &e, std::uint32_t position) {
      if (e.src == kAnySource || e.tag == kAnyTag) {
        --wildcards;
      }
      const auto it = chains.find(key(e.src, e.tag));
      if (next[position] == kNone) {
        chains.erase(it);
      } else {
        it->second.first = next[position];
      }
    }
  };

  // 20 bytes, all-zero = empty. Unspilled (spilled == 0): at most one entry, (a, b, c) = its
  // (src, tag, op). Spilled: the FIFO is at pool_[a...], b entries used (live and removed;
  // removed ones have op == kNone), no live entry before position c.
  struct Queue {
    std::uint32_t live;
    std::uint8_t size_class; // spilled: capacity kSmallest << size_class
    std::uint8_t spilled;
    std::uint8_t indexed; // a KeyIndex exists in indexes_ (only for long queues)
    std::uint8_t unused;
    std::uint32_t a;
    std::uint32_t b;
    std::uint32_t c;
  };
  static_assert(sizeof(Queue) == 20, "two queue headers and three clocks fill one cache line");
  struct alignas(kLine) Line {
    std::byte bytes[kLine]; // NOLINT(modernize-avoid-c-arrays)
  };

  Queue &queue(MatchQueue which, std::uint32_t host) noexcept {
    return reinterpret_cast<Queue *>( // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
        prefix(host) + prefix_bytes_)[static_cast<std::size_t>(which)];
  }
  [[nodiscard]] const Queue &queue(MatchQueue which, std::uint32_t host) const noexcept {
    return reinterpret_cast<const Queue *>( // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
        prefix(host) + prefix_bytes_)[static_cast<std::size_t>(which)];
  }

  static std::uint64_t index_key(MatchQueue which, std::uint32_t host) noexcept {
    return (static_cast<std::uint64_t>(host) << 1U) | static_cast<std::uint64_t>(which);
  }
  // Long queues are used in bursts (a linear all-to-all fills and drains one host's queues at
  // a time): remember the last index looked up.
  KeyIndex &index_of(MatchQueue which, std::uint32_t host) {
    const std::uint64_t key = index_key(which, host);
    if (key != last_key_ || last_index_ == nullptr) {
      last_key_ = key;
      last_index_ = indexes_.find(key)->second.get();
    }
    return *last_index_;
  }

  static constexpr std::uint32_t kSmallest = 4;
  static constexpr unsigned kClasses = 31;

  static std::uint32_t capacity_of(const Queue &q) noexcept { return kSmallest << q.size_class; }

  std::uint32_t take_block(unsigned size_class) {
    std::vector<std::uint32_t> &free = free_[size_class];
    if (!free.empty()) {
      const std::uint32_t start = free.back();
      free.pop_back();
      return start;
    }
    const std::size_t start = pool_.size();
    if (start + (std::size_t{kSmallest} << size_class) >= kNone) {
      throw std::bad_alloc();
    }
    pool_.resize(start + (std::size_t{kSmallest} << size_class));
    return static_cast<std::uint32_t>(start);
  }

  // A second entry arrives: move the header's entry to a pool block.
  void spill(Queue &q) {
    const QueueEntry single{q.a, q.b, q.c, 0};
    q.size_class = 0;
    q.a = take_block(0);
    pool_[q.a] = single;
    q.b = 1;
    q.c = 0;
    q.spilled = 1;
  }

  // Double the capacity: the entries move to a block of the next size class (positions kept).
  void grow(Queue &q) {
    const unsigned size_class = q.size_class + 1U;
    if (size_class >= kClasses) {
      throw std::bad_alloc();
    }
    const std::uint32_t start = take_block(size_class); // may move pool_
    std::copy(pool_.begin() + q.a, pool_.begin() + q.a + q.b, pool_.begin() + start);
    free_[q.size_class].push_back(q.a);
    q.a = start;
    q.size_class = static_cast<std::uint8_t>(size_class);
  }

  void remove(MatchQueue which, std::uint32_t host, Queue &q, std::uint32_t position) {
    QueueEntry *entries = pool_.data() + q.a;
    QueueEntry &e = entries[position];
    if (q.indexed != 0) {
      index_of(which, host).unlink_head(e, position);
    }
    e.op = kNone;
    --q.live;
    --total_[static_cast<std::size_t>(which)];
    if (q.live == 0) {
      if (q.indexed != 0) {
        drop_index(which, host);
      }
      free_[q.size_class].push_back(q.a);
      q = Queue{};
      return;
    }
    while (entries[q.c].op == kNone) {
      ++q.c;
    }
    // Compact when dead entries dominate, so scans and memory stay proportional to live ones.
    if (q.b - q.live > 2U * q.live + 64U) {
      std::uint32_t out = 0;
      for (std::uint32_t i = q.c; i < q.b; ++i) {
        if (entries[i].op != kNone) {
          entries[out++] = entries[i];
        }
      }
      q.b = out;
      q.c = 0;
      if (q.indexed != 0) {
        build_index(which, host, q);
      }
    }
  }

  void drop_index(MatchQueue which, std::uint32_t host) {
    const auto it = indexes_.find(index_key(which, host));
    index_bytes_ -= it->second->counted;
    if (last_index_ == it->second.get()) {
      last_index_ = nullptr;
    }
    indexes_.erase(it);
  }

  void build_index(MatchQueue which, std::uint32_t host, Queue &q) {
    if (q.indexed != 0) {
      drop_index(which, host);
    }
    auto index = std::make_unique<KeyIndex>();
    const QueueEntry *entries = pool_.data() + q.a;
    for (std::uint32_t i = q.c; i < q.b; ++i) {
      if (entries[i].op != kNone) {
        index->link(entries[i], i);
      }
    }
    index->counted = index->bytes();
    index_bytes_ += index->counted;
    index_peak_ = std::max(index_peak_, index_bytes_);
    indexes_[index_key(which, host)] = std::move(index);
    q.indexed = 1;
  }

  std::size_t prefix_bytes_;
  std::size_t lines_per_host_;
  std::uint32_t hosts_;
  std::vector<Line, HugePageAllocator<Line>> lines_; // host-major records, zero-initialised
  std::vector<QueueEntry> pool_;
  std::vector<std::uint32_t> free_[kClasses]; // NOLINT(modernize-avoid-c-arrays): by size class
  std::unordered_map<std::uint64_t, std::unique_ptr<KeyIndex>> indexes_; // by index_key
  std::uint64_t last_key_ = 0;
  KeyIndex *last_index_ = nullptr; // the index of queue last_key_, or nullptr
  std::uint64_t index_bytes_ = 0;  // of the key indexes when built (an estimate)
  std::uint64_t index_peak_ = 0;
  std::uint64_t total_[2] = {0, 0}; // NOLINT(modernize-avoid-c-arrays)
};

} // namespace parjava::loggp
