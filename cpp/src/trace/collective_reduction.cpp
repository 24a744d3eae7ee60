// The reduction behind the reduced collective replay (partition.hpp): each part's own
// extremes per collective instance, the members at the reduced extremes, and which instances
// travel reduced.
#include <algorithm>
#include <array>
#include <limits>
#include <string>
#include <vector>

#include "parjava/error.hpp"
#include "parjava/trace/partition.hpp"

namespace parjava::trace {

void collective_sequences(const Trace &trace, std::vector<std::uint32_t> &sequence,
                          std::vector<std::uint32_t> &index) {
  const auto comms = static_cast<std::uint32_t>(trace.communicators.size());
  sequence.assign(trace.collectives.size(), 0);
  index.assign(trace.collectives.size(), 0);
  std::uint32_t previous = kNoRef;
  std::uint32_t count = 0;
  for (std::size_t k = 0; k < trace.collectives.size(); ++k) {
    const auto &inst = trace.collectives[k];
    std::uint32_t key = comms;
    if (inst.comm < comms) {
      key = inst.comm;
      if (trace.communicators[inst.comm].self && inst.member_count > 0) {
        const auto first = trace.collective_members[inst.first_member];
        key = comms + 1 + trace.events.location[static_cast<std::size_t>(first)];
      }
    }
    // Instances are numbered sequence by sequence, each in its order.
    count = key == previous ? count + 1 : 0;
    previous = key;
    sequence[k] = key;
    index[k] = count;
  }
}

namespace {

constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::max();
constexpr std::uint64_t kNoMember = std::numeric_limits<std::uint64_t>::max();

// A time as an unsigned number of the same order (it shares the decisive table's minimum).
std::uint64_t biased(std::int64_t t) {
  return static_cast<std::uint64_t>(t) ^ (std::uint64_t{1} << 63U);
}

// One member's values, as the serial patterns see them (collective_members.cpp,
// collective_timing.cpp).
struct MemberValues {
  std::int64_t begin = 0;
  std::int64_t end = 0;
  bool has_begin = false;
  bool payload = false;
  bool sends = false;
  std::uint64_t id = 0; // (communicator rank + 2^31) << 32 | location: the serial tie order
};

class MemberReader {
public:
  explicit MemberReader(const Trace &trace) : trace_(trace), ranks_(trace.communicators.size()) {}

  MemberValues read(std::uint32_t comm, EventIndex end) {
    const auto &e = trace_.events;
    const auto u = static_cast<std::size_t>(end);
    MemberValues v;
    v.end = e.time[u];
    const auto begin = e.match[u];
    v.has_begin = begin != kNoEvent;
    v.begin = v.has_begin ? e.time[static_cast<std::size_t>(begin)] : v.end;
    v.sends = e.bytes[u] > 0;
    v.payload = v.sends || e.aux[u] > 0;
    const auto location = e.location[u];
    const auto rank = trace_.locations[location].rank;
    std::int32_t comm_rank = rank; // as CollectiveMembers::gather
    if (comm < ranks_.size()) {
      auto &map = ranks_[comm];
      if (map.empty()) {
        const auto &members = trace_.communicators[comm].members;
        std::int32_t largest = 0;
        for (const auto r : members) {
          largest = std::max(largest, r);
        }
        map.assign(static_cast<std::size_t>(largest) + 1, -1);
        for (std::size_t i = 0; i < members.size(); ++i) {
          if (members[i] >= 0) {
            map[static_cast<std::size_t>(members[i])] = static_cast<std::int32_t>(i);
          }
        }
      }
      if (rank >= 0 && static_cast<std::size_t>(rank) < map.size() &&
          map[static_cast<std::size_t>(rank)] >= 0) {
        comm_rank = map[static_cast<std::size_t>(rank)];
      }
    }
    v.id =
        (static_cast<std::uint64_t>(static_cast<std::int64_t>(comm_rank) + (std::int64_t{1} << 31))
         << 32U) |
        location;
    return v;
  }

