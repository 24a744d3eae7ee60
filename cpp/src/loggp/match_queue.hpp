// Per-host MPI match queues (LogGOPSim's receive queue RQ and unexpected queue UQ, anchor §4):
// FIFO lists searched for the first entry matching (source, tag), wildcards allowed on either
// side. LogGOPSim scans a std::list per host. Here both queues of a host share one 64-byte
// header (one cache miss per host instead of several), each keeps its entries in one contiguous
// array (16 bytes each, scanned from the oldest live entry) taken from a pool of power-of-two
// blocks and given back as soon as the queue is empty (no heap allocation per host, memory in
// proportion to the entries alive at once, hot blocks reused first), and once a queue holds more
// than kIndexThreshold entries an index from the exact (source, tag) key to the chain of its
// entries makes the common wildcard-free lookup O(1). Results are identical: the first matching
// entry in FIFO order is always the oldest entry of its key, which is the head of the key's chain.
// Private to the loggp part.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <unordered_map>
#include <vector>

#include "parjava/loggp/goal_schedule.hpp"

namespace parjava::loggp {

struct QueueEntry {
  std::uint32_t src; // RQ: the recv's source (or kAnySource); UQ: the sending host
  std::uint32_t tag; // the recv's or the message's tag (or kAnyTag)
  std::uint32_t op;  // RQ: the recv op; UQ: the send op
  std::uint32_t aux; // UQ: the sending host; RQ: unused
};

[[nodiscard]] inline bool envelopes_match(std::uint32_t want_src, std::uint32_t want_tag,
                                          const QueueEntry &e) noexcept {
  return (want_src == kAnySource || e.src == kAnySource || e.src == want_src) &&
         (want_tag == kAnyTag || e.tag == kAnyTag || e.tag == want_tag);
}

enum class MatchQueue : std::uint8_t { Receive = 0, Unexpected = 1 };

class MatchQueues {
public:
  static constexpr std::uint32_t kIndexThreshold = 48;

  explicit MatchQueues(std::uint32_t hosts) : hosts_(hosts) {}
  ~MatchQueues() {
    for (HostQueues &h : hosts_) {
      for (Queue &q : h.queues) {
        delete q.index; // NOLINT(cppcoreguidelines-owning-memory)
      }
    }
  }
  MatchQueues(const MatchQueues &) = delete;
  MatchQueues &operator=(const MatchQueues &) = delete;
  MatchQueues(MatchQueues &&) = delete;
  MatchQueues &operator=(MatchQueues &&) = delete;

  void append(MatchQueue which, std::uint32_t host, const QueueEntry &entry) {
    Queue &q = queue(which, host);
    if (q.size == capacity_of(q)) {
      grow(q);
    }
    const std::uint32_t position = q.size++;
    pool_[q.start + position] = entry;
    ++q.live;
    ++total_[static_cast<std::size_t>(which)];
    if (q.index != nullptr) {
      q.index->link(entry, position);
    } else if (q.live > kIndexThreshold) {
      build_index(q);
    }
  }

  // Remove and return the oldest entry of `host`'s queue that matches (src, tag).
  bool take_first_match(MatchQueue which, std::uint32_t host, std::uint32_t src, std::uint32_t tag,
                        QueueEntry &out) {
    Queue &q = queue(which, host);
    if (q.live == 0) {
      return false;
    }
    if (q.index != nullptr && q.index->wildcards == 0 && src != kAnySource && tag != kAnyTag) {
      const std::uint32_t position = q.index->first(src, tag);
      if (position == kNone) {
        return false;
      }
      out = pool_[q.start + position];
      remove(which, q, position);
      return true;
    }
    const QueueEntry *entries = pool_.data() + q.start;
    for (std::uint32_t i = q.head; i < q.size; ++i) {
      const QueueEntry &e = entries[i];
      if (e.op != kNone && envelopes_match(src, tag, e)) {
        out = e;
        remove(which, q, i);
        return true;
      }
    }
    return false;
  }

  [[nodiscard]] std::uint64_t total(MatchQueue which) const noexcept {
    return total_[static_cast<std::size_t>(which)];
  }

  void prefetch(MatchQueue which, std::uint32_t host) const noexcept {
    const Queue &q = hosts_[host].queues[static_cast<std::size_t>(which)];
    __builtin_prefetch(&q);
  }

  // Bytes of the headers, the pool (its peak: it only grows) and the key indexes.
  [[nodiscard]] std::uint64_t memory_bytes() const noexcept {
    return hosts_.capacity() * sizeof(HostQueues) + pool_.capacity() * sizeof(QueueEntry) +
           index_peak_;
  }

