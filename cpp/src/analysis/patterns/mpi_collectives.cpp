#include "mpi_collectives.hpp"

#include <algorithm>
#include <limits>

namespace parjava::analysis {

using trace::CollectiveShape;
using trace::Function;
using trace::Timestamp;

namespace {

constexpr Timestamp kNever = std::numeric_limits<Timestamp>::max();
constexpr Timestamp kBeforeAll = std::numeric_limits<Timestamp>::min();

struct WaitAndCompletion {
  std::int64_t wait = 0;
  std::int64_t completion = 0;
  Timestamp completion_start = 0;
};

// The clamped formulas of anchors §3.1.
WaitAndCompletion clamped(const CollectiveMember &m, Timestamp reference, Timestamp earliest_end) {
  WaitAndCompletion w;
  const Timestamp t = std::min(reference, m.end);
  const Timestamp e = std::max(earliest_end, t);
  w.wait = std::max<std::int64_t>(0, t - m.begin);
  w.completion = std::max<std::int64_t>(0, m.end - e);
  w.completion_start = e;
  return w;
}

// MAXLOC over begin times among `members` for which `take` holds: the latest, lowest
// communicator rank on ties (members are sorted by communicator rank). -1 when none.
template <typename Pred> int latest_begin(const std::vector<CollectiveMember> &members, Pred take) {
  int best = -1;
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (take(members[i]) &&
        (best < 0 || members[i].begin > members[static_cast<std::size_t>(best)].begin)) {
      best = static_cast<int>(i);
    }
  }
  return best;
}

template <typename Pred> int earliest_end(const std::vector<CollectiveMember> &members, Pred take) {
  int best = -1;
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (take(members[i]) &&
        (best < 0 || members[i].end < members[static_cast<std::size_t>(best)].end)) {
      best = static_cast<int>(i);
    }
  }
  return best;
}

class MpiCollectiveScan {
public:
  MpiCollectiveScan(ScanContext &ctx, std::uint32_t instance, std::vector<CollectiveMember> &m)
      : ctx_(ctx), instance_(instance), members_(m) {}

  void barrier() {
    const int latest = latest_begin(members_, [](const auto &) { return true; });
    const int first_out = earliest_end(members_, [](const auto &) { return true; });
    const auto t = members_[static_cast<std::size_t>(latest)].begin;
    const auto emin = members_[static_cast<std::size_t>(first_out)].end;
    for (const auto &m : members_) {
      const auto w = clamped(m, t, emin);
      report(PatternId::WaitAtBarrier, m, latest, m.begin, w.wait);
      report(PatternId::BarrierCompletion, m, first_out, w.completion_start, w.completion);
    }
  }

  void all_to_all() {
    const auto takes_part = [](const CollectiveMember &m) { return m.sent > 0 || m.received > 0; };
    int latest = latest_begin(members_, takes_part);
    int first_out = earliest_end(members_, takes_part);
    if (latest < 0) {
      return; // no payload, no synchronisation point
    }
    Timestamp t = members_[static_cast<std::size_t>(latest)].begin;
    Timestamp emin = members_[static_cast<std::size_t>(first_out)].end;
    if (emin > t) { // step 1: full overlap, every participant synchronises
      for (const auto &m : members_) {
        if (takes_part(m)) {
          const auto w = clamped(m, t, emin);
          report(PatternId::WaitAtNxN, m, latest, m.begin, w.wait);
          report(PatternId::NxNCompletion, m, first_out, w.completion_start, w.completion);
        }
      }
      return;
    }
    // Step 2: partial overlap, synchronised with the latest sender only.
    latest = latest_begin(members_, [](const CollectiveMember &m) { return m.sent > 0; });
    t = latest < 0 ? kBeforeAll : members_[static_cast<std::size_t>(latest)].begin;
    std::vector<bool> &in_set = in_set_;
    in_set.assign(members_.size(), false);
    for (std::size_t i = 0; i < members_.size(); ++i) {
      const auto &m = members_[i];
      in_set[i] = (m.received > 0 && m.begin < t) || (m.sent > 0 && static_cast<int>(i) == latest);
    }
    first_out = -1;
    for (std::size_t i = 0; i < members_.size(); ++i) {
      if (in_set[i] &&
          (first_out < 0 || members_[i].end < members_[static_cast<std::size_t>(first_out)].end)) {
        first_out = static_cast<int>(i);
      }
    }
    emin = first_out < 0 ? kNever : members_[static_cast<std::size_t>(first_out)].end;
    for (std::size_t i = 0; i < members_.size(); ++i) {
      if (in_set[i]) {
        const auto &m = members_[i];
        const auto w = clamped(m, t, emin);
        report(PatternId::WaitAtNxN, m, latest, m.begin, w.wait);
        report(PatternId::NxNCompletion, m, first_out, w.completion_start, w.completion);
      }
    }
  }

