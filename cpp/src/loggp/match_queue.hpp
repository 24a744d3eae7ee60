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
// of its key, which is the head of the key's chain.
//
// A receive queue that is not spilled holds two or more recvs as a *run*: the recv ops of the
// host's rank between a head and a tail op id, every one of them posted and unmatched, in op
// order. A rank that posts its recvs in program order (dissemination posts 20 at time 0,
// chained recursive doubling 40 one after the other, issue 18) and whose messages match the
// oldest one keeps them in its 64-byte host record: no pool block, no entry to write or read.
// The envelope of a member is read from its op record (the record done() loads next anyway).
// A recv posted out of op order, or a match of a member other than the head, turns the run into
// a *compact* queue: a small block (32 or 64 bytes) holding a base op id and one byte per entry,
// the entry's op id less the base, in FIFO order -- LogGOPSim's ready-list sort posts a
// dissemination's 20 recvs at time 0 out of op order, 32 bytes per host instead of 512. Ops too
// far from the base, or more entries than the index threshold, move the queue to 16-byte
// entries. Every form keeps the same FIFO, so the first match is the same. Private to the
// loggp part.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
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
  MatchQueues(std::uint32_t hosts, std::size_t prefix_bytes, const OpRecord *ops,
              const OpShape *shapes)
      : ops_(ops), shapes_(shapes), prefix_bytes_((prefix_bytes + 7U) / 8U * 8U),
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

  // The common cases (an empty queue, the oldest of a run matching) are inlined into the
  // engine; the rest is out of line, so the engine's hot loop stays small.
  [[gnu::always_inline]] void append(MatchQueue which, std::uint32_t host,
                                     const QueueEntry &entry) {
    Queue &q = queue(which, host);
    if (which == MatchQueue::Receive && q.live == 0) { // one recv: kept as (src, tag, op)
      ++total_[static_cast<std::size_t>(which)];
      q.a = entry.src;
      q.b = entry.tag;
      q.c = entry.op;
      q.live = 1;
      return;
    }
    append_slow(which, host, entry);
  }

  [[gnu::always_inline]] bool take_first_match(MatchQueue which, std::uint32_t host,
                                               std::uint32_t src, std::uint32_t tag,
                                               QueueEntry &out) {
    Queue &q = queue(which, host);
    if (q.live == 0) {
      return false;
    }
    if (which == MatchQueue::Receive && q.spilled == 0) {
      if (q.live == 1) { // the envelope is in the header: no op record to load
        if (!envelopes_match(src, tag, q.a, q.b)) {
          return false;
        }
        out = QueueEntry{q.a, q.b, q.c, 0};
        --total_[static_cast<std::size_t>(which)];
        q = Queue{};
        return true;
      }
      const OpRecord &r = ops_[q.a];
      const std::uint32_t want_tag = shapes_[r.shape].tag;
      if (envelopes_match(src, tag, r.peer, want_tag)) { // the oldest member matches
        out = QueueEntry{r.peer, want_tag, q.a, 0};
        remove_run_head(which, q);
        return true;
      }
    }
    return take_slow(which, host, src, tag, out);
  }

