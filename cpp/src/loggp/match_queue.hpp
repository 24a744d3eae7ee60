// Per-host MPI match queues (LogGOPSim's receive queue RQ and unexpected queue UQ, anchor §4):
// FIFO lists searched for the first entry matching (source, tag), wildcards allowed on either
// side. LogGOPSim scans a std::list; here each host keeps its entries in one contiguous array
// (16 bytes each, scanned from the oldest live entry), and once a host holds more than
// kIndexThreshold entries, an index from the exact (source, tag) key to the chain of its entries
// makes the common wildcard-free lookup O(1). Results are identical: the first matching entry in
// FIFO order is always the oldest entry of its key, which is the head of the key's chain.
// Private to the loggp part.
#pragma once

#include <cstdint>
#include <memory>
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

class MatchQueues {
public:
  static constexpr std::uint32_t kIndexThreshold = 48;

  explicit MatchQueues(std::uint32_t hosts) : hosts_(hosts) {}

  void append(std::uint32_t host, const QueueEntry &entry) {
    HostQueue &q = hosts_[host];
    const auto position = static_cast<std::uint32_t>(q.entries.size());
    q.entries.push_back(entry);
    ++q.live;
    ++total_;
    if (entry.src == kAnySource || entry.tag == kAnyTag) {
      ++q.wildcards;
    }
    if (q.index) {
      q.index->link(entry, position);
    } else if (q.live > kIndexThreshold) {
      build_index(q);
    }
  }

  // Remove and return the oldest entry of `host` that matches (src, tag).
  bool take_first_match(std::uint32_t host, std::uint32_t src, std::uint32_t tag, QueueEntry &out) {
    HostQueue &q = hosts_[host];
    if (q.live == 0) {
      return false;
    }
    if (q.index && q.wildcards == 0 && src != kAnySource && tag != kAnyTag) {
      const std::uint32_t position = q.index->first(src, tag);
      if (position == kNone) {
        return false;
      }
      out = q.entries[position];
      remove(q, position);
      return true;
    }
    const auto n = static_cast<std::uint32_t>(q.entries.size());
    for (std::uint32_t i = q.head; i < n; ++i) {
      const QueueEntry &e = q.entries[i];
      if (e.op != kNone && envelopes_match(src, tag, e)) {
        out = e;
        remove(q, i);
        return true;
      }
    }
    return false;
  }

  [[nodiscard]] std::uint64_t total() const noexcept { return total_; }

  void prefetch(std::uint32_t host) const noexcept {
    const HostQueue &q = hosts_[host];
    __builtin_prefetch(&q);
    if (!q.entries.empty()) {
      __builtin_prefetch(q.entries.data() + q.head);
    }
  }

  // Visit the entries left on every host, in host order and FIFO order.
  template <class Visit> void for_each(Visit visit) const {
    for (std::uint32_t h = 0; h < hosts_.size(); ++h) {
      const HostQueue &q = hosts_[h];
      for (std::uint32_t i = q.head; i < q.entries.size(); ++i) {
        if (q.entries[i].op != kNone) {
          visit(h, q.entries[i]);
        }
      }
    }
  }

private:
  static constexpr std::uint32_t kNone = 0xffffffffU;

  // Exact (src, tag) -> chain of entry positions in FIFO order.
  class KeyIndex {
  public:
    void link(const QueueEntry &e, std::uint32_t position) {
      if (next_.size() <= position) {
        next_.resize(static_cast<std::size_t>(position) + 1U, kNone);
      }
      next_[position] = kNone;
      const auto [it, inserted] = chains_.try_emplace(key(e.src, e.tag), Chain{position, position});
      if (!inserted) {
        next_[it->second.last] = position;
        it->second.last = position;
      }
    }
    [[nodiscard]] std::uint32_t first(std::uint32_t src, std::uint32_t tag) const {
      const auto it = chains_.find(key(src, tag));
      return it == chains_.end() ? kNone : it->second.first;
    }
    // `position` is the head of its key's chain (the oldest entry of that key).
    void unlink_head(const QueueEntry &e, std::uint32_t position) {
      const auto it = chains_.find(key(e.src, e.tag));
      if (next_[position] == kNone) {
        chains_.erase(it);
      } else {
        it->second.first = next_[position];
      }
    }

  private:
    struct Chain {
      std::uint32_t first;
      std::uint32_t last;
    };
    static std::uint64_t key(std::uint32_t src, std::uint32_t tag) noexcept {
      return (static_cast<std::uint64_t>(src) << 32U) | tag;
    }
    std::unordered_map<std::uint64_t, Chain> chains_;
    std::vector<std::uint32_t> next_;
  };

  struct HostQueue {
    std::vector<QueueEntry> entries; // FIFO; removed entries have op == kNone
    std::uint32_t head = 0;          // no live entry before this position
    std::uint32_t live = 0;
    std::uint32_t wildcards = 0; // live entries with a wildcard source or tag
    std::unique_ptr<KeyIndex> index;
  };

  void remove(HostQueue &q, std::uint32_t position) {
    QueueEntry &e = q.entries[position];
    if (q.index) {
      q.index->unlink_head(e, position);
    }
    if (e.src == kAnySource || e.tag == kAnyTag) {
      --q.wildcards;
    }
    e.op = kNone;
    --q.live;
    --total_;
    if (q.live == 0) {
      q.entries.clear();
      if (q.entries.capacity() > 4096U) {
        q.entries.shrink_to_fit();
      }
      q.head = 0;
      q.index.reset();
      return;
    }
    while (q.entries[q.head].op == kNone) {
      ++q.head;
    }
    // Compact when dead entries dominate, so scans and memory stay proportional to live ones.
    if (q.entries.size() - q.live > 2U * q.live + 64U) {
      std::uint32_t out = 0;
      for (std::uint32_t i = q.head; i < q.entries.size(); ++i) {
        if (q.entries[i].op != kNone) {
          q.entries[out++] = q.entries[i];
        }
      }
      q.entries.resize(out);
      q.head = 0;
      if (q.index) {
        build_index(q);
      }
    }
  }

  static void build_index(HostQueue &q) {
    q.index = std::make_unique<KeyIndex>();
    for (std::uint32_t i = q.head; i < q.entries.size(); ++i) {
      if (q.entries[i].op != kNone) {
        q.index->link(q.entries[i], i);
      }
    }
  }

  std::vector<HostQueue> hosts_;
  std::uint64_t total_ = 0;
};

} // namespace parjava::loggp
