// Collective communication patterns as GOAL schedules, shaped like LogGOPSim's Schedgen
// (anchor §5) -- same operations, same per-rank order, same dependencies -- so that tests and
// benchmarks need neither Schedgen nor multi-GB text files: a 2^20-rank schedule is built in
// memory in seconds and written as GOAL text only when LogGOPSim must read it too.
//
// Patterns (P ranks, d bytes):
//   binomial_tree_bcast, binomial_tree_reduce  binomial trees rooted at `root`
//   dissemination                               log2 P rounds; each send requires the
//                                               previous recv (a barrier/allgather shape)
//   allreduce_recursive_doubling                reduce-scatter with halving sizes, then
//                                               allgather with doubling sizes (P a power of two)
//   allreduce_ring                              2(P-1) steps of d/P bytes
//   linear_alltoall                             P(P-1) independent sends and recvs
//   pipelined_ring                              d/segment segments passed rank to rank
//   gather, scatter                             linear, to/from `root`
//   linear_barrier                              all to root, root to all
// Options beyond Schedgen: `compute` adds a `calc` of that many ns after every recv that a
// later send depends on (the reduction), and `chain_receives` makes each recv irequire the
// previous one, which keeps at most a handful of ops ready at once (Schedgen's recdoub and
// ring make every recv ready at start, more than 16 for large P, see ready_order.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "parjava/loggp/goal_schedule.hpp"

namespace parjava::loggp {

struct PatternOptions {
  std::uint32_t ranks = 8;
  std::uint64_t bytes = 8;
  std::uint32_t root = 0;
  std::uint64_t segment = 1024; // pipelined_ring segment size in bytes
  std::uint64_t compute = 0;    // ns of calc after each reduction recv (0: none)
  bool chain_receives = false;
};

[[nodiscard]] GoalSchedule generate_pattern(std::string_view name, const PatternOptions &options);
[[nodiscard]] std::vector<std::string> pattern_names();

} // namespace parjava::loggp
