// The simulator's event queue, ordered by (time, seq) with seq LogGOPSim's insertion counter
// `aqtime` (anchor §4), so the order is total and equal to LogGOPSim's.
//
// LogGP times are sums of a few constants, so events come in large groups at exactly the same
// time (every rank of a tree level, every rank of a lockstep round). The queue therefore keeps
// one FIFO list per distinct pending time and orders only the distinct times (a small binary
// heap of them, plus a hash from time to list for appending). New events get the largest seq so
// far, so appending keeps each list sorted by seq: an event is written once and read once, never
// moved or sorted. The lists live in pooled blocks that grow with the list (4, 16, 64, 256
// entries), so a time with a single event costs a small block, a time with 10^5 events a chain
// of large ones, and no event costs a heap allocation once the pool is warm.
// Re-inserted blocked-group entries (blocked_groups.hpp) carry the seq of their first member,
// older than what their time's list may already hold. They go to a second, "late" list of the
// same time, which stays sorted as long as they come in seq order -- a tree's or a ring's hosts
// block their second sends in the order the hosts run, so they do -- and the head of the two
// lists with the smaller seq is served first (a binary heap of them cost a cache miss per
// level at 2^20 ranks; issue 18). Two kinds of entries fit neither list and go to small binary
// heaps instead:
//   * entries earlier than the current time (an op on an idle CPU of a multi-CPU host is
//     scheduled at that CPU's old free time, anchor §4 "In words"): all of them precede every
//     list, so they are served first;
//   * entries older than both lists of their time hold: served when they are the smallest
//     (time, seq).
// Private to the loggp part.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "parjava/loggp/huge_page_allocator.hpp"
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
  EventQueue() { slots_.assign(kInitialSlots, Slot{0, kNone}); }

  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }

  [[gnu::always_inline]] void push(const Event &e) {
    if (size_ == 0) {
      // An empty queue: the event is the next one served whatever its time, so it waits in
      // solo_ without a list, a hash slot or a heap entry. Chains of events at distinct times
      // (a ring, a pipeline) then cost one store and one load per event.
      if (current_ != kNone) {
        free_list(current_);
        current_ = kNone;
      }
      now_ = e.time;
      solo_ = e;
      has_solo_ = true;
      size_ = 1;
      return;
    }
    push_queued(e);
  }

private:
  [[gnu::noinline]] void push_queued(const Event &e) {
    if (has_solo_) {
      unsolo(e.time);
    }
    ++size_;
    if (e.time < now_) {
      past_.push_back(e);
      std::push_heap(past_.begin(), past_.end(), later);
      return;
    }
    std::uint32_t list = kNone;
    if (e.time == now_) {
      if (current_ == kNone) {
        current_ = new_list();
      }
      list = current_;
    } else {
      list = list_of(e.time);
    }
    List &l = lists_[list];
    if (l.count != 0 && e.seq < l.last_seq) {
      push_late(list, e); // an older seq than the list holds: keep (time, seq) order
      return;
    }
    append(l, Entry{e.seq, e.op, e.info});
  }

public:
  // The earliest event (the queue must not be empty).
  const Event &top() {
    if (has_solo_) {
      return solo_;
    }
    if (!past_.empty()) {
      return past_.front();
    }
    for (;;) {
      const Entry *best = nullptr;
      from_ = From::Unordered;
      if (current_ != kNone) {
        const List &l = lists_[current_];
        if (l.count != 0) {
          best = &head(l);
          from_ = From::List;
        }
        if (l.late != kNone && lists_[l.late].count != 0) {
          const Entry &h = head(lists_[l.late]);
          if (best == nullptr || h.seq < best->seq) {
            best = &h;
            from_ = From::Late;
          }
        }
      }
      const bool have_unordered = !unordered_.empty() && unordered_.front().time == now_;
      if (best != nullptr && (!have_unordered || best->seq < unordered_.front().seq)) {
        head_ = Event{now_, best->seq, best->op, best->info};
        return head_;
      }
      if (have_unordered) {
        from_ = From::Unordered;
        return unordered_.front();
      }
      advance();
    }
  }

  // A queued entry as peek_ahead() and peek_late() show it (its time is the current one).
  struct Entry {
    std::uint64_t seq;
    std::uint32_t op;
    std::uint32_t info;
    [[nodiscard]] EntryKind kind() const noexcept { return static_cast<EntryKind>(info >> 30U); }
  };

  // Whether the next entries are served from the current time's lists, the only ones
  // peek_ahead() and peek_late() can see (one check for all the peeks of an event).
  [[nodiscard]] bool lists_active() const noexcept {
    return !has_solo_ && past_.empty() && current_ != kNone;
  }

  // With lists_active(): the entry `k` places after the head of the current list when it is
  // already known cheaply (the list's first two blocks), else nullptr. Used only to prefetch
  // the memory upcoming events will touch; valid until the next push.
  [[nodiscard]] const Entry *peek_ahead(std::size_t k) const noexcept {
    return peek_in(current_, k);
  }

  // The same in the current time's late list (blocked groups re-queued with an older seq): the
  // two lists are served merged, so this is at most k places ahead.
  [[nodiscard]] const Entry *peek_late(std::size_t k) const noexcept {
    const std::uint32_t late = lists_[current_].late;
    return late == kNone ? nullptr : peek_in(late, k);
  }

