// The participants of one collective instance as the collective patterns need them: begin and
// end of the collective (B_p, X_p: CollectiveBegin/End, which Scalasca uses), entry and exit of
// the call (Enter/Leave, which seed 001 uses), payload, and the rank in the communicator
// (prefix operations and MAXLOC/MINLOC tie-breaking go by communicator rank).
#pragma once

#include <vector>

#include "../scan_context.hpp"

namespace parjava::analysis {

struct CollectiveMember {
  std::uint32_t location = 0;
  std::int32_t rank = trace::kNoRank; // world rank / PE
  std::int32_t comm_rank = 0;         // rank in the instance's communicator
  trace::EventIndex end_event = trace::kNoEvent;
  trace::Timestamp begin = 0; // B_p
  trace::Timestamp end = 0;   // X_p
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
  Call call; // the collective call (entry = call.start, exit = call.end), when asked for
};

class CollectiveMembers {
public:
  explicit CollectiveMembers(const trace::Trace &trace);

  // Fill `members` for instance `index`, ordered by communicator rank. Returns false when the
  // instance is incomplete (not every member reached it) or has fewer than two members.
  // `with_calls` also locates each member's call (Enter/Leave), which only seed 001 needs.
  bool gather(ScanContext &ctx, std::uint32_t index, std::vector<CollectiveMember> &members,
              bool with_calls);

private:
  const std::vector<std::int32_t> &comm_ranks(std::uint32_t comm);

  const trace::Trace &trace_;
  // Per communicator, world rank -> rank in it (-1: not a member); built on first use.
  std::vector<std::vector<std::int32_t>> comm_ranks_;
  std::vector<std::int32_t> identity_;
};

// Index of the member with world rank `rank`, or -1.
int member_with_rank(const std::vector<CollectiveMember> &members, std::int32_t rank);

void emit_collective_finding(ScanContext &ctx, PatternId id, std::uint32_t instance,
                             const CollectiveMember &member, const CollectiveMember *peer,
                             trace::Timestamp time, std::int64_t lost, std::uint16_t flags = 0);

} // namespace parjava::analysis
