#include "collective_members.hpp"

#include <algorithm>

namespace parjava::analysis {

using trace::EventIndex;
using trace::kNoEvent;
using trace::kNoRef;

CollectiveMembers::CollectiveMembers(const trace::Trace &trace)
    : trace_(trace), comm_ranks_(trace.communicators.size()) {}

const std::vector<std::int32_t> &CollectiveMembers::comm_ranks(std::uint32_t comm) {
  if (comm == kNoRef || comm >= comm_ranks_.size()) {
    return identity_;
  }
  auto &map = comm_ranks_[comm];
  if (map.empty()) {
    const auto &members = trace_.communicators[comm].members;
    std::int32_t largest = 0;
    for (const auto rank : members) {
      largest = std::max(largest, rank);
    }
    map.assign(static_cast<std::size_t>(largest) + 1, -1);
    for (std::size_t i = 0; i < members.size(); ++i) {
      if (members[i] >= 0) {
        map[static_cast<std::size_t>(members[i])] = static_cast<std::int32_t>(i);
      }
    }
  }
  return map;
}

bool CollectiveMembers::gather(ScanContext &ctx, std::uint32_t index,
                               std::vector<CollectiveMember> &members, bool with_calls) {
  const auto &instance = trace_.collectives[index];
  members.clear();
  // participants: a parallel analysis part may hold the decisive members only.
  if (instance.participants < 2 || instance.participants < instance.expected) {
    return false;
  }
  const auto &ranks = comm_ranks(instance.comm);
  const auto &ev = trace_.events;
  for (std::uint32_t k = 0; k < instance.member_count; ++k) {
    const EventIndex end = trace_.collective_members[instance.first_member + k];
    const auto u = static_cast<std::size_t>(end);
    CollectiveMember m;
    m.location = ev.location[u];
    m.rank = trace_.locations[m.location].rank;
    m.comm_rank = m.rank;
    if (m.rank >= 0 && static_cast<std::size_t>(m.rank) < ranks.size() &&
        ranks[static_cast<std::size_t>(m.rank)] >= 0) {
      m.comm_rank = ranks[static_cast<std::size_t>(m.rank)];
    }
    m.end_event = end;
    m.end = ev.time[u];
    const EventIndex begin = ev.match[u];
    if (with_calls) {
      m.call = ctx.call_of(end);
    }
    if (begin != kNoEvent) {
      m.begin = ev.time[static_cast<std::size_t>(begin)];
    } else {
      trace::Timestamp start = m.end;
      ctx.call_start_of(end, start);
      m.begin = start;
    }
    m.sent = ev.bytes[u];
    m.received = ev.aux[u];
    members.push_back(m);
  }
  std::sort(
      members.begin(), members.end(), [](const CollectiveMember &a, const CollectiveMember &b) {
        return a.comm_rank < b.comm_rank || (a.comm_rank == b.comm_rank && a.location < b.location);
      });
  return true;
}

int member_with_rank(const std::vector<CollectiveMember> &members, std::int32_t rank) {
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (members[i].rank == rank) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

void emit_collective_finding(ScanContext &ctx, PatternId id, std::uint32_t instance,
                             const CollectiveMember &member, const CollectiveMember *peer,
                             trace::Timestamp time, std::int64_t lost, std::uint16_t flags) {
  Finding f;
  f.pattern = id;
  f.time = time;
  f.idle = lost;
  f.event = member.end_event;
  f.location = member.location;
  if (peer != nullptr) {
    f.peer_event = peer->end_event;
    f.peer_location = peer->location;
  }
  // Matching gives inner events the region and call site of the call holding them.
  f.callsite = ctx.ev.callsite[static_cast<std::size_t>(member.end_event)];
  f.region = ctx.ev.region[static_cast<std::size_t>(member.end_event)];
  f.bytes = member.sent;
  f.instance = instance;
  f.flags = flags;
  ctx.emit(f);
}

} // namespace parjava::analysis
