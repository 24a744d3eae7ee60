// Send <-> receive matching per MPI envelope (communicator, source, destination, tag) in MPI's
// non-overtaking order (MPI 4.0 §3.5): among the messages of one envelope, the k-th sent is
// received by the k-th receive posted. Receives carry the actual source and tag (what OTF2
// records), so a wildcard receive has a concrete envelope like any other. Scalasca pairs them
// the same way when it replays a trace (anchors/mpi-wait-state-patterns.md §0).
//
// Sends are ordered by their start (MPI_Send, MPI_Isend, ...), receives by their posting: an
// Irecv takes its place at the MPI_Irecv, not at the Wait that completed it, so several Irecvs
// completed by one Waitall in any order still pair in the order they were posted.
//
// Cost: two linear passes to list the messages, three stable counting sorts by rank (O(n + P)),
// then one merge; only groups that mix communicators or tags between one pair of ranks are
// sorted by (communicator, tag).
#include <algorithm>
#include <cstddef>
#include <limits>
#include <vector>

#include "matching_passes.hpp"

namespace parjava::trace::detail {
namespace {

struct Message {
  EventIndex event;  // the Send/IsendPost or Recv/IrecvComplete event
  std::int32_t self; // rank of the process that holds the event
  std::int32_t peer; // destination of a send, actual source of a receive
  std::uint32_t comm;
  std::int32_t tag;
};

// Stable counting sort of `v` by key(m) in [0, buckets).
template <typename Key>
void counting_sort(std::vector<Message> &v, std::vector<Message> &scratch, std::size_t buckets,
                   Key key) {
  std::vector<std::size_t> start(buckets + 1, 0);
  for (const auto &m : v) {
    ++start[key(m) + 1];
  }
  for (std::size_t b = 0; b < buckets; ++b) {
    start[b + 1] += start[b];
  }
  scratch.resize(v.size());
  for (const auto &m : v) {
    scratch[start[key(m)]++] = m;
  }
  v.swap(scratch);
}

bool same_stream(const Message &a, const Message &b) { return a.comm == b.comm && a.tag == b.tag; }
bool stream_before(const Message &a, const Message &b) {
  return a.comm != b.comm ? a.comm < b.comm : a.tag < b.tag;
}

class Matcher {
public:
  Matcher(Column<EventIndex> &match, MatchReport &report) : match_(match), report_(report) {}

  // Pair the messages between one sender and one receiver.
  void pair_group(Message *sends, std::size_t ns, Message *recvs, std::size_t nr) {
    const Message &first = ns != 0 ? sends[0] : recvs[0];
    bool uniform = true;
    for (std::size_t i = 0; i < ns && uniform; ++i) {
      uniform = same_stream(sends[i], first);
    }
    for (std::size_t i = 0; i < nr && uniform; ++i) {
      uniform = same_stream(recvs[i], first);
    }
    if (uniform) {
      zip(sends, ns, recvs, nr);
      return;
    }
    std::stable_sort(sends, sends + ns, stream_before);
    std::stable_sort(recvs, recvs + nr, stream_before);
    std::size_t a = 0;
    std::size_t b = 0;
    while (a < ns || b < nr) {
      const Message &key =
          (b == nr || (a < ns && !stream_before(recvs[b], sends[a]))) ? sends[a] : recvs[b];
      auto a_end = a;
      while (a_end < ns && same_stream(sends[a_end], key)) {
        ++a_end;
      }
      auto b_end = b;
      while (b_end < nr && same_stream(recvs[b_end], key)) {
        ++b_end;
      }
      zip(sends + a, a_end - a, recvs + b, b_end - b);
      a = a_end;
      b = b_end;
    }
  }

private:
  void zip(const Message *sends, std::size_t ns, const Message *recvs, std::size_t nr) {
    const auto paired = std::min(ns, nr);
    for (std::size_t i = 0; i < paired; ++i) {
      match_[static_cast<std::size_t>(sends[i].event)] = recvs[i].event;
      match_[static_cast<std::size_t>(recvs[i].event)] = sends[i].event;
    }
    report_.sends += ns - paired;
    report_.receives += nr - paired;
  }

