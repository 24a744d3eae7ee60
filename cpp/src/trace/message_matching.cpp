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
// Cost: the lists come from the per-location pass; each is put in (receiver, sender) order by
// one stable counting sort on the pair (two by rank for very large process counts), then one
// merge. A pair of ranks that mixes a few communicators or tags pairs each (communicator, tag)
// stream in turn; only one mixing many is sorted by stream.
#include <algorithm>
#include <cstddef>
#include <limits>
#include <vector>

#include "matching_passes.hpp"

namespace parjava::trace::detail {
namespace {

using MessageList = std::vector<Message> MatchingLists::*;

// Which process is at which end of a message: (receiver, sender) of an entry of a list of
// process `rank`.
struct Ends {
  std::int32_t receiver;
  std::int32_t sender;
};

// All messages of `member` in every list, in (receiver, sender) order and stable otherwise
// (MPI order within a pair of ranks), without those whose peer is no rank of the trace
// (counted in `unpaired`). With `pair_buckets`, one counting sort on the pair and
// `pair_start` gives where each pair (receiver * ranks + sender) begins; else two counting
// sorts on the ranks. Frees the lists.
template <typename EndsOf, typename RankOf>
Column<Message> order_by_pair(std::vector<MatchingLists> &lists, MessageList member,
                              std::size_t ranks, bool pair_buckets, EndsOf ends_of, RankOf rank_of,
                              std::uint64_t &unpaired, std::vector<std::size_t> &pair_start) {
  auto valid = [ranks](const Message &m) {
    return m.peer >= 0 && static_cast<std::size_t>(m.peer) < ranks;
  };
  std::size_t count = 0;
  std::size_t total = 0;
  for (const auto &l : lists) {
    total += (l.*member).size();
    if (l.rank < 0) {
      continue; // messages of locations without a process were counted as unmatched
    }
    for (const auto &m : l.*member) {
      count += valid(m) ? 1U : 0U;
    }
  }
  unpaired += total - count;
  // Visit the valid messages of the lists with the ends of each.
  auto from_lists = [&](auto visit) {
    for (const auto &l : lists) {
      if (l.rank < 0) {
        continue;
      }
      for (const auto &m : l.*member) {
        if (valid(m)) {
          visit(m, ends_of(m, l.rank));
        }
      }
    }
  };
  // Scatter what `for_each` visits into `out` by key, counting first; `start` ends up as the
  // start of each bucket.
  auto scatter = [count](auto for_each, std::size_t buckets, auto key, Column<Message> &out,
                         std::vector<std::size_t> &start) {
    start.assign(buckets + 1, 0);
    for_each([&](const Message & /*m*/, Ends ends) { ++start[key(ends) + 1]; });
    for (std::size_t b = 0; b < buckets; ++b) {
      start[b + 1] += start[b];
    }
    auto next = start;
    out.resize_for_overwrite(count);
    for_each([&](const Message &m, Ends ends) { out[next[key(ends)]++] = m; });
  };
  Column<Message> ordered;
  if (pair_buckets) {
    scatter(
        from_lists, ranks * ranks,
        [ranks](Ends ends) {
          return static_cast<std::size_t>(ends.receiver) * ranks +
                 static_cast<std::size_t>(ends.sender);
        },
        ordered, pair_start);
  } else {
    std::vector<std::size_t> start;
    Column<Message> by_sender;
    scatter(
        from_lists, ranks, [](Ends ends) { return static_cast<std::size_t>(ends.sender); },
        by_sender, start);
    // Second pass: the process holding an entry is found from its event's location.
    auto from_senders = [&](auto visit) {
      for (const auto &m : by_sender) {
        visit(m, ends_of(m, rank_of(m.event)));
      }
    };
    scatter(
        from_senders, ranks, [](Ends ends) { return static_cast<std::size_t>(ends.receiver); },
        ordered, start);
  }
  for (auto &l : lists) {
    l.*member = {};
  }
  return ordered;
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
    // The (communicator, tag) streams present: usually one, a few when a pair of ranks mixes
    // tags (a halo exchange and a Sendrecv). Each stream pairs in order on its own.
    streams_.clear();
    auto note = [this](const Message &m) {
      for (const auto &s : streams_) {
        if (same_stream(s, m)) {
          return true;
        }
      }
      if (streams_.size() == kFewStreams) {
        return false;
      }
      streams_.push_back(m);
      return true;
    };
    bool few = true;
    for (std::size_t i = 0; i < ns && few; ++i) {
      few = note(sends[i]);
    }
    for (std::size_t i = 0; i < nr && few; ++i) {
      few = note(recvs[i]);
    }
    if (few) {
      if (streams_.size() == 1) {
        zip(sends, ns, recvs, nr);
        return;
      }
      for (const auto &stream : streams_) {
        zip_stream(stream, sends, ns, recvs, nr);
      }
      return;
    }
    // Many streams between two ranks: sort each side by stream, then zip equal streams.
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
  static constexpr std::size_t kFewStreams = 8;

  // Pair the k-th send of `stream` with its k-th receive.
  void zip_stream(const Message &stream, const Message *sends, std::size_t ns, const Message *recvs,
                  std::size_t nr) {
    std::size_t a = 0;
    std::size_t b = 0;
    std::uint64_t unpaired_sends = 0;
    std::uint64_t unpaired_receives = 0;
    for (;;) {
      while (a < ns && !same_stream(sends[a], stream)) {
        ++a;
      }
      while (b < nr && !same_stream(recvs[b], stream)) {
        ++b;
      }
      if (a == ns || b == nr) {
        break;
      }
      match_[static_cast<std::size_t>(sends[a].event)] = recvs[b].event;
      match_[static_cast<std::size_t>(recvs[b].event)] = sends[a].event;
      ++a;
      ++b;
    }
    for (; a < ns; ++a) {
      unpaired_sends += same_stream(sends[a], stream) ? 1U : 0U;
    }
    for (; b < nr; ++b) {
      unpaired_receives += same_stream(recvs[b], stream) ? 1U : 0U;
    }
    report_.sends += unpaired_sends;
    report_.receives += unpaired_receives;
  }

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
  std::vector<Message> streams_; // one message of each stream of the current pair
};

} // namespace

void pair_messages(Trace &trace, std::vector<MatchingLists> &lists, std::int32_t ranks) {
  auto &report = trace.unmatched;
  const auto n = static_cast<std::size_t>(std::max(ranks, 0));
  std::size_t messages = 0;
  for (const auto &l : lists) {
    messages += l.sends.size() + l.receives.size();
  }
  // One bucket per pair of ranks while that table is not larger than the messages.
  const bool pair_buckets = n * n <= std::max<std::size_t>(messages, std::size_t{1} << 16U);
  std::vector<std::int32_t> rank_of_location;
  rank_of_location.reserve(trace.locations.size());
  for (const auto &loc : trace.locations) {
    rank_of_location.push_back(loc.rank);
  }
  auto rank_of = [&](EventIndex i) {
    return rank_of_location[trace.events.location[static_cast<std::size_t>(i)]];
  };
  std::vector<std::size_t> send_start;
  std::vector<std::size_t> recv_start;
  // A send of process `rank` goes to its peer; a receive of process `rank` comes from its peer.
  auto sends = order_by_pair(
      lists, &MatchingLists::sends, n, pair_buckets,
      [](const Message &m, std::int32_t rank) {
        return Ends{m.peer, rank};
      },
      rank_of, report.sends, send_start);
  auto recvs = order_by_pair(
      lists, &MatchingLists::receives, n, pair_buckets,
      [](const Message &m, std::int32_t rank) {
        return Ends{rank, m.peer};
      },
      rank_of, report.receives, recv_start);

  Matcher matcher(trace.events.match, report);
  if (pair_buckets) {
    for (std::size_t pair = 0; pair < n * n; ++pair) {
      const auto ns = send_start[pair + 1] - send_start[pair];
      const auto nr = recv_start[pair + 1] - recv_start[pair];
      if (ns + nr != 0) {
        matcher.pair_group(sends.data() + send_start[pair], ns, recvs.data() + recv_start[pair],
                           nr);
      }
    }
    return;
  }
  // Many ranks: find the pairs again from the events' locations.
  auto send_group = [&](const Message &m) {
    return (static_cast<std::uint64_t>(m.peer) << 32U) |
           static_cast<std::uint32_t>(rank_of(m.event));
  };
  auto recv_group = [&](const Message &m) {
    return (static_cast<std::uint64_t>(rank_of(m.event)) << 32U) |
           static_cast<std::uint32_t>(m.peer);
  };
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
