// Per-thread event buffer (event_buffer.hpp).
#include "parjava/tracer/event_buffer.hpp"

#include <cerrno>
#include <cstring>
#include <unistd.h>

#include "parjava/tracer/routines.hpp"

namespace parjava::tracer {

bool write_all(int fd, const void *data, std::size_t size) {
  const auto *p = static_cast<const char *>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return false;
    }
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

bool write_fragment_header(int fd, std::uint32_t thread) {
  FragmentHeader header{};
  std::memcpy(header.magic, kEventMagic, sizeof header.magic);
  header.record_size = sizeof(Record);
  header.thread = thread;
  header.routine_hash = routine_table_hash();
  return write_all(fd, &header, sizeof header);
}

void EventBuffer::attach(Record *storage, std::size_t capacity, int fd) {
  begin_ = storage;
  end_ = storage + capacity;
  cur_.store(storage, std::memory_order_relaxed);
  fd_ = fd;
}

void EventBuffer::flush() {
  Record *cur = cur_.load(std::memory_order_acquire);
  const auto bytes = static_cast<std::size_t>(cur - begin_) * sizeof(Record);
  // While flushing_ is set, a signal handler on this thread treats the records as written:
  // write(2) on a regular file completes before the handler runs.
  flushing_ = 1;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  if (fd_ >= 0 && bytes > 0 && !write_all(fd_, begin_, bytes)) {
    write_failed_ = 1;
  }
  flushed_ += static_cast<std::uint64_t>(cur - begin_);
  cur_.store(begin_, std::memory_order_release);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  flushing_ = 0;
}

void EventBuffer::flush_from_signal() {
  if (flushing_ != 0 || begin_ == nullptr) {
    return;
  }
  Record *cur = cur_.load(std::memory_order_acquire);
  const auto bytes = static_cast<std::size_t>(cur - begin_) * sizeof(Record);
  if (fd_ >= 0 && bytes > 0 && !write_all(fd_, begin_, bytes)) {
    write_failed_ = 1;
  }
  flushed_ += static_cast<std::uint64_t>(cur - begin_);
  cur_.store(begin_, std::memory_order_release);
}

const Record *EventBuffer::last() const {
  Record *cur = cur_.load(std::memory_order_acquire);
  return cur == begin_ ? nullptr : cur - 1;
}

std::size_t EventBuffer::pending() const {
  return static_cast<std::size_t>(cur_.load(std::memory_order_acquire) - begin_);
}

} // namespace parjava::tracer
