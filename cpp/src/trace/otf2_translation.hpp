// What the event reader needs from the definitions to turn OTF2 records into parjava columns:
// timestamps to ns, OTF2 references to parjava indices, communicator ranks to world ranks.
#pragma once

#include <otf2/otf2.h>

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "parjava/trace/trace.hpp"

namespace parjava::trace::detail {

// OTF2 ticks -> ns since the global offset: ns = (ticks - offset) * 1e9 / resolution, with the
// ratio as a 64.64 fixed-point multiplier so no event pays for a division (error < 1 ns).
class ClockConversion {
public:
  void set(std::uint64_t resolution, std::uint64_t offset) {
    offset_ = offset;
    identity_ = resolution == 1'000'000'000ULL;
    if (!identity_ && resolution != 0) {
      const Wide ratio = (static_cast<Wide>(1'000'000'000ULL) << 64U) / resolution;
      high_ = static_cast<std::uint64_t>(ratio >> 64U);
      low_ = static_cast<std::uint64_t>(ratio);
    }
  }
  [[nodiscard]] Timestamp operator()(std::uint64_t ticks) const {
    if (identity_) {
      return static_cast<Timestamp>(ticks - offset_);
    }
    return ticks >= offset_ ? static_cast<Timestamp>(scale(ticks - offset_))
                            : -static_cast<Timestamp>(scale(offset_ - ticks));
  }

private:
  __extension__ typedef unsigned __int128 Wide; // NOLINT(modernize-use-using): __extension__
  [[nodiscard]] std::uint64_t scale(std::uint64_t d) const {
    return d * high_ + static_cast<std::uint64_t>((static_cast<Wide>(d) * low_) >> 64U);
  }
  std::uint64_t offset_ = 0;
  bool identity_ = true;
  std::uint64_t high_ = 0;
  std::uint64_t low_ = 0;
};

// OTF2 reference -> parjava index. References are dense small integers in practice (Score-P
// numbers them from 0); location ids and unusual writers may use large ones.
class RefIndex {
public:
  void set(std::uint64_t ref, std::uint32_t index) {
    if (ref < kDenseLimit) {
      if (ref >= dense_.size()) {
        dense_.resize(ref + 1, kNoRef);
      }
      dense_[ref] = index;
    } else {
      sparse_[ref] = index;
    }
  }
  [[nodiscard]] std::uint32_t operator()(std::uint64_t ref) const {
    if (ref < dense_.size()) {
      return dense_[ref];
    }
    if (ref < kDenseLimit || sparse_.empty()) {
      return kNoRef;
    }
    const auto found = sparse_.find(ref);
    return found == sparse_.end() ? kNoRef : found->second;
  }

private:
  static constexpr std::uint64_t kDenseLimit = 1U << 20U;
  std::vector<std::uint32_t> dense_;
  std::unordered_map<std::uint64_t, std::uint32_t> sparse_;
};

struct EventTranslation {
  ClockConversion clock;
  RefIndex region;
  RefIndex comm;
  RefIndex window_comm; // OTF2 RmaWin -> communicator index
  RefIndex metric;
  RefIndex source_location; // OTF2 SourceCodeLocation -> call site index
  OTF2_AttributeRef callsite_attribute = OTF2_UNDEFINED_ATTRIBUTE;
  // Per region index: interval id + 1 for parjava interval regions, 0 for the others.
  std::vector<std::uint64_t> interval_of_region;
  // Per communicator index: world ranks in communicator-rank order; `self` for MPI_COMM_SELF.
  std::vector<std::vector<std::int32_t>> comm_members;
  std::vector<std::uint8_t> comm_is_self;
  // Locations to read, in parjava location order: OTF2 id and the event count it declares
  // (0 when the writer did not say).
  std::vector<std::uint64_t> location_ids;
  std::vector<std::uint64_t> declared_events;

  // World rank of `rank` in `communicator` (a parjava index), kNoRank when unknown.
  [[nodiscard]] std::int32_t world_rank(std::uint32_t communicator, std::uint32_t rank,
                                        std::int32_t own_rank) const {
    if (rank == OTF2_UNDEFINED_UINT32 || communicator >= comm_members.size()) {
      return kNoRank;
    }
    if (comm_is_self[communicator] != 0U) {
      return rank == 0 ? own_rank : kNoRank;
    }
    const auto &members = comm_members[communicator];
    return rank < members.size() ? members[rank] : kNoRank;
  }
};

} // namespace parjava::trace::detail
