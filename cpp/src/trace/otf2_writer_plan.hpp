// What the OTF2 writer decides before writing (docs/otf2-conventions.md): how world ranks map
// to communicator ranks, which RMA window stands for which communicator, the ids of interval
// regions, and the definitions parjava adds to those of the trace.
#pragma once

#include <otf2/otf2.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "parjava/trace/trace.hpp"

namespace parjava::trace::detail {

// World rank -> rank within one communicator.
class CommRanks {
public:
  CommRanks() = default;
  explicit CommRanks(const Communicator &comm) : self_(comm.self) {
    identity_ = true;
    for (std::size_t r = 0; r < comm.members.size(); ++r) {
      identity_ = identity_ && comm.members[r] == static_cast<std::int32_t>(r);
      by_world_.emplace_back(comm.members[r], static_cast<std::uint32_t>(r));
    }
    size_ = comm.members.size();
    std::sort(by_world_.begin(), by_world_.end());
  }
  [[nodiscard]] std::uint32_t operator()(std::int32_t world, std::int32_t own) const {
    if (world < 0) {
      return OTF2_UNDEFINED_UINT32;
    }
    if (self_) {
      return world == own ? 0U : OTF2_UNDEFINED_UINT32;
    }
    if (identity_) {
      return static_cast<std::size_t>(world) < size_ ? static_cast<std::uint32_t>(world)
                                                     : OTF2_UNDEFINED_UINT32;
    }
    const auto found = std::lower_bound(by_world_.begin(), by_world_.end(),
                                        std::pair<std::int32_t, std::uint32_t>{world, 0});
    return found != by_world_.end() && found->first == world ? found->second
                                                             : OTF2_UNDEFINED_UINT32;
  }

private:
  bool self_ = false;
  bool identity_ = false;
  std::size_t size_ = 0;
  std::vector<std::pair<std::int32_t, std::uint32_t>> by_world_;
};

struct WriterPlan {
  // Timestamps are written as ns - time_shift (OTF2 timestamps are unsigned; time_shift is the
  // earliest time when it is negative, else 0) with a global offset of -time_shift.
  Timestamp time_shift = 0;
  std::int32_t ranks = 0;                     // world ranks 0 .. ranks-1
  std::vector<Communicator> communicators;    // the trace's, then any parjava adds
  std::vector<CommRanks> comm_ranks;          // per communicator
  std::uint32_t world = kNoRef;               // communicator of all ranks (windows, locks)
  std::vector<Region> regions;                // the trace's, then call-site functions
  std::vector<std::uint32_t> callsite_region; // per call site: region of its function or kNoRef
  std::map<std::uint32_t, std::uint64_t> interval_of_region; // region -> interval id
  // RMA windows, created as events need them: communicator -> window.
  std::map<std::uint32_t, OTF2_RmaWinRef> window_of_comm;
  bool uses_callsites = false;
  std::uint64_t skipped_events = 0;          // unknown records (id 0) cannot be written back
  std::vector<std::uint64_t> events_written; // per location, filled by write_events

  [[nodiscard]] OTF2_RmaWinRef window(std::uint32_t comm) {
    const auto key = comm == kNoRef ? world : comm;
    const auto found = window_of_comm.find(key);
    if (found != window_of_comm.end()) {
      return found->second;
    }
    const auto ref = static_cast<OTF2_RmaWinRef>(window_of_comm.size());
    window_of_comm.emplace(key, ref);
    return ref;
  }
  [[nodiscard]] std::uint32_t comm_rank(std::uint32_t comm, std::int32_t world_rank,
                                        std::int32_t own) const {
    return comm < comm_ranks.size() ? comm_ranks[comm](world_rank, own) : OTF2_UNDEFINED_UINT32;
  }
};

// Decide the plan for `trace` (before any file is written).
WriterPlan plan_archive(const Trace &trace);

// Write the events of every location; fills plan.window_of_comm and plan.skipped_events.
void write_events(OTF2_Archive *archive, const Trace &trace, WriterPlan &plan,
                  OTF2_AttributeRef callsite_attribute, const std::string &path);

} // namespace parjava::trace::detail