  Column<EventIndex> &match_;
  MatchReport &report_;
};

bool is_send(EventKind k) { return k == EventKind::Send || k == EventKind::IsendPost; }
bool is_receive(EventKind k) {
  return k == EventKind::Recv || k == EventKind::IrecvPost || k == EventKind::IrecvComplete;
}

} // namespace

void match_messages(Trace &trace, const Processes &processes) {
  const auto &e = trace.events;
  auto &report = trace.unmatched;
  const auto ranks = processes.count();
  std::vector<Message> sends;
  std::vector<Message> recvs;
  std::vector<EventIndex> scratch;

  // Messages in (own rank, order) order.
  for (std::int32_t r = 0; r < ranks; ++r) {
    const auto &locations = processes.locations_of_rank[static_cast<std::size_t>(r)];
    if (locations.empty()) {
      continue;
    }
    auto message_of = [&](EventIndex i) {
      const auto u = static_cast<std::size_t>(i);
      return Message{i, r, e.peer[u], e.comm[u], e.tag[u]};
    };
    for_each_in_process(
        trace, locations, is_send,
        [&](EventIndex i) {
          const auto done = e.link[static_cast<std::size_t>(i)];
          // Cancelled sends never arrive (Scalasca ignores them too).
          if (done == kNoEvent ||
              e.kind[static_cast<std::size_t>(done)] != EventKind::RequestCancelled) {
            sends.push_back(message_of(i));
          }
        },
        scratch);
    for_each_in_process(
        trace, locations, is_receive,
        [&](EventIndex i) {
          const auto u = static_cast<std::size_t>(i);
          const auto kind = e.kind[u];
          const auto linked = e.link[u];
          if (kind == EventKind::IrecvPost) {
            // The receive takes the place of its post; cancelled or never completed posts
            // receive nothing.
            if (linked != kNoEvent &&
                e.kind[static_cast<std::size_t>(linked)] == EventKind::IrecvComplete) {
              recvs.push_back(message_of(linked));
            }
            return;
          }
          // A Recv, or a completion without its post (placed where it completed); completions
          // of a post were placed at the post.
          if (kind == EventKind::Recv || linked == kNoEvent) {
            recvs.push_back(message_of(i));
          }
        },
        scratch);
  }
  // Message events outside any process (no rank) cannot be paired.
  for (std::uint32_t l = 0; l < trace.locations.size(); ++l) {
    if (is_process_location(trace.locations[l])) {
      continue;
    }
    for (auto i = trace.location_begin(l); i < trace.location_end(l); ++i) {
      const auto kind = e.kind[static_cast<std::size_t>(i)];
      report.sends += is_send(kind) ? 1U : 0U;
      report.receives += kind == EventKind::Recv || kind == EventKind::IrecvComplete ? 1U : 0U;
    }
  }

  // A peer that is not a rank of this trace (a truncated trace, MPI_PROC_NULL) has no partner.
  auto in_range = [ranks](const Message &m) { return m.peer >= 0 && m.peer < ranks; };
  const auto valid_sends = std::stable_partition(sends.begin(), sends.end(), in_range);
  report.sends += static_cast<std::uint64_t>(sends.end() - valid_sends);
  sends.erase(valid_sends, sends.end());
  const auto valid_recvs = std::stable_partition(recvs.begin(), recvs.end(), in_range);
  report.receives += static_cast<std::uint64_t>(recvs.end() - valid_recvs);
  recvs.erase(valid_recvs, recvs.end());

  // Both lists into (receiver, sender, order) order.
  std::vector<Message> tmp;
  const auto buckets = static_cast<std::size_t>(ranks);
  auto peer_key = [](const Message &m) { return static_cast<std::size_t>(m.peer); };
  auto self_key = [](const Message &m) { return static_cast<std::size_t>(m.self); };
  counting_sort(sends, tmp, buckets, peer_key); // (src, order) -> (dst, src, order)
  counting_sort(recvs, tmp, buckets, peer_key); // (dst, order) -> (src, dst, order)
  counting_sort(recvs, tmp, buckets, self_key); // -> (dst, src, order)
  tmp = {};

  auto send_group = [](const Message &m) {
    return (static_cast<std::uint64_t>(m.peer) << 32U) | static_cast<std::uint32_t>(m.self);
  };
  auto recv_group = [](const Message &m) {
    return (static_cast<std::uint64_t>(m.self) << 32U) | static_cast<std::uint32_t>(m.peer);
  };
  Matcher matcher(trace.events.match, report);
  constexpr auto kEnd = std::numeric_limits<std::uint64_t>::max();
  std::size_t a = 0;
  std::size_t b = 0;
  while (a < sends.size() || b < recvs.size()) {
    const auto ka = a < sends.size() ? send_group(sends[a]) : kEnd;
    const auto kb = b < recvs.size() ? recv_group(recvs[b]) : kEnd;
    const auto key = std::min(ka, kb);
    auto a_end = a;
    while (a_end < sends.size() && send_group(sends[a_end]) == key) {
      ++a_end;
    }
    auto b_end = b;
    while (b_end < recvs.size() && recv_group(recvs[b_end]) == key) {
      ++b_end;
    }
    matcher.pair_group(sends.data() + a, a_end - a, recvs.data() + b, b_end - b);
    a = a_end;
    b = b_end;
  }
}

} // namespace parjava::trace::detail