  // The key values of a member (minimised; kNone where it does not qualify).
  static std::array<std::int64_t, kDecisiveKeys> keys(const MemberValues &v) {
    return {-v.begin,
            v.end,
            v.payload ? -v.begin : kNone,
            v.payload ? v.end : kNone,
            v.sends ? -v.begin : kNone,
            v.begin,
            -v.end};
  }

private:
  const Trace &trace_;
  std::vector<std::vector<std::int32_t>> ranks_;
};

// Whether the members of `comm` are on several parts (the only communicators that ship).
std::vector<std::uint8_t> spread_communicators(const Trace &trace, std::uint32_t parts) {
  const PartitionPlan plan(trace.locations, parts);
  std::vector<std::uint8_t> spread(trace.communicators.size(), 0);
  for (std::size_t c = 0; c < trace.communicators.size(); ++c) {
    const auto &comm = trace.communicators[c];
    if (comm.self || comm.members.size() < 2) {
      continue;
    }
    const auto first = plan.owner_of_rank(comm.members.front());
    for (const auto rank : comm.members) {
      if (plan.owner_of_rank(rank) != first) {
        spread[c] = 1;
        break;
      }
    }
  }
  return spread;
}

} // namespace

CollectiveReduction collective_reduction(const Trace &trace, std::uint32_t parts) {
  CollectiveReduction r;
  collective_sequences(trace, r.sequence, r.index);
  const auto n = trace.collectives.size();
  r.spread.assign(n, 0);
  r.sums.assign(n * kCollectiveSums, 0);
  r.minima.assign(n * kCollectiveMinima, kNone);
  r.decisive.assign(n * kDecisiveColumns, kNoMember);
  const auto spread = spread_communicators(trace, parts);
  MemberReader reader(trace);
  const auto &e = trace.events;
  for (std::size_t k = 0; k < n; ++k) {
    const auto &inst = trace.collectives[k];
    if (r.sequence[k] >= spread.size() || spread[r.sequence[k]] == 0) {
      continue;
    }
    r.spread[k] = 1;
    auto *sums = &r.sums[k * kCollectiveSums];
    auto *minima = &r.minima[k * kCollectiveMinima];
    for (auto m = inst.first_member; m < inst.first_member + inst.member_count; ++m) {
      const auto end = trace.collective_members[m];
      const auto u = static_cast<std::size_t>(end);
      const auto v = reader.read(inst.comm, end);
      ++sums[0];
      sums[1] += v.has_begin ? 1 : 0;
      const auto reg = e.region[u];
      const auto function =
          reg < trace.regions.size() ? trace.regions[reg].function : Function::None;
      // What matching compares across members (function and operation) and the root.
      const auto signature = static_cast<std::int64_t>(
          (static_cast<std::uint64_t>(function) << 32U) | static_cast<std::uint32_t>(e.tag[u]));
      const auto root = static_cast<std::int64_t>(static_cast<std::uint32_t>(e.peer[u]));
      minima[0] = std::min(minima[0], signature);
      minima[1] = std::min(minima[1], -signature);
      minima[2] = std::min(minima[2], root);
      minima[3] = std::min(minima[3], -root);
      const auto keys = MemberReader::keys(v);
      for (std::size_t j = 0; j < kDecisiveKeys; ++j) {
        minima[4 + j] = std::min(minima[4 + j], keys[j]);
      }
    }
  }
  return r;
}

void decisive_members(const Trace &trace, CollectiveReduction &r, int stage) {
  const auto n = trace.collectives.size();
  if (r.spread.size() != n || r.sums.size() != n * kCollectiveSums ||
      r.minima.size() != n * kCollectiveMinima || r.decisive.size() != n * kDecisiveColumns) {
    throw Error(ErrorKind::Usage, "collective reduction: its rows do not match the trace's " +
                                      std::to_string(n) + " collective instances");
  }
  if (stage != 1 && stage != 2) {
    throw Error(ErrorKind::Usage,
                "collective reduction: stage " + std::to_string(stage) + " is not 1 or 2");
  }
  MemberReader reader(trace);
  for (std::size_t k = 0; k < n; ++k) {
    if (r.spread[k] == 0) {
      continue;
    }
    const auto &inst = trace.collectives[k];
    const auto *minima = &r.minima[k * kCollectiveMinima + 4];
    auto *decisive = &r.decisive[k * kDecisiveColumns];
    // Scalasca's second all-to-all step: the receivers that began before the latest sender
    // (key 4) synchronise with it; the earliest end among them (with the sender's own end,
    // which travels as key 4's member) ends the wait.
    const auto latest_sender = minima[4] == kNone ? kNone : -minima[4];
    for (auto m = inst.first_member; m < inst.first_member + inst.member_count; ++m) {
      const auto end = trace.collective_members[m];
      const auto v = reader.read(inst.comm, end);
      const bool early_receiver = latest_sender != kNone &&
                                  trace.events.aux[static_cast<std::size_t>(end)] > 0 &&
                                  v.begin < latest_sender;
      if (stage == 1) {
        const auto keys = MemberReader::keys(v);
        for (std::size_t j = 0; j < kDecisiveKeys; ++j) {
          if (keys[j] != kNone && keys[j] == minima[j]) {
            decisive[j] = std::min(decisive[j], v.id);
          }
        }
        if (early_receiver) {
          decisive[kDecisiveKeys] = std::min(decisive[kDecisiveKeys], biased(v.end));
        }
      } else if (early_receiver && biased(v.end) == decisive[kDecisiveKeys]) {
        decisive[kDecisiveKeys + 1] = std::min(decisive[kDecisiveKeys + 1], v.id);
      }
    }
  }
}

bool travels_reduced(const Trace &trace, const CollectiveReduction &r, std::size_t k) {
  if (k >= r.spread.size() || r.spread[k] == 0) {
    return false;
  }
  const auto &inst = trace.collectives[k];
  const auto &info = function_info(inst.function);
  if (info.paradigm != Paradigm::Mpi || info.shape == CollectiveShape::Prefix) {
    return false;
  }
  const auto *sums = &r.sums[k * kCollectiveSums];
  const auto *minima = &r.minima[k * kCollectiveMinima];
  if (sums[0] < 2 || sums[0] != std::int64_t{inst.expected} || sums[1] != sums[0]) {
    return false; // incomplete, or members without a Begin
  }
  if (minima[0] != -minima[1] || minima[2] != -minima[3]) {
    return false; // members disagree on function, operation or root
  }
  return true;
}

std::vector<std::uint32_t> sequence_indices(const Trace &trace,
                                            const std::vector<EventIndex> &events) {
  std::vector<std::uint32_t> sequence;
  std::vector<std::uint32_t> index;
  collective_sequences(trace, sequence, index);
  std::vector<std::uint32_t> out(events.size(), kNoRef);
  for (std::size_t k = 0; k < events.size(); ++k) {
    const auto i = events[k];
    if (i < 0 || static_cast<std::size_t>(i) >= trace.size()) {
      throw Error(ErrorKind::Usage,
                  "sequence_indices: event " + std::to_string(i) + " is not in the trace");
    }
    const auto u = static_cast<std::size_t>(i);
    const auto link = trace.events.link[u];
    if (trace.events.kind[u] == EventKind::CollectiveEnd && link != kNoEvent &&
        static_cast<std::size_t>(link) < index.size()) {
      out[k] = index[static_cast<std::size_t>(link)];
    }
  }
  return out;
}

} // namespace parjava::trace
