// Request table of the tracer runtime (requests.hpp): open addressing on the handle (several
// slots may share one handle), behind a spin lock. It is touched only by non-blocking calls and
// completions, and allocates only when it grows.
#include "requests.hpp"

#include <atomic>
#include <type_traits>
#include <vector>

namespace parjava::tracer::runtime {
namespace {

constexpr std::uintptr_t kEmpty = 0;
constexpr std::uintptr_t kTombstone = 1;
// Requests kept per shared handle: beyond this the oldest is dropped (a program that never
// waits on immediately completed requests must not grow the table without bound).
constexpr int kMaxPerHandle = 256;

template <typename Handle> std::uintptr_t handle_bits(Handle r) {
  if constexpr (std::is_pointer_v<Handle>) {
    return reinterpret_cast<std::uintptr_t>(r);
  } else {
    return static_cast<std::uintptr_t>(r) + 2;
  }
}

struct Slot {
  std::uintptr_t key = kEmpty;
  const MPI_Request *where = nullptr;
  std::uint64_t order = 0; // insertion order: the oldest request of a shared handle goes first
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
std::size_t g_used = 0; // slots taken from empty (live entries plus tombstones)
std::size_t g_live = 0;
std::uint64_t g_order = 0;
std::atomic<std::uint64_t> g_next_id{1};

std::size_t home(std::uintptr_t key, std::size_t mask) {
  return static_cast<std::size_t>((key >> 3) * 0x9E3779B97F4A7C15ULL) & mask;
}

// The slot of (key, where), else the oldest slot with `key`; nullptr if none.
Slot *find_locked(std::uintptr_t key, const MPI_Request *where) {
  const auto mask = g_slots.size() - 1;
  Slot *oldest = nullptr;
  for (std::size_t i = home(key, mask), n = 0; n < g_slots.size(); i = (i + 1) & mask, ++n) {
    Slot &s = g_slots[i];
    if (s.key == kEmpty) {
      break;
    }
    if (s.key != key) {
      continue;
    }
    if (s.where == where) {
      return &s;
    }
    if (oldest == nullptr || s.order < oldest->order) {
      oldest = &s;
    }
  }
  return oldest;
}

void erase_locked(Slot *s) {
  s->key = kTombstone;
  --g_live;
}

void insert_locked(std::uintptr_t key, const MPI_Request *where, const RequestInfo &info);

// Rehash into a table at least four times the live entries, dropping tombstones.
void rehash_locked() {
  std::size_t size = 1024;
  while (size < 4 * (g_live + 1)) {
    size *= 2;
  }
  std::vector<Slot> old(size);
  old.swap(g_slots);
  g_used = 0;
  g_live = 0;
  for (const auto &s : old) {
    if (s.key != kEmpty && s.key != kTombstone) {
      insert_locked(s.key, s.where, s.info);
    }
  }
}

void insert_locked(std::uintptr_t key, const MPI_Request *where, const RequestInfo &info) {
  // The program's variable now holds this request: an older one recorded there is gone.
  const auto mask = g_slots.size() - 1;
  int same_handle = 0;
  Slot *oldest = nullptr;
  for (std::size_t i = home(key, mask), n = 0; n < g_slots.size(); i = (i + 1) & mask, ++n) {
    Slot &s = g_slots[i];
    if (s.key == kEmpty) {
      break;
    }
    if (s.key == key) {
      if (s.where == where) {
        s.info = info;
        s.order = ++g_order;
        return;
      }
      ++same_handle;
      if (oldest == nullptr || s.order < oldest->order) {
        oldest = &s;
      }
    }
  }
  if (same_handle >= kMaxPerHandle && oldest != nullptr) {
    erase_locked(oldest);
  }
  if ((g_used + 1) * 2 > g_slots.size()) {
    rehash_locked();
  }
  const auto m = g_slots.size() - 1;
  for (std::size_t i = home(key, m);; i = (i + 1) & m) {
    Slot &s = g_slots[i];
    if (s.key == kEmpty || s.key == kTombstone) {
      if (s.key == kEmpty) {
        ++g_used;
      }
      s.key = key;
      s.where = where;
      s.order = ++g_order;
      s.info = info;
      ++g_live;
      return;
    }
  }
}

} // namespace

std::uint64_t next_request_id() { return g_next_id.fetch_add(1, std::memory_order_relaxed); }

void request_posted(MPI_Request handle, const MPI_Request *where, const RequestInfo &info) {
  if (handle == MPI_REQUEST_NULL) {
    return;
  }
  const Guard guard(g_lock);
  insert_locked(handle_bits(handle), where, info);
}

bool request_find(MPI_Request handle, const MPI_Request *where, RequestInfo &out) {
  if (handle == MPI_REQUEST_NULL) {
    return false;
  }
  const Guard guard(g_lock);
  if (const Slot *s = find_locked(handle_bits(handle), where); s != nullptr) {
    out = s->info;
    return true;
  }
  return false;
}

bool request_complete(MPI_Request handle, const MPI_Request *where, RequestInfo &out) {
  if (handle == MPI_REQUEST_NULL) {
    return false;
  }
  const Guard guard(g_lock);
  Slot *s = find_locked(handle_bits(handle), where);
  if (s == nullptr || (s->info.persistent && !s->info.active)) {
    return false;
  }
  out = s->info;
  if (s->info.persistent) {
    s->info.active = false;
  } else {
    erase_locked(s);
  }
  return true;
}

bool request_start(MPI_Request handle, const MPI_Request *where, RequestInfo &out) {
  const Guard guard(g_lock);
  Slot *s = find_locked(handle_bits(handle), where);
  if (s == nullptr || !s->info.persistent) {
    return false;
  }
  s->info.id = next_request_id();
  s->info.active = true;
  s->info.cancel_requested = false;
  out = s->info;
  return true;
}

void request_cancel(MPI_Request handle, const MPI_Request *where) {
  const Guard guard(g_lock);
  if (Slot *s = find_locked(handle_bits(handle), where); s != nullptr) {
    s->info.cancel_requested = true;
  }
}

void request_forget(MPI_Request handle, const MPI_Request *where) {
  const Guard guard(g_lock);
  if (Slot *s = find_locked(handle_bits(handle), where); s != nullptr) {
    erase_locked(s);
  }
}

} // namespace parjava::tracer::runtime