  void one_to_all(std::int32_t root_rank) {
    const int root = member_with_rank(members_, root_rank);
    if (root < 0 || members_[static_cast<std::size_t>(root)].sent == 0) {
      return;
    }
    const auto root_begin = members_[static_cast<std::size_t>(root)].begin;
    for (const auto &m : members_) {
      if (m.received > 0 && m.begin < root_begin) {
        const auto lost = std::max<std::int64_t>(0, std::min(root_begin, m.end) - m.begin);
        report(PatternId::LateBroadcast, m, root, m.begin, lost);
      }
    }
  }

  void all_to_one(std::int32_t root_rank) {
    const int root = member_with_rank(members_, root_rank);
    if (root < 0 || members_[static_cast<std::size_t>(root)].received == 0) {
      return;
    }
    const int latest = latest_begin(members_, [](const CollectiveMember &m) { return m.sent > 0; });
    if (latest < 0 || latest == root) {
      return; // the root is the latest sender itself: nothing is charged
    }
    const auto &r = members_[static_cast<std::size_t>(root)];
    const auto t = members_[static_cast<std::size_t>(latest)].begin;
    if (r.begin < t) {
      const auto lost = std::max<std::int64_t>(0, std::min(t, r.end) - r.begin);
      report(PatternId::EarlyReduce, r, latest, r.begin, lost);
    }
  }

  void prefix() {
    int latest = -1; // inclusive MPI_Scan(MAXLOC) over senders, in communicator-rank order
    for (std::size_t i = 0; i < members_.size(); ++i) {
      const auto &m = members_[i];
      if (m.sent > 0 &&
          (latest < 0 || m.begin > members_[static_cast<std::size_t>(latest)].begin)) {
        latest = static_cast<int>(i);
      }
      if (m.sent == 0 && m.received == 0) {
        continue; // no payload on this process
      }
      if (latest >= 0) {
        const auto t = members_[static_cast<std::size_t>(latest)].begin;
        if (m.begin < t) {
          const auto lost = std::max<std::int64_t>(0, std::min(t, m.end) - m.begin);
          report(PatternId::EarlyScan, m, latest, m.begin, lost);
        }
      }
    }
  }

private:
  void report(PatternId id, const CollectiveMember &m, int peer, Timestamp time,
              std::int64_t lost) {
    if (!ctx_.enabled(id) || !ctx_.reaches_eps(lost)) {
      return;
    }
    const CollectiveMember *p = peer >= 0 ? &members_[static_cast<std::size_t>(peer)] : nullptr;
    emit_collective_finding(ctx_, id, instance_, m, p, time, lost);
  }

  ScanContext &ctx_;
  std::uint32_t instance_;
  std::vector<CollectiveMember> &members_;
  std::vector<bool> in_set_;
};

bool any_enabled(const ScanContext &ctx) {
  for (const auto id : {PatternId::WaitAtBarrier, PatternId::BarrierCompletion,
                        PatternId::WaitAtNxN, PatternId::NxNCompletion, PatternId::LateBroadcast,
                        PatternId::EarlyReduce, PatternId::EarlyScan}) {
    if (ctx.enabled(id)) {
      return true;
    }
  }
  return false;
}

} // namespace

void scan_mpi_collectives(ScanContext &ctx, CollectiveMembers &gatherer) {
  if (!any_enabled(ctx)) {
    return;
  }
  std::vector<CollectiveMember> members;
  const auto &collectives = ctx.trace.collectives;
  for (std::uint32_t i = 0; i < collectives.size(); ++i) {
    const auto &instance = collectives[i];
    const auto &info = trace::function_info(instance.function);
    if (info.paradigm != trace::Paradigm::Mpi || !info.blocking ||
        instance.function == Function::MPI_Alltoallv ||
        instance.function == Function::MPI_Alltoallw) {
      continue; // Scalasca analyses blocking MPI collectives only, and not Alltoallv/w
    }
    if (!gatherer.gather(ctx, i, members, false)) {
      continue;
    }
    MpiCollectiveScan scan(ctx, i, members);
    switch (info.shape) {
    case CollectiveShape::Barrier:
      scan.barrier();
      break;
    case CollectiveShape::AllToAll:
      scan.all_to_all();
      break;
    case CollectiveShape::OneToAll:
      scan.one_to_all(instance.root);
      break;
    case CollectiveShape::AllToOne:
      scan.all_to_one(instance.root);
      break;
    case CollectiveShape::Prefix:
      scan.prefix();
      break;
    default:
      break;
    }
  }
}

} // namespace parjava::analysis
