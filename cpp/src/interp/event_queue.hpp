// The discrete-event queue: events ordered by (time, sequence number). The sequence number is
// a global counter given to each new event, so ties are broken by creation order, as in
// LogGOPSim (anchors/loggopsim-semantics.md §4: ts = aqtime++); a re-queued event keeps its
// number. A 4-ary implicit heap over one vector: no allocation per event once the vector has
// grown, and half the depth of a binary heap for the million-process runs.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace parjava::interp {

enum class EventKind : std::uint8_t {
  Resume,   // a logical thread continues (target = context, aux = its wait generation)
  Envelope, // a message's envelope reaches its receiver (target = message)
};

struct Event {
  double time;        // ns
  std::uint64_t seq;
  std::uint32_t target;
  std::uint32_t aux;
  EventKind kind;
};

class EventQueue {
public:
  [[nodiscard]] bool empty() const { return heap_.empty(); }
  [[nodiscard]] std::size_t size() const { return heap_.size(); }
  [[nodiscard]] const Event &top() const { return heap_.front(); }
  [[nodiscard]] std::uint64_t next_seq() { return seq_++; }
  [[nodiscard]] std::size_t peak() const { return peak_; }
  void reserve(std::size_t n) { heap_.reserve(n); }

  void push(double time, EventKind kind, std::uint32_t target, std::uint32_t aux = 0) {
    push_with_seq(time, seq_++, kind, target, aux);
  }

  void push_with_seq(double time, std::uint64_t seq, EventKind kind, std::uint32_t target,
                     std::uint32_t aux) {
    heap_.push_back({time, seq, target, aux, kind});
    sift_up(heap_.size() - 1);
    if (heap_.size() > peak_) {
      peak_ = heap_.size();
    }
  }

  Event pop() {
    Event out = heap_.front();
    const Event last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) {
      sift_down(last);
    }
    return out;
  }

  // Whether an event is due at or before `time` (ties with a lower sequence number included).
  [[nodiscard]] bool due_by(double time) const { return !heap_.empty() && heap_[0].time <= time; }

private:
  static bool before(const Event &a, const Event &b) {
    return a.time < b.time || (a.time == b.time && a.seq < b.seq);
  }

  void sift_up(std::size_t i) {
    const Event e = heap_[i];
    while (i > 0) {
      const std::size_t parent = (i - 1) / 4;
      if (!before(e, heap_[parent])) {
        break;
      }
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }

  // Place `e` (the former last element) starting from the root.
  void sift_down(const Event &e) {
    const std::size_t n = heap_.size();
    std::size_t i = 0;
    while (true) {
      const std::size_t first = 4 * i + 1;
      if (first >= n) {
        break;
      }
      std::size_t best = first;
      const std::size_t last = first + 4 < n ? first + 4 : n;
      for (std::size_t c = first + 1; c < last; ++c) {
        if (before(heap_[c], heap_[best])) {
          best = c;
        }
      }
      if (!before(heap_[best], e)) {
        break;
      }
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = e;
  }

  std::vector<Event> heap_;
  std::uint64_t seq_ = 0;
  std::size_t peak_ = 0;
};

} // namespace parjava::interp
