// The discrete-event queue: events ordered by (time, sequence number). The sequence number is
// a global counter given to each new event, so ties are broken by creation order, as in
// LogGOPSim (anchors/loggopsim-semantics.md §4: ts = aqtime++); a re-queued event keeps its
// number.
//
// Two layouts serve the same order, and the queue moves its events from one to the other as it
// grows and shrinks (so the order of pops never depends on the layout):
//   * small queues (up to a few thousand events: ordinary models and replays, one or two events
//     per rank): a 4-ary heap of 16-byte keys, each one 128-bit integer holding the time, the
//     sequence number, the kind and the slot of the event's target and aux (a side array). A
//     pop reads the top and sifts one key down a few levels; a level is three 128-bit
//     comparisons over four children in 64 bytes.
//   * large queues (a million ranks): events with the same time share a bucket, a FIFO in
//     sequence order; a 4-ary heap orders the distinct times; a flat open-addressing table finds
//     a time's bucket. Such programs are full of simultaneous events (every rank of a collective
//     round at the same instant), which then cost O(1) instead of a heap operation on a deep
//     heap each.
// Buckets, heaps and their storage are recycled, so nothing is allocated per event once the
// pools have grown.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

namespace parjava::interp {

// A free index of `store` from `free` (LIFO, so recently freed entries are still in cache), or
// a new entry at its end: one place for the payload slots and the time buckets.
template <typename Store>
[[gnu::always_inline]] inline std::uint32_t take_slot(std::vector<std::uint32_t> &free,
                                                      Store &store) {
  if (!free.empty()) {
    const std::uint32_t slot = free.back();
    free.pop_back();
    return slot;
  }
  store.emplace_back();
  return static_cast<std::uint32_t>(store.size() - 1);
}

// The 4-ary heap moves both layouts use (the small layout's heap of keys, the bucketed layout's
// heap of distinct times). `less` is a strict order under which no two entries are equal.
// Sift-up: `e`, appended at h[n - 1], rises to its place.
template <typename T, typename Less>
[[gnu::always_inline]] inline void sift_up_4(T *h, std::size_t n, T e, Less less) {
  std::size_t i = n - 1;
  while (i > 0) {
    const std::size_t parent = (i - 1) / 4;
    if (!less(e, h[parent])) {
      break;
    }
    h[i] = h[parent];
    i = parent;
  }
  h[i] = e;
}

// Sift-down: `e` (the former last entry, the root just taken) descends from the root of h[0, n)
// to its place. A node with four children picks the least in a tournament whose winners are
// indices computed from the comparisons' 0 or 1: written as three `? :`, GCC made one of them a
// branch over the 128-bit keys, mispredicted about a third of the time (callgrind's branch
// simulation of the engine in the 1 M-event benchmark replay: 4.99 M mispredicted branches
// before, 4.03 M after).
template <typename T, typename Less>
[[gnu::always_inline]] inline void sift_down_4(T *h, std::size_t n, T e, Less less) {
  std::size_t i = 0;
  while (true) {
    const std::size_t first = (4 * i) + 1;
    if (first >= n) {
      break;
    }
    std::size_t best = first;
    if (first + 4 <= n) {
      const std::size_t a = first + static_cast<std::size_t>(less(h[first + 1], h[first]));
      const std::size_t b = first + 2 + static_cast<std::size_t>(less(h[first + 3], h[first + 2]));
      const std::size_t b_wins = std::size_t{0} - static_cast<std::size_t>(less(h[b], h[a]));
      best = a ^ ((a ^ b) & b_wins);
    } else {
      for (std::size_t c = first + 1; c < n; ++c) {
        best = less(h[c], h[best]) ? c : best;
      }
    }
    if (!less(h[best], e)) {
      break;
    }
    h[i] = h[best];
    i = best;
  }
  h[i] = e;
}

enum class EventKind : std::uint8_t {
  Resume,   // a logical thread continues (target = context, aux = its wait generation)
  Envelope, // a message's envelope reaches its receiver (target = message)
  FlowDone, // the earliest flow in the network may have finished (flow_network.hpp)
  Settle,   // recompute the flow-level shares of links whose flows changed (flow_network.hpp)
};

struct Event {
  double time; // ns
  std::uint64_t seq;
  std::uint32_t target;
  std::uint32_t aux;
  EventKind kind;
};

class EventQueue {
public:
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] std::uint64_t next_seq() { return seq_++; }
  [[nodiscard]] std::size_t peak() const { return peak_; }
  void reserve(std::size_t n) { (void)n; }

  [[nodiscard]] Event top() const {
    if (!bucketed_) {
      return unpack(small_[0]);
    }
    const Bucket &b = buckets_[heap_[0].bucket];
    return b.items[b.head];
  }

  // Whether an event is due at or before `time` (ties with a lower sequence number included).
  [[nodiscard]] bool due_by(double time) const {
    if (size_ == 0) {
      return false;
    }
    return bucketed_ ? heap_[0].time <= time
                     : static_cast<std::uint64_t>(small_[0] >> 64U) <= time_key(time + 0.0);
  }

