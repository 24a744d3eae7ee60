// Request table of the tracer runtime (requests.hpp): open addressing behind a spin lock. It is
// touched only by non-blocking calls and completions, and allocates only when it grows.
#include "requests.hpp"

#include <atomic>
#include <type_traits>
#include <vector>

namespace parjava::tracer::runtime {
namespace {

constexpr std::uintptr_t kEmpty = 0;
constexpr std::uintptr_t kTombstone = 1;

template <typename Handle> std::uintptr_t handle_bits(Handle r) {
  if constexpr (std::is_pointer_v<Handle>) {
    return reinterpret_cast<std::uintptr_t>(r);
  } else {
    return static_cast<std::uintptr_t>(r) + 2;
  }
}

struct Slot {
  std::uintptr_t key = kEmpty;
  RequestInfo info;
};

class SpinLock {
public:
  void lock() {
    while (flag_.test_and_set(std::memory_order_acquire)) {
      while (flag_.test(std::memory_order_relaxed)) {
      }
    }
  }
  void unlock() { flag_.clear(std::memory_order_release); }

private:
  std::atomic_flag flag_;
};

class Guard {
public:
  explicit Guard(SpinLock &l) : lock_(l) { lock_.lock(); }
  ~Guard() { lock_.unlock(); }
  Guard(const Guard &) = delete;
  Guard &operator=(const Guard &) = delete;

private:
  SpinLock &lock_;
};

SpinLock g_lock;
std::vector<Slot> g_slots(1024);
std::size_t g_used = 0; // live entries plus tombstones
std::atomic<std::uint64_t> g_next_id{1};

std::size_t home(std::uintptr_t key, std::size_t mask) {
  return static_cast<std::size_t>((key >> 3) * 0x9E3779B97F4A7C15ULL) & mask;
}

Slot *find_locked(std::uintptr_t key) {
  const auto mask = g_slots.size() - 1;
  for (std::size_t i = home(key, mask), n = 0; n < g_slots.size(); i = (i + 1) & mask, ++n) {
    if (g_slots[i].key == key) {
      return &g_slots[i];
    }
    if (g_slots[i].key == kEmpty) {
      return nullptr;
    }
  }
  return nullptr;
}

void insert_locked(std::uintptr_t key, const RequestInfo &info);

// Rehash into a table at least four times the live entries (dropping tombstones), so a long
// run of posts and completions keeps the table small.
void grow_locked() {
  std::size_t live = 0;
  for (const auto &s : g_slots) {
    live += (s.key != kEmpty && s.key != kTombstone) ? 1 : 0;
  }
  std::size_t size = 1024;
  while (size < 4 * (live + 1)) {
    size *= 2;
  }
  std::vector<Slot> old(size);
  old.swap(g_slots);
  g_used = 0;
  for (const auto &s : old) {
    if (s.key != kEmpty && s.key != kTombstone) {
      insert_locked(s.key, s.info);
    }
  }
}

void insert_locked(std::uintptr_t key, const RequestInfo &info) {
  if (Slot *s = find_locked(key); s != nullptr) {
    s->info = info;
    return;
  }
  if ((g_used + 1) * 2 > g_slots.size()) {
    grow_locked();
  }
  const auto mask = g_slots.size() - 1;
  for (std::size_t i = home(key, mask);; i = (i + 1) & mask) {
    if (g_slots[i].key == kEmpty || g_slots[i].key == kTombstone) {
      if (g_slots[i].key == kEmpty) {
        ++g_used;
      }
      g_slots[i].key = key;
      g_slots[i].info = info;
      return;
    }
  }
}

} // namespace

std::uint64_t next_request_id() { return g_next_id.fetch_add(1, std::memory_order_relaxed); }

void request_posted(MPI_Request handle, const RequestInfo &info) {
  if (handle == MPI_REQUEST_NULL) {
    return;
  }
  const Guard guard(g_lock);
  insert_locked(handle_bits(handle), info);
}

bool request_find(MPI_Request handle, RequestInfo &out) {
  if (handle == MPI_REQUEST_NULL) {
    return false;
  }
  const Guard guard(g_lock);
  if (const Slot *s = find_locked(handle_bits(handle)); s != nullptr) {
    out = s->info;
    return true;
  }
  return false;
}

void request_started(MPI_Request handle, std::uint64_t id) {
  const Guard guard(g_lock);
  if (Slot *s = find_locked(handle_bits(handle)); s != nullptr) {
    s->info.id = id;
    s->info.active = true;
    s->info.cancel_requested = false;
  }
}

void request_completed(MPI_Request handle) {
  const Guard guard(g_lock);
  if (Slot *s = find_locked(handle_bits(handle)); s != nullptr) {
    if (s->info.persistent) {
      s->info.active = false;
    } else {
      s->key = kTombstone;
    }
  }
}

void request_cancel(MPI_Request handle) {
  const Guard guard(g_lock);
  if (Slot *s = find_locked(handle_bits(handle)); s != nullptr) {
    s->info.cancel_requested = true;
  }
}

void request_forget(MPI_Request handle) {
  const Guard guard(g_lock);
  if (Slot *s = find_locked(handle_bits(handle)); s != nullptr) {
    s->key = kTombstone;
  }
}

} // namespace parjava::tracer::runtime
