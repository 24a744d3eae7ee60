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
// How: the per-location pass lists each process's sends (in start order) and receives (in
// posting order). The sends are put in (receiver, sender) order by one stable counting sort on
// the pair (two on the ranks for very many ranks); then each process's receives, in posting
// order, take the next send of their pair of ranks and (communicator, tag) stream. Receives
// need no reordering, so only the sends are copied (peak memory), and a pair of ranks mixing a
// few streams is served by a cursor per stream; one mixing many is sorted by stream once.
#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <unordered_map>
#include <vector>

#include "clock_dependencies.hpp"
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

// The sends of every pair of ranks, in MPI order, handed out to receives one by one: per pair
// and (communicator, tag) stream, the next send not yet received.
class SendQueues {
public:
  explicit SendQueues(Column<Message> &sends) : sends_(sends) {}

  // The next send of `receive`'s stream among the sends of pair `pair` (positions [begin,
  // end) of the ordered sends), or kNoEvent.
  EventIndex take(std::size_t pair, std::size_t begin, std::size_t end, const Message &receive) {
    if (pair >= state_.size()) {
      state_.resize(pair + 1, State::Unseen);
      next_.resize(pair + 1, 0);
    }
    if (state_[pair] == State::Unseen) {
      classify(pair, begin, end);
    }
    switch (state_[pair]) {
    case State::OneStream: {
      auto &next = next_[pair];
      if (next == end || !same_stream(sends_[next], receive)) {
        return kNoEvent;
      }
      ++taken_;
      return sends_[next++].event;
    }
    case State::FewStreams: {
      // A cursor per stream scans forward, skipping the other streams' sends.
      auto &cursors = few_[pair];
      auto it = std::find_if(cursors.begin(), cursors.end(), [&](const Cursor &c) {
        return c.comm == receive.comm && c.tag == receive.tag;
      });
      if (it == cursors.end()) {
        cursors.push_back({receive.comm, receive.tag, begin});
        it = cursors.end() - 1;
      }
      while (it->next < end && !same_stream(sends_[it->next], receive)) {
        ++it->next;
      }
      if (it->next == end) {
        return kNoEvent;
      }
      ++taken_;
      return sends_[it->next++].event;
    }
    default: {
      // Many streams: the pair's sends were sorted by stream; each stream is a run.
      const auto first = sends_.begin() + static_cast<std::ptrdiff_t>(begin);
      const auto last = sends_.begin() + static_cast<std::ptrdiff_t>(end);
      const auto run = std::equal_range(first, last, receive, stream_before);
      const auto run_begin = static_cast<std::size_t>(run.first - sends_.begin());
      const auto run_end = static_cast<std::size_t>(run.second - sends_.begin());
      auto &next = run_next_.try_emplace(run_begin, run_begin).first->second;
      if (next == run_end) {
        return kNoEvent;
      }
      ++taken_;
      return sends_[next++].event;
    }
    }
  }

  [[nodiscard]] std::uint64_t taken() const { return taken_; }

private:
  enum class State : std::uint8_t { Unseen, OneStream, FewStreams, Sorted };
  struct Cursor {
    std::uint32_t comm;
    std::int32_t tag;
    std::size_t next;
  };
  static constexpr std::size_t kFewStreams = 8;

  void classify(std::size_t pair, std::size_t begin, std::size_t end) {
    std::vector<const Message *> streams;
    for (auto i = begin; i < end; ++i) {
      const auto &m = sends_[i];
      if (std::none_of(streams.begin(), streams.end(),
                       [&](const Message *s) { return same_stream(*s, m); })) {
        streams.push_back(&m);
        if (streams.size() > kFewStreams) {
          break;
        }
      }
    }
    if (streams.size() <= 1) {
      state_[pair] = State::OneStream;
      next_[pair] = begin;
    } else if (streams.size() <= kFewStreams) {
      state_[pair] = State::FewStreams;
    } else {
      state_[pair] = State::Sorted;
      std::stable_sort(sends_.begin() + static_cast<std::ptrdiff_t>(begin),
                       sends_.begin() + static_cast<std::ptrdiff_t>(end), stream_before);
    }
  }

