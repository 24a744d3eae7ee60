// A per-thread event buffer: only its owning thread pushes, so the hot path takes no lock; when
// full it is written to the thread's event file with write(2). A signal handler (on any thread)
// can write out what is pending with flush_from_signal(), which uses async-signal-safe calls
// only and never writes a record twice.
#pragma once

#include <atomic>
#include <csignal>
#include <cstddef>
#include <cstdint>

#include "parjava/tracer/fragment.hpp"

namespace parjava::tracer {

class EventBuffer {
public:
  EventBuffer() = default;
  EventBuffer(const EventBuffer &) = delete;
  EventBuffer &operator=(const EventBuffer &) = delete;

  // storage holds `capacity` records and outlives the buffer; fd is the open event file (its
  // header already written), or -1 to discard records when full (overhead calibration).
  void attach(Record *storage, std::size_t capacity, int fd);

  void push(const Record &r) {
    Record *cur = cur_.load(std::memory_order_relaxed);
    if (cur == end_) {
      flush();
      cur = cur_.load(std::memory_order_relaxed);
    }
    *cur = r;
    // Release: a signal handler or the exit path on another thread sees the record complete.
    cur_.store(cur + 1, std::memory_order_release);
  }

  // Write the pending records and start over (owning thread only).
  void flush();
  // Write the pending records from a signal handler or the exit path. Safe against a flush()
  // interrupted on this thread: records already written are not written again.
  void flush_from_signal();

  // The last record pushed since the last flush, or nullptr.
  [[nodiscard]] const Record *last() const;
  [[nodiscard]] std::size_t pending() const;
  [[nodiscard]] std::uint64_t records_flushed() const { return flushed_; }
  [[nodiscard]] int fd() const { return fd_; }
  // Set when a write failed (disk full, closed file): the trace of this thread is incomplete.
  [[nodiscard]] bool write_failed() const { return write_failed_ != 0; }

private:
  Record *begin_ = nullptr;
  Record *end_ = nullptr;
  std::atomic<Record *> cur_{nullptr};
  int fd_ = -1;
  std::uint64_t flushed_ = 0;
  volatile std::sig_atomic_t flushing_ = 0;
  volatile std::sig_atomic_t write_failed_ = 0;
};

// Write all of [data, data + size) to fd, retrying on EINTR and short writes
// (async-signal-safe). Returns false on error.
bool write_all(int fd, const void *data, std::size_t size);

// Write the FragmentHeader of thread `thread` at the start of a new event file.
bool write_fragment_header(int fd, std::uint32_t thread);

} // namespace parjava::tracer
