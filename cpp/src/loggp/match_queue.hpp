// Per-host MPI match queues (LogGOPSim's receive queue RQ and unexpected queue UQ, anchor §4):
// FIFO lists searched for the first entry matching (source, tag), wildcards allowed on either
// side. LogGOPSim scans a std::list per host. Here both queues of a host share one 64-byte
// header (one cache miss per host instead of several), each keeps its entries in one contiguous
// array (16 bytes each, scanned from the oldest live entry), and once a queue holds more than
// kIndexThreshold entries an index from the exact (source, tag) key to the chain of its entries
// makes the common wildcard-free lookup O(1). Results are identical: the first matching entry in
// FIFO order is always the oldest entry of its key, which is the head of the key's chain.
// Private to the loggp part.
#pragma once

#include <cstdint>
#include <cstdlib>
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
        std::free(q.entries); // NOLINT(cppcoreguidelines-no-malloc): realloc'd array
        delete q.index;       // NOLINT(cppcoreguidelines-owning-memory)
      }
    }
  }
  MatchQueues(const MatchQueues &) = delete;
  MatchQueues &operator=(const MatchQueues &) = delete;
  MatchQueues(MatchQueues &&) = delete;
  MatchQueues &operator=(MatchQueues &&) = delete;

  void append(MatchQueue which, std::uint32_t host, const QueueEntry &entry) {
    Queue &q = queue(which, host);
    if (q.size == q.capacity) {
      grow(q);
    }
    const std::uint32_t position = q.size++;
    q.entries[position] = entry;
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
      out = q.entries[position];
      remove(which, q, position);
      return true;
    }
    for (std::uint32_t i = q.head; i < q.size; ++i) {
      const QueueEntry &e = q.entries[i];
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

  // Visit the entries left in one kind of queue on every host, in host and FIFO order.
  template <class Visit> void for_each(MatchQueue which, Visit visit) const {
    for (std::uint32_t h = 0; h < hosts_.size(); ++h) {
      const Queue &q = hosts_[h].queues[static_cast<std::size_t>(which)];
      for (std::uint32_t i = q.head; i < q.size; ++i) {
        if (q.entries[i].op != kNone) {
          visit(h, q.entries[i]);
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

  struct Queue {                   // 32 bytes
    QueueEntry *entries = nullptr; // FIFO; removed entries have op == kNone
    std::uint32_t size = 0;        // entries used (live and removed)
    std::uint32_t capacity = 0;
    std::uint32_t head = 0; // no live entry before this position
    std::uint32_t live = 0;
    KeyIndex *index = nullptr; // owned; only for long queues
  };
  struct alignas(64) HostQueues {
    Queue queues[2]; // NOLINT(modernize-avoid-c-arrays): indexed by MatchQueue
  };
  static_assert(sizeof(HostQueues) == 64, "both queues of a host share one cache line");

  Queue &queue(MatchQueue which, std::uint32_t host) noexcept {
    return hosts_[host].queues[static_cast<std::size_t>(which)];
  }

  static void grow(Queue &q) {
    // Grow by half: most queues stay short, and 2^20 hosts x a few dozen posted recvs is
    // where the memory goes.
    const std::uint32_t capacity = q.capacity < 4U ? 4U : q.capacity + q.capacity / 2U;
    // NOLINTNEXTLINE(cppcoreguidelines-no-malloc): entries are trivially copyable
    void *grown = std::realloc(q.entries, sizeof(QueueEntry) * capacity);
    if (grown == nullptr) {
      throw std::bad_alloc();
    }
    q.entries = static_cast<QueueEntry *>(grown);
    q.capacity = capacity;
  }

  void remove(MatchQueue which, Queue &q, std::uint32_t position) {
    QueueEntry &e = q.entries[position];
    if (q.index != nullptr) {
      q.index->unlink_head(e, position);
    }
    e.op = kNone;
    --q.live;
    --total_[static_cast<std::size_t>(which)];
    if (q.live == 0) {
      q.size = 0;
      q.head = 0;
      delete q.index; // NOLINT(cppcoreguidelines-owning-memory)
      q.index = nullptr;
      if (q.capacity > 4096U) { // give back the memory of a queue that was very long once
        std::free(q.entries);   // NOLINT(cppcoreguidelines-no-malloc)
        q.entries = nullptr;
        q.capacity = 0;
      }
      return;
    }
    while (q.entries[q.head].op == kNone) {
      ++q.head;
    }
    // Compact when dead entries dominate, so scans and memory stay proportional to live ones.
    if (q.size - q.live > 2U * q.live + 64U) {
      std::uint32_t out = 0;
      for (std::uint32_t i = q.head; i < q.size; ++i) {
        if (q.entries[i].op != kNone) {
          q.entries[out++] = q.entries[i];
        }
      }
      q.size = out;
      q.head = 0;
      if (q.index != nullptr) {
        build_index(q);
      }
    }
  }

  static void build_index(Queue &q) {
    delete q.index;           // NOLINT(cppcoreguidelines-owning-memory)
    q.index = new KeyIndex(); // NOLINT(cppcoreguidelines-owning-memory)
    for (std::uint32_t i = q.head; i < q.size; ++i) {
      if (q.entries[i].op != kNone) {
        q.index->link(q.entries[i], i);
      }
    }
  }

  std::vector<HostQueues> hosts_;
  std::uint64_t total_[2] = {0, 0}; // NOLINT(modernize-avoid-c-arrays)
};

} // namespace parjava::loggp
