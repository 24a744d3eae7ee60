// Which event waits for which, for the clock condition (clock_condition.hpp). Internal to the
// trace part: counting (clock_condition.cpp) and correcting (clock_correction.cpp) read the
// same model.
//
// Point-to-point: a receive event (Recv, IrecvComplete) waits for its matched send event
// (Send, IsendPost). Collectives: per instance of a blocking collective, the End of a member
// (a "sink") waits for the Begin of some members ("sources"), after Scalasca's reference
// times (anchors/mpi-wait-state-patterns.md §3.1-§3.6):
//   All       barrier, shmem_malloc/free and N-to-N: every sink waits for every source
//             (barrier-like: every member is both; N-to-N: a source sends, a sink receives);
//   FromRoot  1-to-N: the root (if it sends) is the only source, the receiving others sink;
//   ToRoot    N-to-1: the root (if it receives) is the only sink, every sender a source;
//   Prefix    scan/exscan: a receiving member waits for the sending members of lower or equal
//             communicator rank.
// Left out (no dependency): non-blocking collectives, MPI_Alltoallv/w (they may encode any
// pairwise exchange), instances with one member, 1-to-N and N-to-1 without a known root.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "parjava/trace/trace.hpp"

namespace parjava::trace::detail {

// "No time": what an event waits for when it waits for nothing.
inline constexpr Timestamp kNever = std::numeric_limits<Timestamp>::min();

enum class WaitShape : std::uint8_t { None, All, FromRoot, ToRoot, Prefix };

inline bool is_receive_event(EventKind k) {
  return k == EventKind::Recv || k == EventKind::IrecvComplete;
}
inline bool is_send_event(EventKind k) { return k == EventKind::Send || k == EventKind::IsendPost; }

// Count receive `receive` (a Recv or IrecvComplete) in `v` if it happened before the start of
// its send `send` (kNoEvent: unmatched, nothing to count). Shared by count_clock_violations()
// and message pairing, which counts while it pairs (no pass over the events afterwards).
inline void note_receive(const EventColumns &e, EventIndex send, EventIndex receive,
                         ClockViolations &v) {
  if (send == kNoEvent) {
    return;
  }
  const auto sent = e.time[static_cast<std::size_t>(send)];
  const auto received = e.time[static_cast<std::size_t>(receive)];
  if (sent > received) {
    ++v.receives_before_send;
    v.largest_ns = std::max(v.largest_ns, sent - received);
  }
}

// Members are far apart in the columns (one per location), so passes over them prefetch the
// entries of the member this far ahead: the cache misses then overlap.
inline constexpr std::uint32_t kMemberPrefetchDistance = 8;

// The collective part of the model, per instance and per member (a member is a position in
// Trace::collective_members, i.e. one CollectiveEnd event).
class CollectiveWaits {
public:
  explicit CollectiveWaits(const Trace &trace);

  [[nodiscard]] WaitShape shape(std::uint32_t instance) const { return shape_[instance]; }
  [[nodiscard]] std::uint32_t first(std::uint32_t instance) const {
    return trace_.collectives[instance].first_member;
  }
  [[nodiscard]] std::uint32_t last(std::uint32_t instance) const {
    const auto &c = trace_.collectives[instance];
    return c.first_member + c.member_count;
  }
  [[nodiscard]] EventIndex end_of(std::uint32_t member) const {
    return trace_.collective_members[member];
  }
  // The member's CollectiveBegin, or kNoEvent.
  [[nodiscard]] EventIndex begin_of(std::uint32_t member) const {
    return trace_.events.match[static_cast<std::size_t>(end_of(member))];
  }
  [[nodiscard]] bool is_source(std::uint32_t member) const {
    return (role_[member] & kSource) != 0;
  }
  [[nodiscard]] bool is_sink(std::uint32_t member) const { return (role_[member] & kSink) != 0; }
  // Whether sink member `sink` waits for source member `source` (both of `instance`).
  [[nodiscard]] bool waits_for(std::uint32_t instance, std::uint32_t sink,
                               std::uint32_t source) const {
    return shape_[instance] != WaitShape::Prefix || order_[source] <= order_[sink];
  }
  // Communicator rank of a member of a Prefix instance.
  [[nodiscard]] std::int32_t order(std::uint32_t member) const { return order_[member]; }
  // The member whose CollectiveEnd is `end` (a CollectiveEnd with an instance).
  [[nodiscard]] std::uint32_t member_of_end(EventIndex end) const;

private:
  static constexpr std::uint8_t kSource = 1;
  static constexpr std::uint8_t kSink = 2;
  const Trace &trace_;
  std::vector<WaitShape> shape_;    // per instance
  std::vector<std::uint8_t> role_;  // per member: kSource | kSink
  std::vector<std::int32_t> order_; // per member of Prefix instances: communicator rank
};

// Add the collective part of count_clock_violations() to `v`: the exits of the locations l
// with (*counted)[l] (all when counted is null). Needs the collective instances and the
// CollectiveBegin<->End matches.
void count_collective_violations(const Trace &trace, const std::vector<char> *counted,
                                 ClockViolations &v);
// The same for instances [first, last) only, with the model built once by the caller: parts
// counted separately add up to the whole (sum the counts, take the largest of largest_ns).
void count_collective_violations(const Trace &trace, const CollectiveWaits &waits,
                                 const std::vector<char> *counted, std::uint32_t first,
                                 std::uint32_t last, ClockViolations &v);

} // namespace parjava::trace::detail