private:
  [[nodiscard]] const Entry *peek_in(std::uint32_t list, std::size_t k) const noexcept {
    const List &l = lists_[list];
    if (l.count <= k) {
      return nullptr;
    }
    const Block *b = &blocks_[l.head_block];
    std::size_t at = l.head_offset + k;
    if (at >= b->used) { // in the next block (k < 16: that block holds at least 16 entries)
      if (b->next == kNone) {
        return nullptr;
      }
      at -= b->used;
      b = &blocks_[b->next];
      if (at >= b->used) {
        return nullptr;
      }
    }
    return &pool_[b->start + at];
  }

public:
  [[gnu::always_inline]] Event pop() {
    if (has_solo_) {
      has_solo_ = false;
      size_ = 0;
      return solo_;
    }
    // The common case of lockstep patterns first: the head of the current time's list or of its
    // late list, nothing earlier pending (what top() would find, without its bookkeeping).
    if (past_.empty() && current_ != kNone &&
        (unordered_.empty() || unordered_.front().time != now_)) {
      List &l = lists_[current_];
      if (l.count != 0) {
        List *from = &l;
        if (l.late != kNone && lists_[l.late].count != 0 &&
            head(lists_[l.late]).seq < head(l).seq) {
          from = &lists_[l.late];
        }
        const Entry &x = head(*from);
        const Event e{now_, x.seq, x.op, x.info};
        --size_;
        pop_head(*from);
        return e;
      }
    }
    return pop_queued();
  }

private:
  [[gnu::noinline]] Event pop_queued() {
    const Event e = top();
    --size_;
    if (!past_.empty()) {
      std::pop_heap(past_.begin(), past_.end(), later);
      past_.pop_back();
      return e;
    }
    if (from_ == From::Unordered) {
      std::pop_heap(unordered_.begin(), unordered_.end(), later);
      unordered_.pop_back();
      return e;
    }
    List &l = lists_[current_];
    pop_head(from_ == From::List ? l : lists_[l.late]);
    return e;
  }

public:
  // Bytes the queue holds (its pool only grows, so this is also its peak).
  [[nodiscard]] std::size_t capacity_bytes() const noexcept {
    return pool_.capacity() * sizeof(Entry) + blocks_.capacity() * sizeof(Block) +
           lists_.capacity() * sizeof(List) + times_.capacity() * sizeof(Pending) +
           slots_.capacity() * sizeof(Slot) +
           (past_.capacity() + unordered_.capacity()) * sizeof(Event);
  }

