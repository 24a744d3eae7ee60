// Request matching, and pass 2 of match(): processes with several threads.
//
// A post (MpiIsend / MpiIrecvRequest) is completed by the next MpiIsendComplete / MpiIrecv,
// or ended by MpiRequestCancelled, with the same request id in the same process. Request ids
// are reused once a request is complete (MPI handles are), so the table holds only pending
// posts. Tests that did not complete point at the pending post. MPI orders requests and
// messages per process, so a process with several threads is visited in time order across
// them (ties: location order, then record order).
#include <algorithm>
#include <cstddef>
#include <vector>

#include "matching_passes.hpp"

namespace parjava::trace::detail {
namespace {

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

bool is_process_event(EventKind k) {
  switch (k) {
  case EventKind::Send:
  case EventKind::Recv:
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

} // namespace

void apply_request(EventColumns &e, EventIndex i, PendingRequests &pending, MatchingLists &lists,
                   MatchReport &report) {
  const auto u = static_cast<std::size_t>(i);
  const auto kind = e.kind[u];
  const auto id = e.aux[u];
  if (kind == EventKind::IsendPost || kind == EventKind::IrecvPost) {
    ++lists.posts;
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
  ++lists.completed_posts;
  e.link[u] = post;
  e.link[up] = i;
  if (kind == EventKind::IsendComplete) {
    copy_envelope(e, u, up);
  } else if (kind == EventKind::IrecvComplete) {
    copy_envelope(e, up, u);
  }
}

void match_process(Trace &trace, std::int32_t rank, const std::vector<std::uint32_t> &locations,
                   MatchingLists &lists) {
  auto &e = trace.events;
  std::vector<EventIndex> events;
  for (const auto l : locations) {
    for (auto i = trace.location_begin(l); i < trace.location_end(l); ++i) {
      if (is_process_event(e.kind[static_cast<std::size_t>(i)])) {
        events.push_back(i);
      }
    }
  }
  // Locations are visited in order and events are sorted within each, so a stable sort by
  // time breaks ties by location, then by record order.
  std::stable_sort(events.begin(), events.end(), [&e](EventIndex a, EventIndex b) {
    return e.time[static_cast<std::size_t>(a)] < e.time[static_cast<std::size_t>(b)];
  });
  PendingRequests pending;
  for (const auto i : events) {
    const auto kind = e.kind[static_cast<std::size_t>(i)];
    if (kind != EventKind::Send && kind != EventKind::Recv) {
      apply_request(e, i, pending, lists, trace.unmatched);
    }
  }
  // Messages in MPI order: sends at their start, receives at their posting.
  lists.rank = rank;
  auto message = [&e](EventIndex i) {
    const auto u = static_cast<std::size_t>(i);
    return Message{i, e.peer[u], e.comm[u], e.tag[u]};
  };
  for (const auto i : events) {
    const auto u = static_cast<std::size_t>(i);
    const auto kind = e.kind[u];
    const auto linked = e.link[u];
    const auto linked_kind =
        linked == kNoEvent ? EventKind::Generic : e.kind[static_cast<std::size_t>(linked)];
    if (kind == EventKind::Send ||
        (kind == EventKind::IsendPost && linked_kind != EventKind::RequestCancelled)) {
      lists.sends.push_back(message(i));
    } else if (kind == EventKind::Recv ||
               (kind == EventKind::IrecvComplete && linked == kNoEvent)) {
      lists.receives.push_back(message(i));
    } else if (kind == EventKind::IrecvPost && linked_kind == EventKind::IrecvComplete) {
      lists.receives.push_back(message(linked));
    }
  }
}

} // namespace parjava::trace::detail
