// The tracer's side of parjava/interval.h: interval markers (seed 004 §3.3) recorded as
// IntervalBegin/IntervalEnd with the marker's file and line. The seed's tool abused self-sends
// with magic tags because its tracer missed MPI_Pcontrol; here markers are first-class events.
// Sites (file pointer, line) are interned once per process ("site" lines of the definitions
// log) behind a per-thread cache, so a marker in a loop costs a clock read and one record.
#include <cstdint>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "line_writer.hpp"
#include "process.hpp"

namespace parjava::tracer::runtime {
namespace {

struct SiteKey {
  const char *file;
  int line;
  bool operator==(const SiteKey &o) const { return file == o.file && line == o.line; }
};

struct SiteKeyHash {
  std::size_t operator()(const SiteKey &k) const {
    return std::hash<const void *>{}(k.file) * 31U + static_cast<std::size_t>(k.line);
  }
};

std::mutex g_mutex;
std::unordered_map<SiteKey, std::uint64_t, SiteKeyHash> g_sites;
std::unordered_set<int> g_named_intervals;

std::uint64_t intern_site(const char *file, int line) {
  struct CacheEntry {
    const char *file = nullptr;
    int line = 0;
    std::uint64_t token = 0;
  };
  thread_local CacheEntry cache[16];
  auto &slot = cache[(reinterpret_cast<std::uintptr_t>(file) ^ static_cast<unsigned>(line)) & 15U];
  if (slot.file == file && slot.line == line && slot.token != 0) {
    return slot.token;
  }
  std::uint64_t token = 0;
  {
    const std::lock_guard lock(g_mutex);
    auto [it, inserted] = g_sites.try_emplace(SiteKey{file, line}, 0);
    if (inserted) {
      it->second = kSiteTokenBit | g_sites.size();
      LineWriter w;
      w.text("site ")
          .number(it->second)
          .space()
          .number(line)
          .space()
          .escaped(file != nullptr ? file : "")
          .end();
      defs_line(w);
    }
    token = it->second;
  }
  slot = {file, line, token};
  return token;
}

void name_interval(int id, const char *name) {
  thread_local int last_named = -1;
  if (id == last_named) {
    return;
  }
  {
    const std::lock_guard lock(g_mutex);
    if (g_named_intervals.insert(id).second) {
      LineWriter w;
      w.text("interval ")
          .number(id)
          .space()
          .escaped(name != nullptr ? std::string_view(name) : std::string_view())
          .end();
      defs_line(w);
    }
  }
  last_named = id;
}

void marker(RecordKind kind, int id, const char *name, const char *file, int line) {
  if (!g_markers_on.load(std::memory_order_relaxed)) {
    return;
  }
  ThreadState *ts = thread_state();
  if (ts == nullptr || ts->depth != 0) {
    return;
  }
  const auto time = now_ticks();
  if (kind == RecordKind::IntervalBegin) {
    name_interval(id, name);
  }
  Record r;
  r.kind = kind;
  r.time = time;
  r.tag = id;
  r.b = intern_site(file, line);
  ts->buffer.push(r);
}

} // namespace
} // namespace parjava::tracer::runtime

extern "C" {

void parjava_tracer_interval_begin(int id, const char *name, const char *file, int line) {
  parjava::tracer::runtime::marker(parjava::tracer::RecordKind::IntervalBegin, id, name, file,
                                   line);
}

void parjava_tracer_interval_end(int id, const char *file, int line) {
  parjava::tracer::runtime::marker(parjava::tracer::RecordKind::IntervalEnd, id, nullptr, file,
                                   line);
}

} // extern "C"
