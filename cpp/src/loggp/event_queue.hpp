// The simulator's event queue, ordered by (time, seq) with seq LogGOPSim's insertion counter
// `aqtime` (anchor §4), so the order is total and equal to LogGOPSim's.
//
// A binary or 4-ary heap of a million pending events is a random walk through megabytes of
// memory on every pop. Simulated time almost never goes backwards, so this is a radix heap
// (Ahuja, Mehlhorn, Orlin, Tarjan 1990) on the time: bucket i >= 1 holds the events whose time
// first differs from the last extracted time in bit i-1, and bucket 0 ("now") the events at
// exactly that time, sorted by seq. Pushes append to a bucket; a pop that empties "now"
// redistributes the lowest non-empty bucket, so each event moves a few times, sequentially.
// Events scheduled in the past (an op on an idle CPU of a multi-CPU host is scheduled at that
// CPU's old free time, anchor §4 "In words") go to a small ordinary heap: every one of them is
// earlier than everything in the radix buckets, so it is served first.
// Private to the loggp part.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
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
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }

  void push(const Event &e) {
    ++size_;
    if (e.time < last_) {
      past_.push_back(e);
      std::push_heap(past_.begin(), past_.end(), later);
    } else if (e.time == last_) {
      push_now(e);
    } else {
      const unsigned b = bucket_of(e.time);
      buckets_[b].push_back(e);
      occupied_ |= std::uint64_t{1} << (b - 1U);
    }
  }

  // The earliest event (the queue must not be empty).
  const Event &top() {
    if (!past_.empty()) {
      return past_.front();
    }
    if (now_head_ == now_.size() && late_.empty()) {
      refill();
    }
    if (late_.empty() || (now_head_ < now_.size() && now_[now_head_].seq < late_.front().seq)) {
      return now_[now_head_];
    }
    return late_.front();
  }

  // The event `k` places after the earliest one when it is already known cheaply (same time
  // bucket), else nullptr. Used only to prefetch the memory upcoming events will touch.
  [[nodiscard]] const Event *peek_ahead(std::size_t k) const noexcept {
    if (!past_.empty() || now_head_ + k >= now_.size()) {
      return nullptr;
    }
    return &now_[now_head_ + k];
  }

  Event pop() {
    const Event e = top();
    --size_;
    if (!past_.empty()) {
      std::pop_heap(past_.begin(), past_.end(), later);
      past_.pop_back();
    } else if (now_head_ < now_.size() && now_[now_head_].seq == e.seq) {
      ++now_head_;
      // Events keep arriving at the current time while it is served (a chain of irequires
      // releases a whole rank at time 0): drop the served prefix once it is half the run.
      if (now_head_ >= kCompactAfter && 2U * now_head_ >= now_.size()) {
        now_.erase(now_.begin(), now_.begin() + static_cast<std::ptrdiff_t>(now_head_));
        now_head_ = 0;
      }
    } else {
      std::pop_heap(late_.begin(), late_.end(), later);
      late_.pop_back();
    }
    return e;
  }

  [[nodiscard]] std::size_t capacity_bytes() const noexcept {
    std::size_t n = now_.capacity() + past_.capacity() + late_.capacity();
    for (const auto &b : buckets_) {
      n += b.capacity();
    }
    return n * sizeof(Event);
  }

private:
  static constexpr std::size_t kCompactAfter = 4096;

  static bool later(const Event &a, const Event &b) noexcept { return earlier(b, a); }

  // Bucket 1..64 of a time after last_: 1 + the highest bit in which it differs from last_.
  [[nodiscard]] unsigned bucket_of(SimTime time) const noexcept {
    return 64U - static_cast<unsigned>(std::countl_zero(time ^ last_));
  }

  void push_now(const Event &e) {
    // New events carry the largest seq so far and append; re-inserted group entries (an older
    // seq) go to a small heap beside the sorted run, so no insertion shifts it.
    if (now_head_ == now_.size() || now_.back().seq < e.seq) {
      now_.push_back(e);
      return;
    }
    late_.push_back(e);
    std::push_heap(late_.begin(), late_.end(), later);
  }

  // "now" is exhausted: advance last_ to the earliest pending time and split its bucket.
  void refill() {
    now_.clear();
    now_head_ = 0;
    const unsigned b = static_cast<unsigned>(std::countr_zero(occupied_)) + 1U;
    std::vector<Event> &bucket = buckets_[b];
    SimTime earliest = bucket.front().time;
    for (const Event &e : bucket) {
      earliest = std::min(earliest, e.time);
    }
    last_ = earliest;
    for (const Event &e : bucket) {
      if (e.time == last_) {
        now_.push_back(e);
      } else {
        const unsigned lower = bucket_of(e.time); // < b: the events share bits above b-1
        buckets_[lower].push_back(e);
        occupied_ |= std::uint64_t{1} << (lower - 1U);
      }
    }
    bucket.clear();
    occupied_ &= ~(std::uint64_t{1} << (b - 1U));
    if (now_.size() > 1) {
      std::sort(now_.begin(), now_.end(),
                [](const Event &x, const Event &y) { return x.seq < y.seq; });
    }
  }

  SimTime last_ = 0;
  std::size_t size_ = 0;
  std::vector<Event> now_; // events at time last_, sorted by seq from now_head_
  std::size_t now_head_ = 0;
  std::vector<Event> late_; // min-heap of events at time last_ pushed out of seq order
  std::array<std::vector<Event>, 65> buckets_;
  std::uint64_t occupied_ = 0; // bit i-1 set: bucket i is not empty
  std::vector<Event> past_;    // min-heap of events before last_
};

} // namespace parjava::loggp
