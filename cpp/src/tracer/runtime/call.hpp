// The recorder every wrapper uses: it takes the enter time and call site when the wrapper
// starts, the leave time right after the runtime returns, and writes the events inside the
// call followed by the Call record that closes them (fragment.hpp). When the routine is not
// recorded (group off, paused, nested call) it does nothing and costs one table lookup.
#pragma once

#include <cstdint>

#include "process.hpp"

namespace parjava::tracer::runtime {

class Call {
public:
  Call(Routine routine, const void *site) : Call(enter_call(routine), routine, site) {}
  // For overhead calibration: record into a given thread state.
  Call(ThreadState *ts, Routine routine, const void *site) : ts_(ts) {
    if (ts_ == nullptr) {
      return;
    }
    routine_ = static_cast<std::uint16_t>(routine);
    site_ = reinterpret_cast<std::uintptr_t>(site);
    enter_ = now_ticks();
    ts_->in_flight.enter.store(enter_, std::memory_order_relaxed);
    ts_->in_flight.site.store(site_, std::memory_order_relaxed);
    ts_->in_flight.routine.store(routine_, std::memory_order_release);
  }
  Call(const Call &) = delete;
  Call &operator=(const Call &) = delete;
  ~Call() { finish(); }

  explicit operator bool() const { return ts_ != nullptr; }
  [[nodiscard]] bool active() const { return ts_ != nullptr; }
  [[nodiscard]] std::uint64_t enter_time() const { return enter_; }

  // Call right after the runtime call returns.
  void returned() {
    if (ts_ != nullptr && leave_ == 0) {
      leave_ = now_ticks();
    }
  }
  [[nodiscard]] std::uint64_t leave_time() const { return leave_; }

  // An event inside the call, at the enter time (posts, sends, lock requests) or the leave
  // time (receives, completions, collective ends).
  void at_enter(Record r) {
    r.time = enter_;
    ts_->buffer.push(r);
  }
  void at_leave(Record r) {
    returned();
    r.time = leave_;
    ts_->buffer.push(r);
  }
  void set_flags(std::uint8_t flags) { flags_ = flags; }

  void finish() {
    if (ts_ == nullptr) {
      return;
    }
    returned();
    Record r;
    r.kind = RecordKind::Call;
    r.time = enter_;
    r.a = leave_;
    r.b = site_;
    r.routine = routine_;
    r.flags = flags_;
    ts_->buffer.push(r);
    ts_->in_flight.routine.store(0, std::memory_order_release);
    if (leave_ >= ts_->flush_due.load(std::memory_order_relaxed)) {
      periodic_flush(*ts_, leave_);
    }
    ts_->depth = 0;
    ts_ = nullptr;
  }

private:
  ThreadState *ts_;
  std::uint64_t enter_ = 0;
  std::uint64_t leave_ = 0;
  std::uintptr_t site_ = 0;
  std::uint16_t routine_ = 0;
  std::uint8_t flags_ = 0;
};

// The caller's return address: the call site of the wrapped routine in the program.
#define PARJAVA_CALL_SITE() __builtin_return_address(0)

} // namespace parjava::tracer::runtime
