// Collective operations as the point-to-point algorithms MPI libraries run (issue: "collectives
// as the point-to-point algorithms real libraries use, chosen by message size and process count
// like Open MPI's tuned decision, overridable").
//
// Each algorithm is described, for one rank, as a sequence of rounds; a round posts at most one
// receive and one send (receive first, as MPI_Sendrecv does), then optionally waits for
// everything posted so far and applies the reduction operator to what arrived. Rounds are
// computed on demand from the round index (no per-process schedule is stored), so a ring over a
// million ranks costs no memory.
//
// The automatic choice reproduces Open MPI 4.1's fixed decision rules
// (ompi/mca/coll/tuned/coll_tuned_decision_fixed.c, v4.1.8: the thresholds on communicator size
// and message size are transcribed into tables in collective_algorithm.cpp), for commutative
// operations. Where Open MPI picks an algorithm parjava does not implement as such, the table
// names the substitute (see algorithm_substitutions()).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace parjava::interp {

enum class Collective : std::uint8_t {
  Barrier,
  Bcast,
  Reduce,
  Allreduce,
  Gather,
  Gatherv,
  Scatter,
  Scatterv,
  Allgather,
  Allgatherv,
  Alltoall,
  Alltoallv,
  Scan,
  Exscan,
  ReduceScatter,
};

enum class Algorithm : std::uint8_t {
  Auto,
  Linear,               // root talks to everyone (basic_linear)
  TwoProc,              // the two-process exchange
  RecursiveDoubling,    // partners rank ^ 2^k (with Open MPI's fold for non-powers of two)
  Dissemination,        // barrier: rank + 2^k (Open MPI's "bruck" barrier)
  DoubleRing,           // barrier: two passes around the ring
  Tree,                 // barrier: binomial fan-in then fan-out
  Chain,                // pipeline / chain (unsegmented: a linear chain from the root)
  BinaryTree,           // Open MPI's level-ordered binary tree (build_tree, fanout 2)
  Binomial,             // Open MPI's binomial tree (build_bmtree)
  Knomial,              // k-nomial tree, radix 4 (Open MPI's default radix)
  ScatterAllgather,     // bcast: binomial scatter + recursive-doubling (or ring) allgather
  ScatterAllgatherRing, // bcast: binomial scatter + ring allgather
  NonOverlapping,       // allreduce: reduce + bcast; reduce_scatter: reduce + scatterv
  Ring,                 // reduce-scatter / allgather around the ring
  Rabenseifner,     // allreduce: recursive-halving reduce-scatter + recursive-doubling allgather
  Bruck,            // allgather / alltoall: log2 P rounds at distance 2^k
  Neighbor,         // allgather: neighbour exchange (even P)
  Pairwise,         // alltoall: P-1 rounds with rank ± k
  RecursiveHalving, // reduce_scatter: halving vectors at doubling distances
  Count_
};

std::string_view collective_name(Collective c); // "allreduce", ...
std::string_view algorithm_name(Algorithm a);   // "recursive_doubling", ...
std::optional<Algorithm> algorithm_by_name(std::string_view name);
std::optional<Collective> collective_by_name(std::string_view name);
// Whether `a` implements `c`.
bool supports(Collective c, Algorithm a);
// The algorithms implementing `c`, for messages and documentation.
std::vector<Algorithm> algorithms_for(Collective c);

// Open MPI 4.1's fixed decision for a communicator of `size` ranks and a message of
// `decision_bytes` (Open MPI's total_dsize for that collective: the whole vector for
// bcast/reduce/allreduce, the per-rank block for allgather/alltoall/gather/scatter, the whole
// result for reduce_scatter and allgatherv).
Algorithm decide(Collective c, std::int64_t size, std::uint64_t decision_bytes);
// Substitutions made where Open MPI's choice is not implemented as such: lines such as
// "allreduce: segmented_ring (5) -> ring (Open MPI's fixed decision passes segsize 0, which
// does not segment)".
std::vector<std::string> algorithm_substitutions();

// One call of a collective as seen by one rank.
struct CollectiveCall {
  Collective kind = Collective::Barrier;
  Algorithm algorithm = Algorithm::Linear;
  Algorithm first = Algorithm::Linear;  // NonOverlapping: the reduce's algorithm
  Algorithm second = Algorithm::Linear; // NonOverlapping / Linear allgather: the bcast's
  std::int64_t size = 1;                // ranks in the communicator
  std::int64_t rank = 0;                // this rank in the communicator
  std::int64_t root = 0;                // root rank in the communicator (rooted collectives)
  std::uint64_t bytes = 0; // bcast/reduce/allreduce/scan: the vector; gather/scatter/allgather/
                           // alltoall: one rank's block; ignored by the v-variants
  // v-variants (gatherv, scatterv, allgatherv, alltoallv, reduce_scatter): the size of rank
  // `peer`'s block (alltoallv: what this rank sends to `peer`; the receive size is not needed,
  // a message carries its size).
  const std::function<std::uint64_t(std::int64_t)> *block_bytes = nullptr;

  [[nodiscard]] std::uint64_t block(std::int64_t peer) const {
    return block_bytes != nullptr ? (*block_bytes)(peer) : bytes;
  }
};

struct Round {
  std::int64_t recv_peer = -1;  // -1: none
  std::uint64_t recv_bytes = 0; // the expected size (the message's own size is what counts)
  std::int64_t send_peer = -1;
  std::uint64_t send_bytes = 0;
  bool wait = true;    // wait for every request of this collective posted so far
  bool reduce = false; // apply the operator to recv_bytes after the wait
};

// Number of rounds this rank runs.
std::uint32_t round_count(const CollectiveCall &call);
// Round `index` (< round_count) of this rank.
Round round_at(const CollectiveCall &call, std::uint32_t index);

} // namespace parjava::interp
