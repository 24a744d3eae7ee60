// Request matching per process: a post (MpiIsend / MpiIrecvRequest) is completed by the next
// MpiIsendComplete / MpiIrecv, or ended by MpiRequestCancelled, with the same request id in
// the same process. Request ids are reused once a request is complete (MPI handles are), so
// the table holds only pending posts. Tests that did not complete point at the pending post.
#include <cstddef>
#include <vector>

#include "matching_passes.hpp"

namespace parjava::trace::detail {
namespace {

// Open-addressing map request id -> pending post event (linear probing, backward-shift
// deletion): a few pending requests per process, looked up once per request event.
class PendingRequests {
public:
  PendingRequests() : slots_(16) {}

  void clear() {
    if (size_ != 0) {
      for (auto &s : slots_) {
        s.event = kNoEvent;
      }
      size_ = 0;
    }
  }

  [[nodiscard]] EventIndex find(std::uint64_t id) const {
    for (auto s = home(id);; s = next(s)) {
      if (slots_[s].event == kNoEvent) {
        return kNoEvent;
      }
      if (slots_[s].id == id) {
        return slots_[s].event;
      }
    }
  }

  // Set the pending post of `id`, replacing an older one (a post never completed).
  void put(std::uint64_t id, EventIndex event) {
    if (2 * (size_ + 1) > slots_.size()) {
      grow();
    }
    auto s = home(id);
    while (slots_[s].event != kNoEvent && slots_[s].id != id) {
      s = next(s);
    }
    if (slots_[s].event == kNoEvent) {
      ++size_;
    }
    slots_[s] = {id, event};
  }

  void erase(std::uint64_t id) {
    auto s = home(id);
    for (;; s = next(s)) {
      if (slots_[s].event == kNoEvent) {
        return;
      }
      if (slots_[s].id == id) {
        break;
      }
    }
    // Backward-shift deletion keeps every probe chain unbroken without tombstones.
    auto hole = s;
    for (auto j = next(s); slots_[j].event != kNoEvent; j = next(j)) {
      const auto h = home(slots_[j].id);
      const bool movable = hole <= j ? (h <= hole || h > j) : (h <= hole && h > j);
      if (movable) {
        slots_[hole] = slots_[j];
        hole = j;
      }
    }
    slots_[hole].event = kNoEvent;
    --size_;
  }

private:
  struct Slot {
    std::uint64_t id = 0;
    EventIndex event = kNoEvent;
  };
  [[nodiscard]] std::size_t home(std::uint64_t id) const {
    return static_cast<std::size_t>((id * 0x9E3779B97F4A7C15ULL) >> 32U) & (slots_.size() - 1);
  }
  [[nodiscard]] std::size_t next(std::size_t s) const { return (s + 1) & (slots_.size() - 1); }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    size_ = 0;
    for (const auto &s : old) {
      if (s.event != kNoEvent) {
        put(s.id, s.event);
      }
    }
  }

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
};

bool is_request_event(EventKind k) {
  switch (k) {
  case EventKind::IsendPost:
  case EventKind::IrecvPost:
  case EventKind::IsendComplete:
  case EventKind::IrecvComplete:
  case EventKind::RequestTest:
  case EventKind::RequestCancelled:
    return true;
  default:
    return false;
  }
}

bool completes(EventKind completion, EventKind post) {
  switch (completion) {
  case EventKind::IsendComplete:
    return post == EventKind::IsendPost;
  case EventKind::IrecvComplete:
    return post == EventKind::IrecvPost;
  case EventKind::RequestCancelled:
    return true;
  default:
    return false;
  }
}

void copy_envelope(EventColumns &e, std::size_t to, std::size_t from) {
  e.peer[to] = e.peer[from];
  e.tag[to] = e.tag[from];
  e.comm[to] = e.comm[from];
  e.bytes[to] = e.bytes[from];
}

} // namespace

void match_requests(Trace &trace, const Processes &processes) {
  auto &e = trace.events;
  auto &report = trace.unmatched;
  PendingRequests pending;
  std::vector<EventIndex> scratch;
  std::uint64_t posts = 0;
  std::uint64_t completed_posts = 0;
  auto visit = [&](EventIndex i) {
    const auto u = static_cast<std::size_t>(i);
    const auto kind = e.kind[u];
    const auto id = e.aux[u];
    if (kind == EventKind::IsendPost || kind == EventKind::IrecvPost) {
      ++posts;
      pending.put(id, i);
      return;
    }
    const auto post = pending.find(id);
    if (kind == EventKind::RequestTest) {
      e.link[u] = post;
      return;
    }
    const auto up = static_cast<std::size_t>(post);
    if (post == kNoEvent || !completes(kind, e.kind[up])) {
      ++report.request_completions;
      return;
    }
    pending.erase(id);
    ++completed_posts;
    e.link[u] = post;
    e.link[up] = i;
    if (kind == EventKind::IsendComplete) {
      copy_envelope(e, u, up);
    } else if (kind == EventKind::IrecvComplete) {
      copy_envelope(e, up, u);
    }
  };
  for (const auto &locations : processes.locations_of_rank) {
    if (!locations.empty()) {
      pending.clear();
      for_each_in_process(trace, locations, is_request_event, visit, scratch);
    }
  }
  report.request_posts += posts - completed_posts;
  // Request events at locations without a rank cannot be paired.
  for (std::uint32_t l = 0; l < trace.locations.size(); ++l) {
    if (is_process_location(trace.locations[l])) {
      continue;
    }
    for (auto i = trace.location_begin(l); i < trace.location_end(l); ++i) {
      const auto kind = e.kind[static_cast<std::size_t>(i)];
      if (kind == EventKind::IsendPost || kind == EventKind::IrecvPost) {
        ++report.request_posts;
      } else if (kind == EventKind::IsendComplete || kind == EventKind::IrecvComplete ||
                 kind == EventKind::RequestCancelled) {
        ++report.request_completions;
      }
    }
  }
}

} // namespace parjava::trace::detail