  void push(double time, EventKind kind, std::uint32_t target, std::uint32_t aux = 0) {
    push_with_seq(time, seq_++, kind, target, aux);
  }

  void push_with_seq(double time, std::uint64_t seq, EventKind kind, std::uint32_t target,
                     std::uint32_t aux) {
    time += 0.0; // one bucket for -0.0 and +0.0
    if (++size_ > peak_) {
      peak_ = size_;
    }
    if (!bucketed_) {
      if (seq >= kMaxSmallSeq) {
        // Beyond the key's sequence field (2^46 events, never reached in practice): the
        // buckets keep whole sequence numbers.
        --size_;
        to_buckets();
        sticky_buckets_ = true;
        push_with_seq(time, seq, kind, target, aux);
        return;
      }
      small_push(pack(time, seq, kind, target, aux));
      if (small_.size() > kToBuckets) {
        to_buckets();
      }
      return;
    }
    bucket_push({time, seq, target, aux, kind});
  }

  Event pop() {
    --size_;
    if (!bucketed_) {
      return small_pop();
    }
    const Event out = bucket_pop();
    if (size_ < kToSmall && !sticky_buckets_) {
      to_small();
    }
    return out;
  }

private:
  // ---- the small layout
  static constexpr std::size_t kToBuckets = 4096; // a larger heap moves to buckets
  static constexpr std::size_t kToSmall = 512;    // buckets holding fewer events move back
  // A key: the time as an unsigned integer with the same order (the usual sign-flip of IEEE-754
  // bits) in the high word; the sequence number, the kind and the payload slot in the low word
  // (seq << 18 | kind << 16 | slot). Sequence numbers are unique, so comparing the low words
  // compares them, and (time, seq) order is one 128-bit comparison, without branches on
  // floating-point flags. The payload (target, aux) stays in its slot while the key moves: a
  // key is 16 bytes where an event was 24, and the four children of a node are 64 bytes.
  __extension__ typedef unsigned __int128 Key; // NOLINT(modernize-use-using): pedantic wants it
  static constexpr unsigned kSlotBits = 16;    // slots for up to 65,536 events (kToBuckets + 1)
  static constexpr std::uint64_t kMaxSmallSeq = std::uint64_t{1} << (64U - kSlotBits - 2U);
  struct Payload {
    std::uint32_t target;
    std::uint32_t aux;
  };
  static std::uint64_t time_key(double time) {
    const auto bits = std::bit_cast<std::uint64_t>(time);
    return (bits >> 63U) != 0 ? ~bits : bits | (std::uint64_t{1} << 63U);
  }
  static double time_of(std::uint64_t key) {
    return std::bit_cast<double>((key >> 63U) != 0 ? key & ~(std::uint64_t{1} << 63U) : ~key);
  }
  [[gnu::always_inline]] Key pack(double time, std::uint64_t seq, EventKind kind,
                                  std::uint32_t target, std::uint32_t aux) {
    const std::uint32_t slot = take_slot(free_slots_, payload_);
    payload_[slot] = {target, aux};
    const std::uint64_t low =
        (seq << (kSlotBits + 2U)) | (static_cast<std::uint64_t>(kind) << kSlotBits) | slot;
    return (static_cast<Key>(time_key(time)) << 64U) | low;
  }
  [[nodiscard]] Event unpack(Key k) const {
    const auto low = static_cast<std::uint64_t>(k);
    const Payload &p = payload_[low & ((std::uint64_t{1} << kSlotBits) - 1U)];
    return {time_of(static_cast<std::uint64_t>(k >> 64U)), low >> (kSlotBits + 2U), p.target, p.aux,
            static_cast<EventKind>((low >> kSlotBits) & 3U)};
  }
  // The event of a key taken out of the heap, its slot freed.
  Event take(Key k) {
    const Event e = unpack(k);
    free_slots_.push_back(
        static_cast<std::uint32_t>(static_cast<std::uint64_t>(k) & ((1U << kSlotBits) - 1U)));
    return e;
  }

  void small_push(Key e) {
    small_.push_back(e);
    sift_up_4(small_.data(), small_.size(), e, [](Key x, Key y) { return x < y; });
  }

  Event small_pop() {
    const Key out = small_[0];
    const Key e = small_.back();
    small_.pop_back();
    if (!small_.empty()) {
      sift_down_4(small_.data(), small_.size(), e, [](Key x, Key y) { return x < y; });
    }
    return take(out);
  }

  // The heap's events, in order, into buckets (each bucket then holds its events by sequence).
  void to_buckets() {
    std::sort(small_.begin(), small_.end());
    bucketed_ = true;
    for (const Key k : small_) {
      bucket_push(unpack(k));
    }
    small_.clear();
    payload_.clear();
    free_slots_.clear();
  }