private:
  static constexpr std::uint32_t kNone = 0xffffffffU;
  static constexpr std::size_t kInitialSlots = 64;
  static constexpr unsigned kClasses = 4; // block sizes 4 << (2 * class) entries
  static constexpr unsigned kLargestClass = kClasses - 1U;

  // A block of a list: `capacity` entries at pool_[start], the first `used` of them written.
  struct Block {
    std::uint32_t start;
    std::uint32_t used;
    std::uint32_t next;
    std::uint8_t size_class;
  };
  struct List {
    std::uint64_t last_seq = 0;
    std::uint32_t head_block = kNone;
    std::uint32_t tail_block = kNone;
    std::uint32_t head_offset = 0;
    std::uint32_t count = 0;
    std::uint32_t late = kNone;  // the list of this time's late entries (kNone: none yet)
    std::uint8_t size_class = 0; // of the tail block
  };
  enum class From : std::uint8_t { List, Late, Unordered }; // where top() found the event
  struct Pending { // a future time and its list, in a min-heap on time
    SimTime time;
    std::uint32_t list;
  };
  struct Slot { // open-addressing hash: pending time -> list (list == kNone: empty)
    SimTime time;
    std::uint32_t list;
  };

  static bool later(const Event &a, const Event &b) noexcept { return earlier(b, a); }

  [[nodiscard]] const Entry &head(const List &l) const noexcept {
    return pool_[blocks_[l.head_block].start + l.head_offset];
  }

  void pop_head(List &l) {
    --l.count;
    if (++l.head_offset == blocks_[l.head_block].used) {
      const std::uint32_t done = l.head_block;
      l.head_block = blocks_[done].next;
      l.head_offset = 0;
      free_block(done);
      if (l.head_block == kNone) {
        l.tail_block = kNone;
      }
    }
  }

  // A second event (at `time`) arrives while the solo one waits.
  [[gnu::noinline]] void unsolo(SimTime time) {
    // A second event: the solo one (time now_, the only one queued) becomes the first entry
    // of now_'s list, exactly where it would be had it been pushed the ordinary way.
    has_solo_ = false;
    if (time < now_) {
      // Nothing at now_ has been served yet and nothing else is queued, so the current time
      // can go back to the new event's instead of keeping it in the past heap: the engine's
      // start-up (ops ready at time 0 admitting more at time 0 after a message was queued)
      // would otherwise put millions of entries there.
      now_ = time;
      const std::uint32_t list = list_of(solo_.time);
      append(lists_[list], Entry{solo_.seq, solo_.op, solo_.info});
    } else {
      current_ = new_list();
      append(lists_[current_], Entry{solo_.seq, solo_.op, solo_.info});
    }
  }

  // An entry older than its time's list holds: append it to the time's late list if that keeps
  // the late list sorted, else to the unordered heap.
  [[gnu::noinline]] void push_late(std::uint32_t list, const Event &e) {
    std::uint32_t late = lists_[list].late;
    if (late == kNone) {
      late = new_list(); // may move lists_
      lists_[list].late = late;
    }
    List &l = lists_[late];
    if (l.count == 0 || e.seq > l.last_seq) {
      append(l, Entry{e.seq, e.op, e.info});
      return;
    }
    unordered_.push_back(e);
    std::push_heap(unordered_.begin(), unordered_.end(), later);
  }
  static bool later_time(const Pending &a, const Pending &b) noexcept { return a.time > b.time; }
  static std::uint32_t capacity_of(unsigned size_class) noexcept { return 4U << (2U * size_class); }

  [[nodiscard]] std::size_t slot_of(SimTime time) const noexcept {
    // Fibonacci hashing: times are multiples of small constants, the high bits mix them.
    return static_cast<std::size_t>((time * 0x9E3779B97F4A7C15ULL) >> shift_);
  }

  // The list of a future time, created (and its time queued) when new.
  [[gnu::always_inline]] std::uint32_t list_of(SimTime time) {
    if (time == cached_time_ && cached_list_ != kNone) {
      return cached_list_;
    }
    return look_up(time);
  }

  [[gnu::noinline]] std::uint32_t look_up(SimTime time) {
    const std::size_t mask = slots_.size() - 1U;
    std::size_t i = slot_of(time);
    while (slots_[i].list != kNone) {
      if (slots_[i].time == time) {
        cached_time_ = time;
        cached_list_ = slots_[i].list;
        return cached_list_;
      }
      i = (i + 1U) & mask;
    }
    const std::uint32_t list = new_list();
    slots_[i] = Slot{time, list};
    times_.push_back(Pending{time, list});
    std::push_heap(times_.begin(), times_.end(), later_time);
    if (2U * times_.size() > slots_.size()) {
      rehash(2U * slots_.size());
    }
    cached_time_ = time;
    cached_list_ = list;
    return list;
  }

  void rehash(std::size_t capacity) {
    slots_.assign(capacity, Slot{0, kNone});
    shift_ = 64U - static_cast<unsigned>(std::countr_zero(capacity));
    const std::size_t mask = capacity - 1U;
    for (const Pending &p : times_) {
      std::size_t i = slot_of(p.time);
      while (slots_[i].list != kNone) {
        i = (i + 1U) & mask;
      }
      slots_[i] = Slot{p.time, p.list};
    }
  }

  // Remove `time` from the hash (backward-shift deletion keeps probe chains intact).
  void erase_slot(SimTime time) {
    const std::size_t mask = slots_.size() - 1U;
    std::size_t i = slot_of(time);
    while (slots_[i].time != time || slots_[i].list == kNone) {
      i = (i + 1U) & mask;
    }
    std::size_t hole = i;
    for (std::size_t j = (hole + 1U) & mask; slots_[j].list != kNone; j = (j + 1U) & mask) {
      const std::size_t home = slot_of(slots_[j].time);
      // Move j into the hole unless its home lies cyclically in (hole, j].
      if (((j - home) & mask) >= ((j - hole) & mask)) {
        slots_[hole] = slots_[j];
        hole = j;
      }
    }
    slots_[hole].list = kNone;
    if (cached_time_ == time) {
      cached_list_ = kNone;
    }
  }

  // The current time's entries are all served: move to the earliest pending time.
  void advance() {
    if (current_ != kNone) {
      free_list(current_);
      current_ = kNone;
    }
    SimTime next = ~SimTime{0};
    if (!times_.empty()) {
      next = times_.front().time;
    }
    if (!unordered_.empty()) {
      next = std::min(next, unordered_.front().time);
    }
    now_ = next;
    if (!times_.empty() && times_.front().time == next) {
      current_ = times_.front().list;
      std::pop_heap(times_.begin(), times_.end(), later_time);
      times_.pop_back();
      erase_slot(next);
    }
  }

  std::uint32_t new_list() {
    std::uint32_t id = 0;
    if (free_lists_.empty()) {
      id = static_cast<std::uint32_t>(lists_.size());
      lists_.emplace_back();
    } else {
      id = free_lists_.back();
      free_lists_.pop_back();
      lists_[id] = List{};
    }
    return id;
  }

  void free_list(std::uint32_t id) {
    List &l = lists_[id];
    if (l.late != kNone) {
      free_list(l.late);
    }
    for (std::uint32_t b = l.head_block; b != kNone;) {
      const std::uint32_t next = blocks_[b].next;
      free_block(b);
      b = next;
    }
    free_lists_.push_back(id);
  }

  void append(List &l, const Entry &e) {
    if (l.tail_block == kNone || blocks_[l.tail_block].used == capacity_of(l.size_class)) {
      const unsigned size_class =
          l.tail_block == kNone ? 0U : std::min(kLargestClass, l.size_class + 1U);
      const std::uint32_t b = new_block(size_class);
      if (l.tail_block == kNone) {
        l.head_block = b;
        l.head_offset = 0;
      } else {
        blocks_[l.tail_block].next = b;
      }
      l.tail_block = b;
      l.size_class = static_cast<std::uint8_t>(size_class);
    }
    Block &t = blocks_[l.tail_block];
    pool_[t.start + t.used] = e;
    ++t.used;
    ++l.count;
    l.last_seq = e.seq;
  }

  std::uint32_t new_block(unsigned size_class) {
    std::uint32_t id = 0;
    if (free_blocks_[size_class].empty()) {
      id = static_cast<std::uint32_t>(blocks_.size());
      const auto start = static_cast<std::uint32_t>(pool_.size());
      pool_.resize(pool_.size() + capacity_of(size_class));
      blocks_.push_back(Block{start, 0, kNone, static_cast<std::uint8_t>(size_class)});
    } else {
      id = free_blocks_[size_class].back();
      free_blocks_[size_class].pop_back();
      blocks_[id].used = 0;
      blocks_[id].next = kNone;
    }
    return id;
  }

  void free_block(std::uint32_t id) { free_blocks_[blocks_[id].size_class].push_back(id); }

  SimTime now_ = 0;               // the current time: lists before it are all served
  std::uint32_t current_ = kNone; // the list of time now_ (kNone: none yet)
  std::size_t size_ = 0;
  std::vector<Entry, HugePageAllocator<Entry>> pool_; // the entries of all blocks
  std::vector<Block> blocks_;
  std::vector<std::uint32_t> free_blocks_[kClasses]; // NOLINT(modernize-avoid-c-arrays)
  std::vector<List> lists_;
  std::vector<std::uint32_t> free_lists_;
  std::vector<Pending> times_; // min-heap of the future times that have a list
  std::vector<Slot> slots_;
  unsigned shift_ = 64U - 6U; // 64 - log2(slots_.size())
  SimTime cached_time_ = 0;   // the last time looked up and its list (append bursts)
  std::uint32_t cached_list_ = kNone;
  std::vector<Event> past_;      // min-heap of events before now_
  std::vector<Event> unordered_; // min-heap of entries out of their list's seq order
  Event solo_{};                 // the only queued event, when has_solo_ (at time now_)
  bool has_solo_ = false;
  Event head_{}; // top() of a list entry (entries do not store the time)
  From from_ = From::List;
};

} // namespace parjava::loggp
