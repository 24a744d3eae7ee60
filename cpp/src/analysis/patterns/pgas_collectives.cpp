#include "pgas_collectives.hpp"

#include <algorithm>
#include <cstdlib>
#include <utility>

namespace parjava::analysis {

using trace::CollectiveShape;
using trace::Function;
using trace::Timestamp;
using Sync = PgasOptions::Sync;

std::int64_t alone_time(const std::vector<CollectiveMember> &members, std::size_t who) {
  const auto s = members[who].call.start;
  const auto x = members[who].call.end;
  std::vector<std::pair<Timestamp, Timestamp>> others;
  others.reserve(members.size());
  for (std::size_t k = 0; k < members.size(); ++k) {
    if (k != who) {
      const auto a = std::max(s, members[k].call.start);
      const auto b = std::min(x, members[k].call.end);
      if (a < b) {
        others.emplace_back(a, b);
      }
    }
  }
  std::sort(others.begin(), others.end());
  std::int64_t covered = 0;
  Timestamp reach = s;
  for (const auto &[a, b] : others) {
    const auto from = std::max(a, reach);
    if (b > from) {
      covered += b - from;
      reach = b;
    }
  }
  return (x - s) - covered;
}

namespace {

class PgasCollectiveScan {
public:
  PgasCollectiveScan(ScanContext &ctx, std::uint32_t instance, std::vector<CollectiveMember> &m)
      : ctx_(ctx), options_(ctx.options.pgas), instance_(instance), members_(m) {}

  void run(CollectiveShape shape, Function function, std::int32_t root) {
    if (shape == CollectiveShape::Barrier) {
      entry_sync(PatternId::PgasWaitAtBarrier);
      exit_sync(PatternId::PgasBarrierCompletion, 0);
      return;
    }
    if (shape == CollectiveShape::Allocation) {
      if (function != Function::ShmemFree) { // the paper's upc_all_alloc; a free is a barrier
        late_root(PatternId::WaitInCollectiveAllocation, options_.allocation_root);
      }
      return;
    }
    if (options_.entry == Sync::All) {
      entry_sync(PatternId::CollectiveEntrySync);
    } else if (options_.entry == Sync::My) {
      switch (shape) {
      case CollectiveShape::OneToAll:
        late_root(PatternId::PgasLateBroadcast, root);
        wait_inside(root);
        break;
      case CollectiveShape::AllToOne:
        if (options_.gather_root == PgasOptions::GatherRoot::Late) {
          late_root(PatternId::EarlyGather, root);
        } else {
          early_root(root);
        }
        wait_inside(root);
        break;
      case CollectiveShape::Prefix:
        early_prefix();
        break;
      case CollectiveShape::AllToAll:
        entry_sync(PatternId::ManyToManyEntrySync, kSuspected);
        break;
      default:
        break;
      }
    }
    if (options_.exit == Sync::All) {
      exit_sync(PatternId::CollectiveExitSync, 0);
    } else if (options_.exit == Sync::My && shape == CollectiveShape::AllToAll) {
      exit_sync(PatternId::ManyToManyExitSync, kSuspected);
    }
  }

private:
  void report(PatternId id, const CollectiveMember &m, const CollectiveMember *peer, Timestamp time,
              std::int64_t lost, std::uint16_t flags) {
    if (lost == 0 || !ctx_.enabled(id) || !ctx_.reaches_eps(std::abs(lost))) {
      return;
    }
    emit_collective_finding(ctx_, id, instance_, m, peer, time, lost, flags);
  }

  std::size_t latest_entry() const {
    std::size_t latest = 0;
    for (std::size_t k = 1; k < members_.size(); ++k) {
      if (members_[k].call.start > members_[latest].call.start) {
        latest = k;
      }
    }
    return latest;
  }

  // P2, P4, P9: every thread waits from its entry until the latest entry.
  void entry_sync(PatternId id, std::uint16_t flags = 0) {
    const auto &latest = members_[latest_entry()];
    for (const auto &m : members_) {
      report(id, m, &latest, m.call.start, latest.call.start - m.call.start, flags);
    }
  }

  // P3, P5, P10.
  void exit_sync(PatternId id, std::uint16_t flags) {
    std::size_t last = 0;
    std::size_t first = 0;
    for (std::size_t k = 1; k < members_.size(); ++k) {
      if (members_[k].call.end > members_[last].call.end) {
        last = k;
      }
      if (members_[k].call.end < members_[first].call.end) {
        first = k;
      }
    }
    const auto &l = members_[last];
    const auto &f = members_[first];
    for (const auto &m : members_) {
      if (options_.completion == PgasOptions::Completion::Literal) {
        report(id, m, &l, m.call.end, l.call.end - m.call.end, flags);
      } else {
        report(id, m, &f, f.call.end, m.call.end - f.call.end, flags);
      }
    }
  }