  // The buckets' events, in order, into the heap: a sorted array is a heap.
  void to_small() {
    bucketed_ = false;
    small_.clear();
    payload_.clear();
    free_slots_.clear();
    while (!heap_.empty()) {
      const Event e = bucket_pop();
      small_.push_back(pack(e.time, e.seq, e.kind, e.target, e.aux));
    }
  }

  // ---- the bucketed layout
  void bucket_push(const Event &e) {
    const std::uint32_t b = bucket_of(e.time);
    auto &items = buckets_[b].items;
    if (items.size() > buckets_[b].head && items.back().seq > e.seq) {
      // A re-queued event with an older number: keep the bucket in sequence order.
      const auto at = std::upper_bound(
          items.begin() + static_cast<std::ptrdiff_t>(buckets_[b].head), items.end(), e.seq,
          [](std::uint64_t s, const Event &x) { return s < x.seq; });
      items.insert(at, e);
    } else {
      items.push_back(e);
    }
  }

  Event bucket_pop() {
    const std::uint32_t b = heap_[0].bucket;
    Bucket &bucket = buckets_[b];
    const Event out = bucket.items[bucket.head++];
    if (bucket.head == bucket.items.size()) {
      erase_time(bucket.time);
      bucket.items.clear();
      bucket.head = 0;
      free_buckets_.push_back(b);
      pop_heap();
    }
    return out;
  }

  struct Bucket {
    double time = 0.0;
    std::size_t head = 0;
    std::vector<Event> items;
  };
  struct HeapEntry {
    double time;
    std::uint32_t bucket;
  };

  // The bucket of `time`, created (and its time put in the heap) when new.
  std::uint32_t bucket_of(double time) {
    if (table_.empty() || 2 * (used_ + 1) > table_.size()) {
      grow();
    }
    const std::uint64_t key = std::bit_cast<std::uint64_t>(time);
    std::size_t i = hash(key) & mask_;
    while (table_[i].bucket != kEmpty) {
      if (table_[i].key == key) {
        return table_[i].bucket;
      }
      i = (i + 1) & mask_;
    }
    const std::uint32_t b = take_slot(free_buckets_, buckets_);
    buckets_[b].time = time;
    buckets_[b].head = 0;
    table_[i] = {key, b};
    ++used_;
    push_heap({time, b});
    return b;
  }

  static std::size_t hash(std::uint64_t key) {
    key ^= key >> 33U;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33U;
    return static_cast<std::size_t>(key);
  }

  void erase_time(double time) {
    const std::uint64_t key = std::bit_cast<std::uint64_t>(time);
    std::size_t i = hash(key) & mask_;
    while (table_[i].key != key || table_[i].bucket == kEmpty) {
      i = (i + 1) & mask_;
    }
    // Backward-shift deletion keeps linear probing valid without tombstones.
    std::size_t j = i;
    while (true) {
      table_[i].bucket = kEmpty;
      while (true) {
        j = (j + 1) & mask_;
        if (table_[j].bucket == kEmpty) {
          --used_;
          return;
        }
        const std::size_t home = hash(table_[j].key) & mask_;
        const bool between = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!between) {
          break;
        }
      }
      table_[i] = table_[j];
      i = j;
    }
  }

  void grow() {
    std::vector<Slot> old = std::move(table_);
    table_.assign(old.empty() ? 1024 : old.size() * 2, Slot{0, kEmpty});
    mask_ = table_.size() - 1;
    used_ = 0;
    for (const Slot &s : old) {
      if (s.bucket != kEmpty) {
        std::size_t i = hash(s.key) & mask_;
        while (table_[i].bucket != kEmpty) {
          i = (i + 1) & mask_;
        }
        table_[i] = s;
        ++used_;
      }
    }
  }

  struct Earlier {
    bool operator()(const HeapEntry &x, const HeapEntry &y) const { return x.time < y.time; }
  };

  void push_heap(HeapEntry e) {
    heap_.push_back(e);
    sift_up_4(heap_.data(), heap_.size(), e, Earlier{});
  }

  void pop_heap() {
    const HeapEntry e = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) {
      sift_down_4(heap_.data(), heap_.size(), e, Earlier{});
    }
  }

  static constexpr std::uint32_t kEmpty = 0xffffffffU;
  struct Slot {
    std::uint64_t key;
    std::uint32_t bucket;
  };

  std::vector<Bucket> buckets_;
  std::vector<std::uint32_t> free_buckets_;
  std::vector<HeapEntry> heap_;
  std::vector<Slot> table_;
  std::size_t mask_ = 0;
  std::size_t used_ = 0;
  std::size_t size_ = 0;
  std::size_t peak_ = 0;
  std::uint64_t seq_ = 0;
  std::vector<Key> small_;
  std::vector<Payload> payload_;          // per slot: the target and aux of a key in small_
  std::vector<std::uint32_t> free_slots_; // slots of payload_ no key holds
  bool bucketed_ = false;
  bool sticky_buckets_ = false; // sequence numbers past kMaxSmallSeq
};

} // namespace parjava::interp