  Column<Message> &sends_;
  std::vector<State> state_;
  std::vector<std::size_t> next_;
  std::unordered_map<std::size_t, std::vector<Cursor>> few_;
  std::unordered_map<std::size_t, std::size_t> run_next_;
  std::uint64_t taken_ = 0;
};

} // namespace

void pair_messages(Trace &trace, std::vector<MatchingLists> &lists, std::int32_t ranks,
                   ClockViolations &violations) {
  auto &report = trace.unmatched;
  auto &match = trace.events.match;
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
  // The sends in (receiver, sender) order; a send of process `rank` goes to its peer.
  std::vector<std::size_t> pair_start;
  std::uint64_t unpaired_sends = 0;
  auto sends = order_by_pair(
      lists, &MatchingLists::sends, n, pair_buckets,
      [](const Message &m, std::int32_t rank) {
        return Ends{m.peer, rank};
      },
      rank_of, unpaired_sends, pair_start);
  report.sends += unpaired_sends;

  // Many ranks: the pairs present and their ranges, found from the sends' locations.
  std::unordered_map<std::uint64_t, std::size_t> pair_of_key;
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  if (!pair_buckets) {
    for (std::size_t i = 0; i < sends.size();) {
      const auto receiver = static_cast<std::uint64_t>(sends[i].peer);
      const auto sender = rank_of(sends[i].event);
      auto j = i + 1;
      while (j < sends.size() && static_cast<std::uint64_t>(sends[j].peer) == receiver &&
             rank_of(sends[j].event) == sender) {
        ++j;
      }
      pair_of_key.emplace((receiver << 32U) | static_cast<std::uint32_t>(sender), ranges.size());
      ranges.emplace_back(i, j);
      i = j;
    }
  }

  // Receives in each process's posting order take the next send of their pair and stream.
  // The send's own entries (its match, its time for the clock condition) are far away in the
  // columns, one cache miss each: pairs are written in batches whose send entries are
  // prefetched first, so the misses overlap instead of following one another (at 64 ranks
  // they were most of this pass).
  SendQueues queues(sends);
  auto &e = trace.events;
  constexpr std::size_t kBatch = 32;
  std::array<std::pair<EventIndex, EventIndex>, kBatch> batch{}; // (send, receive)
  std::size_t batched = 0;
  auto flush = [&] {
    for (std::size_t b = 0; b < batched; ++b) {
      const auto [send, receive] = batch[b];
      match[static_cast<std::size_t>(send)] = receive;
      if (is_receive_event(e.kind[static_cast<std::size_t>(receive)])) {
        note_receive(e, send, receive, violations);
      }
    }
    batched = 0;
  };
  for (auto &l : lists) {
    if (l.rank < 0) {
      report.receives += l.receives.size();
      l.receives = {};
      continue;
    }
    for (const auto &r : l.receives) {
      EventIndex send = kNoEvent;
      if (r.peer >= 0 && static_cast<std::size_t>(r.peer) < n) {
        if (pair_buckets) {
          const auto pair = static_cast<std::size_t>(l.rank) * n + static_cast<std::size_t>(r.peer);
          send = queues.take(pair, pair_start[pair], pair_start[pair + 1], r);
        } else {
          const auto key =
              (static_cast<std::uint64_t>(l.rank) << 32U) | static_cast<std::uint32_t>(r.peer);
          const auto found = pair_of_key.find(key);
          if (found != pair_of_key.end()) {
            const auto [begin, end] = ranges[found->second];
            send = queues.take(found->second, begin, end, r);
          }
        }
      }
      if (send == kNoEvent) {
        ++report.receives;
        continue;
      }
      match[static_cast<std::size_t>(r.event)] = send;
      __builtin_prefetch(&match[static_cast<std::size_t>(send)], 1);
      __builtin_prefetch(&e.time[static_cast<std::size_t>(send)]);
      batch[batched++] = {send, r.event};
      if (batched == kBatch) {
        flush();
      }
    }
    l.receives = {};
  }
  flush();
  report.sends += sends.size() - queues.taken();
}

} // namespace parjava::trace::detail