  // P6, P7 (late root), P12: threads entering before the root wait for it.
  void late_root(PatternId id, std::int32_t root_rank) {
    const int root = member_with_rank(members_, root_rank);
    if (root < 0) {
      return;
    }
    const auto &r = members_[static_cast<std::size_t>(root)];
    for (const auto &m : members_) {
      if (m.call.start < r.call.start) {
        report(id, m, &r, m.call.start, r.call.start - m.call.start, 0);
      }
    }
  }

  // P7 with GatherRoot::Early: the root waits for the latest sender.
  void early_root(std::int32_t root_rank) {
    const int root = member_with_rank(members_, root_rank);
    if (root < 0) {
      return;
    }
    const auto &r = members_[static_cast<std::size_t>(root)];
    const auto &latest = members_[latest_entry()];
    if (latest.call.start > r.call.start) {
      report(PatternId::EarlyGather, r, &latest, r.call.start, latest.call.start - r.call.start, 0);
    }
  }

  // P8, members in thread (communicator-rank) order.
  void early_prefix() {
    bool inversion = false;
    Timestamp max_before = members_[0].call.start;
    for (std::size_t k = 1; k < members_.size(); ++k) {
      inversion = inversion || max_before > members_[k].call.start;
      max_before = std::max(max_before, members_[k].call.start);
    }
    if (!inversion) {
      return; // the paper's failure condition
    }
    std::size_t latest_before = 0;
    for (std::size_t k = 1; k < members_.size(); ++k) {
      const auto &m = members_[k];
      const auto &p = members_[latest_before];
      auto term = p.call.start - m.call.start;
      std::uint16_t flags = 0;
      if (term < 0) {
        if (options_.prefix_clamp) {
          term = 0;
        } else {
          flags = kNegativeTerm;
        }
      }
      report(PatternId::EarlyPrefixReduction, m, &p, m.call.start, term, flags);
      if (m.call.start > p.call.start) {
        latest_before = k;
      }
    }
  }

  // P11.
  void wait_inside(std::int32_t root_rank) {
    if (options_.alone == PgasOptions::Alone::Every) {
      for (std::size_t k = 0; k < members_.size(); ++k) {
        report(PatternId::WaitInsideCollective, members_[k], nullptr, members_[k].call.start,
               alone_time(members_, k), 0);
      }
      return;
    }
    const int root = member_with_rank(members_, root_rank);
    if (root >= 0) {
      const auto &r = members_[static_cast<std::size_t>(root)];
      report(PatternId::WaitInsideCollective, r, nullptr, r.call.start,
             alone_time(members_, static_cast<std::size_t>(root)), 0);
    }
  }

  ScanContext &ctx_;
  const PgasOptions &options_;
  std::uint32_t instance_;
  std::vector<CollectiveMember> &members_;
};

bool any_enabled(const ScanContext &ctx) {
  for (const auto &info : all_patterns()) {
    if (info.family == PatternFamily::Pgas && info.id != PatternId::LockContention &&
        ctx.enabled(info.id)) {
      return true;
    }
  }
  return false;
}

} // namespace

void scan_pgas_collectives(ScanContext &ctx, CollectiveMembers &gatherer) {
  if (!any_enabled(ctx)) {
    return;
  }
  std::vector<CollectiveMember> members;
  const auto &collectives = ctx.trace.collectives;
  for (std::uint32_t i = 0; i < collectives.size(); ++i) {
    const auto &instance = collectives[i];
    const auto &info = trace::function_info(instance.function);
    const bool shmem = info.paradigm == trace::Paradigm::Shmem;
    const bool mpi =
        info.paradigm == trace::Paradigm::Mpi && ctx.options.pgas.include_mpi_collectives;
    if ((!shmem && !mpi) || !info.blocking || info.shape == CollectiveShape::None) {
      continue;
    }
    if (!gatherer.gather(ctx, i, members, true)) {
      continue;
    }
    const bool calls_complete = std::all_of(members.begin(), members.end(), [](const auto &m) {
      return m.call.valid() && m.call.complete();
    });
    if (!calls_complete) {
      continue;
    }
    PgasCollectiveScan(ctx, i, members).run(info.shape, instance.function, instance.root);
  }
}

} // namespace parjava::analysis
