// Operations blocked on a busy CPU/NIC, queued per resource instead of retried (anchor §7).
//
// LogGOPSim pops a blocked op, finds its resources busy until F, and re-queues it at (F, seq);
// k ops blocked on one resource therefore cost k pops every time the resource frees. Here the
// blocked ops of one host that wait for the same resource set ("signature": kind, cpu, nic) and
// carry the same queue time T form a group with a single entry (T, smallest seq) in the event
// queue. When that entry comes up, the group's ops are processed in seq order exactly as the
// individual pops would be; as soon as one finds the resource busy until F, every further member
// that LogGOPSim would pop before any other queue entry finds the same state (a blocked pop
// changes nothing), so they all move to time F at once. When every resource of the signature is
// busy beyond T (or the only free one, a NIC, is always used together with the busy CPU), no
// entry at time T can change F at all, so all members move regardless of what else is queued at
// T (Engine::frozen_at). Moving is O(1) when no group waits at F yet, the steady state of a host
// with many pending sends. The event order, hence every result, is the same as retrying one by
// one. Private to the loggp part.
#pragma once

#include <cstdint>
#include <vector>

#include "parjava/loggp/loggp_rules.hpp"

namespace parjava::loggp {

struct BlockedMember {
  std::uint64_t seq;
  std::uint32_t op;
  std::uint32_t info;
};

struct BlockedGroup {
  SimTime time = 0;
  std::uint64_t proxy_seq = 0; // seq of the live queue entry standing for this group
  std::uint64_t max_seq = 0;   // an upper bound of the members' seqs
  std::uint32_t host = 0;
  std::uint32_t signature = 0;
  std::uint32_t next_in_host = 0;
  bool live = false;
  std::vector<BlockedMember> members; // binary min-heap on seq

  [[nodiscard]] const BlockedMember &first() const noexcept { return members.front(); }

  void push(const BlockedMember &m) {
    std::size_t hole = members.size();
    members.push_back(m);
    while (hole > 0) {
      const std::size_t parent = (hole - 1U) / 2U;
      if (members[parent].seq <= m.seq) {
        break;
      }
      members[hole] = members[parent];
      hole = parent;
    }
    members[hole] = m;
    max_seq = m.seq > max_seq ? m.seq : max_seq;
  }

  BlockedMember pop() {
    const BlockedMember top = members.front();
    const BlockedMember last = members.back();
    members.pop_back();
    const std::size_t n = members.size();
    if (n > 0) {
      std::size_t hole = 0;
      for (;;) {
        std::size_t child = 2U * hole + 1U;
        if (child >= n) {
          break;
        }
        if (child + 1U < n && members[child + 1U].seq < members[child].seq) {
          ++child;
        }
        if (last.seq <= members[child].seq) {
          break;
        }
        members[hole] = members[child];
        hole = child;
      }
      members[hole] = last;
    }
    return top;
  }
};

class BlockedGroups {
public:
  static constexpr std::uint32_t kNone = 0xffffffffU;

  explicit BlockedGroups(std::uint32_t hosts) : host_head_(hosts, kNone) {}

  BlockedGroup &operator[](std::uint32_t id) noexcept { return groups_[id]; }
  const BlockedGroup &operator[](std::uint32_t id) const noexcept { return groups_[id]; }

  // The head of the host's list of groups, which find() reads first.
  void prefetch_host(std::uint32_t host) const noexcept { __builtin_prefetch(&host_head_[host]); }

  [[nodiscard]] std::uint32_t find(std::uint32_t host, std::uint32_t signature,
                                   SimTime time) const noexcept {
    for (std::uint32_t id = host_head_[host]; id != kNone; id = groups_[id].next_in_host) {
      if (groups_[id].signature == signature && groups_[id].time == time) {
        return id;
      }
    }
    return kNone;
  }

  std::uint32_t create(std::uint32_t host, std::uint32_t signature, SimTime time) {
    std::uint32_t id = 0;
    if (free_.empty()) {
      id = static_cast<std::uint32_t>(groups_.size());
      groups_.emplace_back();
    } else {
      id = free_.back();
      free_.pop_back();
      if (!free_.empty()) { // the next create's record, freed long ago when groups pile up
        __builtin_prefetch(&groups_[free_.back()], 1);
      }
    }
    BlockedGroup &g = groups_[id];
    g.time = time;
    g.host = host;
    g.signature = signature;
    g.max_seq = 0;
    g.live = true;
    g.members.clear();
    g.next_in_host = host_head_[host];
    host_head_[host] = id;
    return id;
  }

  void release(std::uint32_t id) {
    BlockedGroup &g = groups_[id];
    std::uint32_t *link = &host_head_[g.host];
    while (*link != id) {
      link = &groups_[*link].next_in_host;
    }
    *link = g.next_in_host;
    g.live = false;
    g.members.clear();
    free_.push_back(id);
  }

  [[nodiscard]] std::uint64_t memory_bytes() const noexcept {
    std::uint64_t n = groups_.capacity() * sizeof(BlockedGroup) +
                      (free_.capacity() + host_head_.capacity()) * sizeof(std::uint32_t);
    for (const BlockedGroup &g : groups_) {
      n += g.members.capacity() * sizeof(BlockedMember);
    }
    return n;
  }

private:
  std::vector<BlockedGroup> groups_;
  std::vector<std::uint32_t> free_;
  std::vector<std::uint32_t> host_head_;
};

} // namespace parjava::loggp