  // Visit the entries left in one kind of queue on every host, in host and FIFO order.
  template <class Visit> void for_each(MatchQueue which, Visit visit) const {
    for (std::uint32_t h = 0; h < hosts_.size(); ++h) {
      const Queue &q = hosts_[h].queues[static_cast<std::size_t>(which)];
      for (std::uint32_t i = q.head; i < q.size; ++i) {
        if (pool_[q.start + i].op != kNone) {
          visit(h, pool_[q.start + i]);
        }
      }
    }
  }

private:
  static constexpr std::uint32_t kNone = 0xffffffffU;

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

  struct Queue {                 // 32 bytes
    std::uint32_t start = kNone; // FIFO at pool_[start...]; removed entries have op == kNone
    std::uint32_t size = 0;      // entries used (live and removed)
    std::uint32_t head = 0;      // no live entry before this position
    std::uint32_t live = 0;
    std::uint8_t size_class = 0; // capacity kSmallest << size_class (when start != kNone)
    KeyIndex *index = nullptr;   // owned; only for long queues
  };
  struct alignas(64) HostQueues {
    Queue queues[2]; // NOLINT(modernize-avoid-c-arrays): indexed by MatchQueue
  };
  static_assert(sizeof(HostQueues) == 64, "both queues of a host share one cache line");

  Queue &queue(MatchQueue which, std::uint32_t host) noexcept {
    return hosts_[host].queues[static_cast<std::size_t>(which)];
  }

  static constexpr std::uint32_t kSmallest = 4;
  static constexpr unsigned kClasses = 31;

  static std::uint32_t capacity_of(const Queue &q) noexcept {
    return q.start == kNone ? 0U : kSmallest << q.size_class;
  }

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

  void give_back(Queue &q) {
    free_[q.size_class].push_back(q.start);
    q.start = kNone;
  }

  // Double the capacity: the entries move to a block of the next size class (positions kept).
  void grow(Queue &q) {
    if (q.start == kNone) {
      q.size_class = 0;
      q.start = take_block(0);
      return;
    }
    const unsigned size_class = q.size_class + 1U;
    if (size_class >= kClasses) {
      throw std::bad_alloc();
    }
    const std::uint32_t start = take_block(size_class); // may move pool_
    std::copy(pool_.begin() + q.start, pool_.begin() + q.start + q.size, pool_.begin() + start);
    give_back(q);
    q.start = start;
    q.size_class = static_cast<std::uint8_t>(size_class);
  }

  void remove(MatchQueue which, Queue &q, std::uint32_t position) {
    QueueEntry *entries = pool_.data() + q.start;
    QueueEntry &e = entries[position];
    if (q.index != nullptr) {
      q.index->unlink_head(e, position);
    }
    e.op = kNone;
    --q.live;
    --total_[static_cast<std::size_t>(which)];
    if (q.live == 0) {
      q.size = 0;
      q.head = 0;
      if (q.index != nullptr) {
        index_bytes_ -= q.index->counted;
        delete q.index; // NOLINT(cppcoreguidelines-owning-memory)
        q.index = nullptr;
      }
      give_back(q);
      return;
    }
    while (entries[q.head].op == kNone) {
      ++q.head;
    }
    // Compact when dead entries dominate, so scans and memory stay proportional to live ones.
    if (q.size - q.live > 2U * q.live + 64U) {
      std::uint32_t out = 0;
      for (std::uint32_t i = q.head; i < q.size; ++i) {
        if (entries[i].op != kNone) {
          entries[out++] = entries[i];
        }
      }
      q.size = out;
      q.head = 0;
      if (q.index != nullptr) {
        build_index(q);
      }
    }
  }

  void build_index(Queue &q) {
    if (q.index != nullptr) {
      index_bytes_ -= q.index->counted;
      delete q.index; // NOLINT(cppcoreguidelines-owning-memory)
    }
    q.index = new KeyIndex(); // NOLINT(cppcoreguidelines-owning-memory)
    const QueueEntry *entries = pool_.data() + q.start;
    for (std::uint32_t i = q.head; i < q.size; ++i) {
      if (entries[i].op != kNone) {
        q.index->link(entries[i], i);
      }
    }
    q.index->counted = q.index->bytes();
    index_bytes_ += q.index->counted;
    index_peak_ = std::max(index_peak_, index_bytes_);
  }

  std::vector<HostQueues> hosts_;
  std::vector<QueueEntry> pool_;
  std::vector<std::uint32_t> free_[kClasses]; // NOLINT(modernize-avoid-c-arrays): by size class
  std::uint64_t index_bytes_ = 0;             // of the key indexes when built (an estimate)
  std::uint64_t index_peak_ = 0;
  std::uint64_t total_[2] = {0, 0}; // NOLINT(modernize-avoid-c-arrays)
};

} // namespace parjava::loggp