private:
  [[gnu::noinline]] void append_slow(MatchQueue which, std::uint32_t host,
                                     const QueueEntry &entry) {
    Queue &q = queue(which, host);
    ++total_[static_cast<std::size_t>(which)];
    if (which == MatchQueue::Receive && q.spilled == 0) {
      if (extends_run(run_tail(q), entry.op)) {
        q.a = run_head(q);
        q.b = entry.op;
        ++q.live;
        return;
      }
      if (!run_to_compact(q, entry.op)) {
        spill_run(q, q.live + 1U);
      }
    }
    if (q.spilled == kCompact) {
      if (append_compact(q, entry.op)) {
        return;
      }
      compact_to_entries(q, q.live + 1U);
    }
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
  // not set. The queue is not empty, and not a run whose oldest member matches.
  [[gnu::noinline]] bool take_slow(MatchQueue which, std::uint32_t host, std::uint32_t src,
                                   std::uint32_t tag, QueueEntry &out) {
    Queue &q = queue(which, host);
    if (which == MatchQueue::Receive && q.spilled == 0) {
      const std::uint32_t head = run_head(q);
      const std::uint32_t tail = run_tail(q);
      for (std::uint32_t op = head;; op = next_recv(op)) {
        const OpRecord &r = ops_[op];
        if (envelopes_match(src, tag, r.peer, shapes_[r.shape].tag)) {
          if (op != head) { // not the oldest: a FIFO of entries removes it
            if (!run_to_compact(q, kNone)) {
              spill_run(q, q.live);
            }
            return take_first_match(which, host, src, tag, out);
          }
          out = QueueEntry{r.peer, shapes_[r.shape].tag, op, 0};
          remove_run_head(which, q);
          return true;
        }
        if (op == tail) {
          return false;
        }
      }
    }
    if (q.spilled == kCompact) {
      const std::uint32_t base = compact_base(q);
      const std::uint8_t *entries = compact_entries(q);
      for (std::uint32_t i = q.c; i < q.b; ++i) {
        if (entries[i] == kDead) {
          continue;
        }
        const std::uint32_t op = base + entries[i];
        const OpRecord &r = ops_[op];
        if (envelopes_match(src, tag, r.peer, shapes_[r.shape].tag)) {
          out = QueueEntry{r.peer, shapes_[r.shape].tag, op, 0};
          remove_compact(which, q, i);
          return true;
        }
      }
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

public:
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

  // The op id of the single entry `host`'s queue keeps in its header, or of the head of its run
  // of posted recvs, else kNone (for prefetching the op that a coming match will touch).
  [[nodiscard]] std::uint32_t single_op(MatchQueue which, std::uint32_t host) const noexcept {
    const Queue &q = queue(which, host);
    if (q.spilled != 0 || q.live == 0) {
      return kNone;
    }
    return which == MatchQueue::Receive ? run_head(q) : (q.live == 1 ? q.c : kNone);
  }

  // Where a scan for a match starts in a queue kept outside its header (the oldest live entry,
  // or a compact block), else nullptr.
  [[nodiscard]] const void *scan_start(MatchQueue which, std::uint32_t host) const noexcept {
    const Queue &q = queue(which, host);
    if (q.live == 0 || q.spilled == 0) {
      return nullptr;
    }
    return q.spilled == kCompact ? static_cast<const void *>(bytes_.data() + q.a)
                                 : static_cast<const void *>(pool_.data() + q.a + q.c);
  }

  // Bytes of the host records, the pool (its peak: it only grows) and the key indexes.
  [[nodiscard]] std::uint64_t memory_bytes() const noexcept {
    return lines_.capacity() * sizeof(Line) + pool_.capacity() * sizeof(QueueEntry) +
           bytes_.capacity() + index_peak_;
  }
  [[nodiscard]] std::size_t record_bytes() const noexcept { return lines_per_host_ * kLine; }

  // Visit the entries left in one kind of queue on every host, in host and FIFO order.
  template <class Visit> void for_each(MatchQueue which, Visit visit) const {
    for (std::uint32_t h = 0; h < hosts_; ++h) {
      const Queue &q = queue(which, h);
      if (q.live == 0) {
        continue;
      }
      if (q.spilled == 0 && which == MatchQueue::Receive) {
        for (std::uint32_t op = run_head(q);; op = next_recv(op)) {
          visit(h, QueueEntry{ops_[op].peer, shapes_[ops_[op].shape].tag, op, 0});
          if (op == run_tail(q)) {
            break;
          }
        }
        continue;
      }
      if (q.spilled == kCompact) {
        const std::uint32_t base = compact_base(q);
        for (std::uint32_t i = q.c; i < q.b; ++i) {
          const std::uint8_t e = compact_entries(q)[i];
          if (e != kDead) {
            const std::uint32_t op = base + e;
            visit(h, QueueEntry{ops_[op].peer, shapes_[ops_[op].shape].tag, op, 0});
          }
        }
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

  // 20 bytes, all-zero = empty. Unspilled (spilled == 0): one entry, (a, b, c) = its
  // (src, tag, op); a receive queue with two or more holds the run of `live` recv ops from op a
  // (the oldest) to op b. Spilled (1): the FIFO is at pool_[a...], b entries used
  // (live and removed; removed ones have op == kNone), no live entry before position c.
  // Compact (kCompact, receive queues): the same with the block at bytes_[a...] (base op id,
  // then one byte per entry, kDead when removed).
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

  // The first and last recv of an unspilled receive queue: one recv is kept as (src, tag, op),
  // several as a run (head op, tail op).
  static std::uint32_t run_head(const Queue &q) noexcept { return q.live == 1 ? q.c : q.a; }
  static std::uint32_t run_tail(const Queue &q) noexcept { return q.live == 1 ? q.c : q.b; }

  // The oldest recv of an unspilled receive queue matched: the next one is the new head, or
  // the single recv left, kept with its envelope.
  void remove_run_head(MatchQueue which, Queue &q) noexcept {
    --total_[static_cast<std::size_t>(which)];
    if (--q.live == 0) {
      q = Queue{};
      return;
    }
    const std::uint32_t next = next_recv(q.a); // q.live was at least 2: a run
    if (q.live == 1) {
      const OpRecord &r = ops_[next];
      q.a = r.peer;
      q.b = shapes_[r.shape].tag;
      q.c = next;
    } else {
      q.a = next;
    }
  }

  // The longest stretch of other ops between two recvs of one run: extending a run reads the
  // op records in between, and so does every advance of its head.
  static constexpr std::uint32_t kMaxRunGap = 16;

  [[nodiscard]] bool is_recv(std::uint32_t op) const noexcept {
    return shapes_[ops_[op].shape].kind == OpKind::Recv;
  }
  // Whether recv `op`, posted after the run's tail, is the next recv of the rank after it.
  [[nodiscard]] bool extends_run(std::uint32_t tail, std::uint32_t op) const noexcept {
    if (op <= tail || op - tail > kMaxRunGap) {
      return false;
    }
    for (std::uint32_t between = tail + 1U; between < op; ++between) {
      if (is_recv(between)) {
        return false;
      }
    }
    return true;
  }
  // The next recv after member `op` of a run (the caller knows there is one).
  [[nodiscard]] std::uint32_t next_recv(std::uint32_t op) const noexcept {
    do {
      ++op;
    } while (!is_recv(op));
    return op;
  }

  // A run of posted recvs becomes a pool block with room for `room` entries (as spill() does
  // for an unexpected queue's header entry).
  void spill_run(Queue &q, std::uint32_t room) {
    unsigned size_class = 0;
    while ((kSmallest << size_class) < room) {
      ++size_class;
    }
    const std::uint32_t start = take_block(size_class);
    const std::uint32_t tail = run_tail(q);
    std::uint32_t n = 0;
    for (std::uint32_t op = run_head(q);; op = next_recv(op)) {
      pool_[start + n++] = QueueEntry{ops_[op].peer, shapes_[ops_[op].shape].tag, op, 0};
      if (op == tail) {
        break;
      }
    }
    q.size_class = static_cast<std::uint8_t>(size_class);
    q.a = start;
    q.b = n;
    q.c = 0;
    q.spilled = 1;
  }

  // ---- compact receive queues: [base op id, 4 bytes][one byte per entry: op - base] -------
  static constexpr std::uint8_t kCompact = 2; // Queue::spilled of a compact queue
  static constexpr std::uint32_t kCompactBlock = 32;
  static constexpr unsigned kCompactClasses = 2;  // 32- and 64-byte blocks
  static constexpr std::uint8_t kDead = 0xff;     // a removed entry
  static constexpr std::uint32_t kBelowBase = 64; // room for ops posted below the first one

  static std::uint32_t compact_capacity(const Queue &q) noexcept {
    return (kCompactBlock << q.size_class) - 4U;
  }
  [[nodiscard]] std::uint32_t compact_base(const Queue &q) const noexcept {
    std::uint32_t base = 0;
    std::memcpy(&base, bytes_.data() + q.a, sizeof base);
    return base;
  }
  [[nodiscard]] std::uint8_t *compact_entries(const Queue &q) noexcept {
    return bytes_.data() + q.a + 4U;
  }
  [[nodiscard]] const std::uint8_t *compact_entries(const Queue &q) const noexcept {
    return bytes_.data() + q.a + 4U;
  }
  std::uint32_t take_compact(unsigned size_class) {
    std::vector<std::uint32_t> &free = compact_free_[size_class];
    if (!free.empty()) {
      const std::uint32_t start = free.back();
      free.pop_back();
      return start;
    }
    const std::size_t start = bytes_.size();
    if (start + (std::size_t{kCompactBlock} << size_class) >= kNone) {
      throw std::bad_alloc();
    }
    bytes_.resize(start + (std::size_t{kCompactBlock} << size_class));
    return static_cast<std::uint32_t>(start);
  }

  // A run (plus recv `extra` posted after it, unless kNone) becomes a compact queue; false when
  // its ops do not fit one base.
  bool run_to_compact(Queue &q, std::uint32_t extra) {
    const std::uint32_t head = run_head(q);
    const std::uint32_t tail = run_tail(q);
    std::uint32_t low = head;
    std::uint32_t high = tail;
    std::uint32_t need = q.live;
    if (extra != kNone) {
      low = std::min(low, extra);
      high = std::max(high, extra);
      ++need;
    }
    const std::uint32_t base = low >= kBelowBase ? low - kBelowBase : 0U;
    if (high - base >= kDead || need > kIndexThreshold) {
      return false;
    }
    unsigned size_class = 0;
    while (kCompactBlock << size_class < need + 4U) {
      ++size_class;
    }
    const std::uint32_t start = take_compact(size_class);
    std::memcpy(bytes_.data() + start, &base, sizeof base);
    std::uint8_t *entries = bytes_.data() + start + 4U;
    std::uint32_t n = 0;
    for (std::uint32_t op = head;; op = next_recv(op)) {
      entries[n++] = static_cast<std::uint8_t>(op - base);
      if (op == tail) {
        break;
      }
    }
    q.spilled = kCompact;
    q.size_class = static_cast<std::uint8_t>(size_class);
    q.a = start;
    q.b = n;
    q.c = 0;
    return true;
  }

  // Append recv `op` to a compact queue; false when it does not fit (the caller moves the
  // queue to 16-byte entries).
  bool append_compact(Queue &q, std::uint32_t op) {
    const std::uint32_t offset = op - compact_base(q); // wraps when op < base
    if (offset >= kDead || q.live >= kIndexThreshold) {
      return false;
    }
    if (q.b == compact_capacity(q)) {
      std::uint8_t *entries = compact_entries(q);
      std::uint32_t n = 0;
      for (std::uint32_t i = q.c; i < q.b; ++i) {
        if (entries[i] != kDead) {
          entries[n++] = entries[i];
        }
      }
      q.b = n;
      q.c = 0;
      if (q.b == compact_capacity(q)) {
        if (q.size_class + 1U >= kCompactClasses) {
          return false;
        }
        const std::uint32_t start = take_compact(q.size_class + 1U); // may move bytes_
        std::memcpy(bytes_.data() + start, bytes_.data() + q.a, 4U + q.b);
        compact_free_[q.size_class].push_back(q.a);
        q.a = start;
        ++q.size_class;
      }
    }
    compact_entries(q)[q.b++] = static_cast<std::uint8_t>(offset);
    ++q.live;
    return true;
  }

  void remove_compact(MatchQueue which, Queue &q, std::uint32_t position) {
    std::uint8_t *entries = compact_entries(q);
    entries[position] = kDead;
    --total_[static_cast<std::size_t>(which)];
    if (--q.live == 0) {
      compact_free_[q.size_class].push_back(q.a);
      q = Queue{};
      return;
    }
    while (entries[q.c] == kDead) {
      ++q.c;
    }
  }

  // A compact queue moves to 16-byte entries in a pool block with room for `room` of them.
  void compact_to_entries(Queue &q, std::uint32_t room) {
    unsigned size_class = 0;
    while ((kSmallest << size_class) < room) {
      ++size_class;
    }
    const std::uint32_t start = take_block(size_class);
    const std::uint32_t base = compact_base(q);
    const std::uint8_t *entries = compact_entries(q);
    std::uint32_t n = 0;
    for (std::uint32_t i = q.c; i < q.b; ++i) {
      if (entries[i] != kDead) {
        const std::uint32_t op = base + entries[i];
        pool_[start + n++] = QueueEntry{ops_[op].peer, shapes_[ops_[op].shape].tag, op, 0};
      }
    }
    compact_free_[q.size_class].push_back(q.a);
    q.size_class = static_cast<std::uint8_t>(size_class);
    q.a = start;
    q.b = n;
    q.c = 0;
    q.spilled = 1;
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

  const OpRecord *ops_; // the schedule's op records and shapes: a run's members' envelopes
  const OpShape *shapes_;
  std::size_t prefix_bytes_;
  std::size_t lines_per_host_;
  std::uint32_t hosts_;
  std::vector<Line, HugePageAllocator<Line>> lines_; // host-major records, zero-initialised
  std::vector<QueueEntry> pool_;
  std::vector<std::uint32_t> free_[kClasses]; // NOLINT(modernize-avoid-c-arrays): by size class
  std::vector<std::uint8_t> bytes_;           // compact queues' blocks
  std::vector<std::uint32_t> compact_free_[kCompactClasses]; // NOLINT(modernize-avoid-c-arrays)
  std::unordered_map<std::uint64_t, std::unique_ptr<KeyIndex>> indexes_; // by index_key
  std::uint64_t last_key_ = 0;
  KeyIndex *last_index_ = nullptr; // the index of queue last_key_, or nullptr
  std::uint64_t index_bytes_ = 0;  // of the key indexes when built (an estimate)
  std::uint64_t index_peak_ = 0;
  std::uint64_t total_[2] = {0, 0}; // NOLINT(modernize-avoid-c-arrays)
};

} // namespace parjava::loggp
