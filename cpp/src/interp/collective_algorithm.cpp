// Collective algorithms as rounds of point-to-point messages, and Open MPI 4.1's choice among
// them. Tree shapes follow Open MPI's topology builders (coll_base_topo.c): the level-ordered
// k-ary tree, the binomial tree whose children are rank | 2^k, and the k-nomial tree.
#include "parjava/interp/collective_algorithm.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <limits>

#include "parjava/error.hpp"

namespace parjava::interp {

namespace {

constexpr std::array<std::string_view, 15> kCollectiveNames = {
    "barrier",  "bcast",     "reduce",   "allreduce", "gather",
    "gatherv",  "scatter",   "scatterv", "allgather", "allgatherv",
    "alltoall", "alltoallv", "scan",     "exscan",    "reduce_scatter"};

constexpr std::array<std::string_view, static_cast<std::size_t>(Algorithm::Count_)>
    kAlgorithmNames = {"auto",
                       "linear",
                       "two_proc",
                       "recursive_doubling",
                       "dissemination",
                       "double_ring",
                       "tree",
                       "chain",
                       "binary_tree",
                       "binomial",
                       "knomial",
                       "scatter_allgather",
                       "scatter_allgather_ring",
                       "nonoverlapping",
                       "ring",
                       "rabenseifner",
                       "bruck",
                       "neighbor",
                       "pairwise",
                       "recursive_halving"};

constexpr std::int64_t kKnomialRadix = 4; // Open MPI's coll_tuned_bcast_knomial_radix default

// ---- Open MPI 4.1.8 fixed decision tables -------------------------------------------------
// One row per communicator-size band: `Below n` applies when size < n, `Equal n` when size ==
// n, kAnySize closes the table. Within a row, {bytes, alg}: the first entry with
// decision_bytes < bytes wins; kAnyBytes closes the row. Algorithm numbers are Open MPI's.

enum class Band : std::uint8_t { Below, Equal };
constexpr std::int64_t kAnySize = std::numeric_limits<std::int64_t>::max();
constexpr std::uint64_t kAnyBytes = std::numeric_limits<std::uint64_t>::max();

struct Rule {
  std::uint64_t below;
  int alg;
};
struct Row {
  Band band;
  std::int64_t size;
  std::vector<Rule> rules;
};
using Table = std::vector<Row>;
using enum Band;

const Table kAllreduce = {
    {Below, 4, {{8, 4}, {4096, 3}, {8192, 4}, {16384, 3}, {65536, 4}, {262144, 5}, {kAnyBytes, 6}}},
    {Below, 8, {{16, 4}, {8192, 3}, {kAnyBytes, 6}}},
    {Below, 16, {{8192, 3}, {kAnyBytes, 6}}},
    {Below, 32, {{64, 5}, {4096, 3}, {kAnyBytes, 6}}},
    {Below, 64, {{128, 5}, {kAnyBytes, 6}}},
    {Below, 128, {{262144, 3}, {kAnyBytes, 6}}},
    {Below, 256, {{131072, 2}, {262144, 3}, {kAnyBytes, 6}}},
    {Below, 512, {{4096, 2}, {kAnyBytes, 6}}},
    {Below, 2048, {{2048, 2}, {16384, 3}, {kAnyBytes, 6}}},
    {Below, 4096, {{2048, 2}, {4096, 5}, {16384, 3}, {kAnyBytes, 6}}},
    {Below, kAnySize, {{2048, 2}, {16384, 5}, {32768, 3}, {kAnyBytes, 6}}},
};
const Table kBarrier = {
    {Below, 4, {{kAnyBytes, 3}}},    {Below, 8, {{kAnyBytes, 1}}},
    {Below, 64, {{kAnyBytes, 3}}},   {Below, 256, {{kAnyBytes, 4}}},
    {Below, 512, {{kAnyBytes, 6}}},  {Below, 1024, {{kAnyBytes, 4}}},
    {Below, 4096, {{kAnyBytes, 6}}}, {Below, kAnySize, {{kAnyBytes, 4}}},
};
const Table kBcast = {
    {Below,
     4,
     {{32, 3},
      {256, 5},
      {512, 3},
      {1024, 7},
      {32768, 1},
      {131072, 5},
      {262144, 2},
      {524288, 1},
      {1048576, 6},
      {kAnyBytes, 5}}},
    {Below, 8, {{64, 5}, {128, 6}, {2048, 5}, {8192, 6}, {1048576, 1}, {kAnyBytes, 2}}},
    {Below, 16, {{8, 7}, {64, 5}, {4096, 7}, {16384, 5}, {32768, 6}, {kAnyBytes, 1}}},
    {Below, 32, {{4096, 7}, {1048576, 6}, {kAnyBytes, 8}}},
    {Below, 64, {{2048, 6}, {kAnyBytes, 7}}},
    {Below, 128, {{kAnyBytes, 7}}},
    {Below, 256, {{2, 6}, {16384, 5}, {32768, 1}, {65536, 5}, {kAnyBytes, 7}}},
    {Below, 1024, {{16384, 7}, {32768, 4}, {kAnyBytes, 7}}},
    {Below, 2048, {{524288, 7}, {kAnyBytes, 8}}},
    {Below, 4096, {{262144, 7}, {kAnyBytes, 8}}},
    {Below, kAnySize, {{8192, 7}, {16384, 5}, {262144, 7}, {kAnyBytes, 8}}},
};
const Table kReduce = {
    {Below, 4, {{8, 7}, {16, 4}, {32, 3}, {262144, 1}, {524288, 3}, {1048576, 2}, {kAnyBytes, 3}}},
    {Below, 8, {{4096, 4}, {65536, 2}, {262144, 5}, {524288, 1}, {1048576, 5}, {kAnyBytes, 1}}},
    {Below, 16, {{8192, 4}, {kAnyBytes, 5}}},
    {Below, 32, {{4096, 4}, {kAnyBytes, 5}}},
    {Below, 256, {{kAnyBytes, 5}}},
    {Below, 512, {{8192, 5}, {16384, 6}, {kAnyBytes, 5}}},
    {Below, 2048, {{kAnyBytes, 5}}},
    {Below, 4096, {{512, 5}, {1024, 6}, {8192, 5}, {16384, 6}, {kAnyBytes, 5}}},
    {Below,
     kAnySize,
     {{16, 5}, {32, 6}, {1024, 5}, {2048, 6}, {8192, 5}, {16384, 6}, {kAnyBytes, 5}}},
};
const Table kAllgather = {
    {Equal, 2, {{kAnyBytes, 6}}},
    {Below, 32, {{kAnyBytes, 3}}},
    {Below, 64, {{1024, 3}, {65536, 5}, {kAnyBytes, 4}}},
    {Below, 128, {{512, 3}, {65536, 5}, {kAnyBytes, 4}}},
    {Below, 256, {{512, 3}, {131072, 5}, {524288, 4}, {1048576, 5}, {kAnyBytes, 4}}},
    {Below,
     512,
     {{32, 3}, {128, 2}, {1024, 3}, {131072, 5}, {524288, 4}, {1048576, 5}, {kAnyBytes, 4}}},
    {Below, 1024, {{64, 3}, {256, 2}, {2048, 3}, {kAnyBytes, 5}}},
    {Below,
     2048,
     {{4, 3}, {8, 2}, {16, 3}, {32, 2}, {256, 3}, {512, 2}, {4096, 3}, {kAnyBytes, 5}}},
    {Below, 4096, {{32, 2}, {128, 3}, {512, 2}, {4096, 3}, {kAnyBytes, 5}}},
    {Below, kAnySize, {{2, 3}, {8, 2}, {16, 3}, {512, 2}, {4096, 3}, {kAnyBytes, 5}}},
};
const Table kAlltoall = {
    {Equal,
     2,
     {{2, 2},
      {4, 5},
      {16, 2},
      {64, 5},
      {256, 2},
      {4096, 5},
      {32768, 2},
      {262144, 4},
      {1048576, 5},
      {kAnyBytes, 2}}},
    {Below, 8, {{8192, 4}, {16384, 1}, {65536, 4}, {524288, 1}, {1048576, 2}, {kAnyBytes, 1}}},
    {Below, 16, {{262144, 4}, {kAnyBytes, 1}}},
    {Below,
     32,
     {{4, 4}, {512, 3}, {8192, 4}, {32768, 1}, {262144, 4}, {524288, 1}, {kAnyBytes, 4}}},
    {Below, 64, {{512, 3}, {524288, 1}, {kAnyBytes, 4}}},
    {Below, 128, {{1024, 3}, {2048, 1}, {4096, 4}, {262144, 1}, {kAnyBytes, 2}}},
    {Below, 256, {{1024, 3}, {2048, 4}, {262144, 1}, {kAnyBytes, 2}}},
    {Below, 512, {{1024, 3}, {8192, 4}, {32768, 1}, {kAnyBytes, 2}}},
    {Below, 1024, {{512, 3}, {8192, 4}, {16384, 1}, {131072, 4}, {262144, 1}, {kAnyBytes, 2}}},
    {Below, 2048, {{512, 3}, {1024, 4}, {2048, 1}, {16384, 4}, {262144, 1}, {kAnyBytes, 4}}},
    {Below, 4096, {{1024, 3}, {4096, 4}, {8192, 1}, {131072, 4}, {kAnyBytes, 1}}},
    {Below, kAnySize, {{2048, 3}, {8192, 4}, {16384, 1}, {32768, 4}, {65536, 1}, {kAnyBytes, 4}}},
};
const Table kGather = {
    {Below, 4, {{2, 3}, {4, 1}, {32768, 2}, {65536, 1}, {131072, 2}, {kAnyBytes, 3}}},
    {Below, 8, {{1024, 2}, {8192, 1}, {32768, 2}, {262144, 1}, {kAnyBytes, 3}}},
    {Below, 256, {{kAnyBytes, 2}}},
    {Below, 512, {{2048, 2}, {8192, 1}, {kAnyBytes, 2}}},
    {Below, kAnySize, {{kAnyBytes, 2}}},
};
const Table kScatter = {
    {Below, 4, {{2, 3}, {131072, 1}, {262144, 3}, {kAnyBytes, 1}}},
    {Below, 8, {{2048, 2}, {4096, 1}, {8192, 2}, {32768, 1}, {1048576, 3}, {kAnyBytes, 1}}},
    {Below, 16, {{16384, 2}, {1048576, 3}, {kAnyBytes, 1}}},
    {Below, 32, {{16384, 2}, {32768, 1}, {kAnyBytes, 3}}},
    {Below, 64, {{512, 2}, {8192, 3}, {16384, 2}, {kAnyBytes, 3}}},
    {Below, kAnySize, {{512, 2}, {kAnyBytes, 3}}},
};
const Table kReduceScatter = {
    {Below, 4, {{65536, 3}, {131072, 4}, {kAnyBytes, 3}}},
    {Below, 8, {{8, 1}, {262144, 2}, {kAnyBytes, 3}}},
    {Below, 32, {{262144, 2}, {kAnyBytes, 3}}},
    {Below, 64, {{64, 1}, {2048, 2}, {524288, 4}, {kAnyBytes, 3}}},
    {Below, 128, {{256, 1}, {512, 2}, {2048, 4}, {4096, 2}, {kAnyBytes, 4}}},
    {Below, 256, {{256, 1}, {512, 2}, {kAnyBytes, 4}}},
    {Below, 512, {{256, 1}, {1024, 2}, {kAnyBytes, 4}}},
    {Below, 1024, {{512, 1}, {2048, 2}, {8192, 4}, {16384, 2}, {kAnyBytes, 4}}},
    {Below, 2048, {{512, 1}, {4096, 2}, {16384, 4}, {32768, 2}, {kAnyBytes, 4}}},
    {Below, 4096, {{512, 1}, {4096, 2}, {kAnyBytes, 4}}},
    {Below, kAnySize, {{1024, 1}, {8192, 2}, {kAnyBytes, 4}}},
};
const Table kAllgatherv = {
    {Equal, 2, {{2048, 3}, {4096, 5}, {8192, 3}, {kAnyBytes, 5}}},
    {Below, 8, {{256, 1}, {4096, 4}, {8192, 3}, {16384, 4}, {262144, 2}, {kAnyBytes, 4}}},
    {Below, 16, {{1024, 1}, {kAnyBytes, 2}}},
    {Below, 32, {{128, 1}, {262144, 2}, {kAnyBytes, 3}}},
    {Below, 64, {{256, 1}, {8192, 2}, {kAnyBytes, 3}}},
    {Below, 128, {{256, 1}, {4096, 2}, {kAnyBytes, 3}}},
    {Below, 256, {{1024, 2}, {65536, 4}, {kAnyBytes, 3}}},
    {Below, 512, {{1024, 2}, {kAnyBytes, 3}}},
    {Below, 1024, {{512, 2}, {1024, 1}, {4096, 2}, {1048576, 4}, {kAnyBytes, 3}}},
    {Below, kAnySize, {{4096, 2}, {kAnyBytes, 4}}},
};
const Table kAlltoallv = {
    {Below, 4, {{kAnyBytes, 2}}},    {Below, 64, {{kAnyBytes, 1}}},
    {Below, 128, {{kAnyBytes, 2}}},  {Below, 256, {{kAnyBytes, 1}}},
    {Below, 1024, {{kAnyBytes, 2}}}, {Below, kAnySize, {{kAnyBytes, 1}}},
};

int lookup(const Table &table, std::int64_t size, std::uint64_t bytes) {
  for (const auto &row : table) {
    const bool hit = row.band == Equal ? size == row.size : size < row.size;
    if (!hit) {
      continue;
    }
    for (const auto &rule : row.rules) {
      if (bytes < rule.below || rule.below == kAnyBytes) {
        return rule.alg;
      }
    }
  }
  return 1;
}

// Open MPI's algorithm numbers per collective -> parjava's algorithms (substitutions noted in
// algorithm_substitutions()).
Algorithm map_ompi(Collective c, int alg) {
  using A = Algorithm;
  switch (c) {
  case Collective::Barrier: {
    constexpr std::array<A, 7> m = {
        A::Auto,          A::Linear,  A::DoubleRing, A::RecursiveDoubling,
        A::Dissemination, A::TwoProc, A::Tree};
    return m[static_cast<std::size_t>(alg)];
  }
  case Collective::Bcast: {
    constexpr std::array<A, 10> m = {A::Auto,
                                     A::Linear,
                                     A::Chain,
                                     A::Chain,
                                     A::BinaryTree,
                                     A::BinaryTree,
                                     A::Binomial,
                                     A::Knomial,
                                     A::ScatterAllgather,
                                     A::ScatterAllgatherRing};
    return m[static_cast<std::size_t>(alg)];
  }
  case Collective::Reduce: {
    constexpr std::array<A, 8> m = {A::Auto,       A::Linear,   A::Chain,      A::Chain,
                                    A::BinaryTree, A::Binomial, A::BinaryTree, A::Binomial};
    return m[static_cast<std::size_t>(alg)];
  }
  case Collective::Allreduce: {
    constexpr std::array<A, 7> m = {A::Auto, A::Linear, A::NonOverlapping, A::RecursiveDoubling,
                                    A::Ring, A::Ring,   A::Rabenseifner};
    return m[static_cast<std::size_t>(alg)];
  }
  case Collective::Allgather: {
    constexpr std::array<A, 7> m = {A::Auto, A::Linear,   A::Bruck,  A::RecursiveDoubling,
                                    A::Ring, A::Neighbor, A::TwoProc};
    return m[static_cast<std::size_t>(alg)];
  }
  case Collective::Allgatherv: {
    constexpr std::array<A, 6> m = {A::Auto, A::Linear, A::Bruck, A::Ring, A::Neighbor, A::TwoProc};
    return m[static_cast<std::size_t>(alg)];
  }
  case Collective::Alltoall: {
    constexpr std::array<A, 6> m = {A::Auto,  A::Linear, A::Pairwise,
                                    A::Bruck, A::Linear, A::TwoProc};
    return m[static_cast<std::size_t>(alg)];
  }
  case Collective::Alltoallv:
    return alg == 2 ? A::Pairwise : A::Linear;
  case Collective::Gather:
  case Collective::Scatter:
    return alg == 2 ? A::Binomial : A::Linear;
  case Collective::ReduceScatter: {
    constexpr std::array<A, 5> m = {A::Auto, A::NonOverlapping, A::RecursiveHalving, A::Ring,
                                    A::RecursiveHalving};
    return m[static_cast<std::size_t>(alg)];
  }
  case Collective::Gatherv:
  case Collective::Scatterv:
  case Collective::Scan:
  case Collective::Exscan:
    return A::Linear;
  }
  return A::Linear;
}

bool is_power_of_two(std::int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// Largest power of two <= n (n >= 1).
std::int64_t power_of_two_below(std::int64_t n) {
  return static_cast<std::int64_t>(std::bit_floor(static_cast<std::uint64_t>(n)));
}

std::int64_t mod(std::int64_t a, std::int64_t n) { return ((a % n) + n) % n; }

Round send_round(std::int64_t peer, std::uint64_t bytes, bool wait = true) {
  Round r;
  r.send_peer = peer;
  r.send_bytes = bytes;
  r.wait = wait;
  return r;
}

Round recv_round(std::int64_t peer, std::uint64_t bytes, bool reduce = false, bool wait = true) {
  Round r;
  r.recv_peer = peer;
  r.recv_bytes = bytes;
  r.reduce = reduce;
  r.wait = wait;
  return r;
}

Round exchange_round(std::int64_t send_peer, std::uint64_t send_bytes, std::int64_t recv_peer,
                     std::uint64_t recv_bytes, bool reduce = false) {
  Round r;
  r.send_peer = send_peer;
  r.send_bytes = send_bytes;
  r.recv_peer = recv_peer;
  r.recv_bytes = recv_bytes;
  r.reduce = reduce;
  return r;
}

// ---- tree shapes (virtual ranks: 0 is the root) --------------------------------------------

struct TreeNode {
  std::int64_t parent = -1;
  std::vector<std::int64_t> children; // in Open MPI's sending order
};

// Binomial tree (Open MPI build_bmtree): the parent clears the lowest set bit; children are
// v | 2^k for the bits below it, in increasing k.
void binomial(std::int64_t v, std::int64_t size, TreeNode &out) {
  out.parent = -1;
  out.children.clear();
  for (std::int64_t mask = 1; mask < size; mask <<= 1) {
    const std::int64_t remote = v ^ mask;
    if (remote < v) {
      out.parent = remote;
      break;
    }
    if (remote < size) {
      out.children.push_back(remote);
    }
  }
}

// Number of ranks in the binomial subtree rooted at child c = v | mask.
std::int64_t binomial_subtree(std::int64_t child, std::int64_t size) {
  const std::int64_t low = child & -child; // the child's lowest set bit = its subtree span
  return std::min(low, size - child);
}

// Open MPI build_tree(fanout, ...): levels of fanout^l nodes; a node at level l with
// delta = fanout^l has children v + delta*(i+1).
void kary(std::int64_t v, std::int64_t size, std::int64_t fanout, TreeNode &out) {
  out.parent = -1;
  out.children.clear();
  std::int64_t before = 0; // nodes on the levels above v's
  std::int64_t width = 1;  // nodes on v's level
  while (before + width <= v) {
    before += width;
    width *= fanout;
  }
  const std::int64_t delta = width; // fanout^level
  for (std::int64_t i = 0; i < fanout; ++i) {
    const std::int64_t child = v + delta * (i + 1);
    if (child >= size) {
      break;
    }
    out.children.push_back(child);
  }
  if (v == 0) {
    return;
  }
  std::int64_t parent = v;
  if (parent < fanout) {
    parent = 0;
  } else {
    while (parent >= before) {
      parent -= delta / fanout;
    }
  }
  out.parent = parent;
}

// k-nomial tree: the parent removes the lowest non-zero base-radix digit; children add one at
// each lower digit position, largest subtrees first (Open MPI bcast_intra_knomial).
void knomial(std::int64_t v, std::int64_t size, std::int64_t radix, TreeNode &out) {
  out.parent = -1;
  out.children.clear();
  std::int64_t mask = 1;
  while (mask < size) {
    if (v % (radix * mask) != 0) {
      out.parent = v - v % (radix * mask);
      break;
    }
    mask *= radix;
  }
  for (mask /= radix; mask > 0; mask /= radix) {
    for (std::int64_t j = 1; j < radix; ++j) {
      const std::int64_t child = v + j * mask;
      if (child < size) {
        out.children.push_back(child);
      }
    }
  }
}

void tree_of(Algorithm a, std::int64_t v, std::int64_t size, TreeNode &out) {
  switch (a) {
  case Algorithm::BinaryTree:
    kary(v, size, 2, out);
    break;
  case Algorithm::Knomial:
    knomial(v, size, kKnomialRadix, out);
    break;
  case Algorithm::Chain:
    out.parent = v > 0 ? v - 1 : -1;
    out.children.clear();
    if (v + 1 < size) {
      out.children.push_back(v + 1);
    }
    break;
  default:
    binomial(v, size, out);
    break;
  }
}

// ---- rounds of each algorithm ---------------------------------------------------------------
// Algorithms with O(log P) rounds build them into a reused buffer; algorithms with O(P) rounds
// compute round k directly.

using Rounds = std::vector<Round>;

Rounds &buffer() {
  thread_local Rounds rounds;
  rounds.clear();
  return rounds;
}

std::int64_t real(std::int64_t v, const CollectiveCall &c) { return (v + c.root) % c.size; }
std::int64_t virtual_rank(const CollectiveCall &c) { return mod(c.rank - c.root, c.size); }

// Tree broadcast: receive from the parent, then send to every child, wait once.
void tree_bcast(const CollectiveCall &c, Algorithm shape, std::uint64_t bytes, Rounds &out) {
  TreeNode node;
  tree_of(shape, virtual_rank(c), c.size, node);
  if (node.parent >= 0) {
    out.push_back(recv_round(real(node.parent, c), bytes));
  }
  for (std::size_t i = 0; i < node.children.size(); ++i) {
    out.push_back(send_round(real(node.children[i], c), bytes, i + 1 == node.children.size()));
  }
}

// Tree reduction: receive from each child and reduce, then send to the parent.
void tree_reduce(const CollectiveCall &c, Algorithm shape, std::uint64_t bytes, Rounds &out) {
  TreeNode node;
  tree_of(shape, virtual_rank(c), c.size, node);
  for (auto child : node.children) {
    out.push_back(recv_round(real(child, c), bytes, true));
  }
  if (node.parent >= 0) {
    out.push_back(send_round(real(node.parent, c), bytes));
  }
}

std::uint64_t subtree_bytes(const CollectiveCall &c, std::int64_t child_v) {
  const std::int64_t span = binomial_subtree(child_v, c.size);
  if (c.block_bytes == nullptr) {
    return static_cast<std::uint64_t>(span) * c.bytes;
  }
  std::uint64_t total = 0;
  for (std::int64_t v = child_v; v < child_v + span; ++v) {
    total += c.block(real(v, c));
  }
  return total;
}

// Binomial gather: receive each child's subtree, then send the own subtree to the parent.
void binomial_gather(const CollectiveCall &c, Rounds &out) {
  TreeNode node;
  const std::int64_t v = virtual_rank(c);
  binomial(v, c.size, node);
  for (auto child : node.children) {
    out.push_back(recv_round(real(child, c), subtree_bytes(c, child)));
  }
  if (node.parent >= 0) {
    std::uint64_t mine = c.block(c.rank);
    for (auto child : node.children) {
      mine += subtree_bytes(c, child);
    }
    out.push_back(send_round(real(node.parent, c), mine));
  }
}

// Binomial scatter: receive the own subtree from the parent, then send each child its subtree,
// largest first. `per_rank` overrides the block size (bcast's scatter phase).
void binomial_scatter(const CollectiveCall &c, Rounds &out) {
  TreeNode node;
  const std::int64_t v = virtual_rank(c);
  binomial(v, c.size, node);
  if (node.parent >= 0) {
    std::uint64_t mine = c.block(c.rank);
    for (auto child : node.children) {
      mine += subtree_bytes(c, child);
    }
    out.push_back(recv_round(real(node.parent, c), mine));
  }
  for (std::size_t i = node.children.size(); i-- > 0;) {
    out.push_back(
        send_round(real(node.children[i], c), subtree_bytes(c, node.children[i]), i == 0));
  }
}

// Recursive doubling over ranks with Open MPI's fold for non-powers of two
// (coll_base_allreduce.c, allreduce_intra_recursivedoubling): ranks < 2*extra pair up, the even
// one hands its data to the odd one and waits for the result.
struct Fold {
  std::int64_t adjsize;
  std::int64_t extra;
  std::int64_t newrank; // -1 when this rank sits the doubling out
};

Fold fold_of(std::int64_t rank, std::int64_t size) {
  Fold f{};
  f.adjsize = power_of_two_below(size);
  f.extra = size - f.adjsize;
  if (rank < 2 * f.extra) {
    f.newrank = rank % 2 == 0 ? -1 : rank / 2;
  } else {
    f.newrank = rank - f.extra;
  }
  return f;
}

std::int64_t unfold(std::int64_t newremote, const Fold &f) {
  return newremote < f.extra ? newremote * 2 + 1 : newremote + f.extra;
}

void recursive_doubling_allreduce(const CollectiveCall &c, Rounds &out) {
  const Fold f = fold_of(c.rank, c.size);
  if (c.rank < 2 * f.extra) {
    if (c.rank % 2 == 0) {
      out.push_back(send_round(c.rank + 1, c.bytes));
    } else {
      out.push_back(recv_round(c.rank - 1, c.bytes, true));
    }
  }
  if (f.newrank >= 0) {
    for (std::int64_t distance = 1; distance < f.adjsize; distance <<= 1) {
      const std::int64_t remote = unfold(f.newrank ^ distance, f);
      out.push_back(exchange_round(remote, c.bytes, remote, c.bytes, true));
    }
  }
  if (c.rank < 2 * f.extra) {
    if (c.rank % 2 == 0) {
      out.push_back(recv_round(c.rank + 1, c.bytes));
    } else {
      out.push_back(send_round(c.rank - 1, c.bytes));
    }
  }
}

void rabenseifner(const CollectiveCall &c, Rounds &out) {
  const Fold f = fold_of(c.rank, c.size);
  if (c.rank < 2 * f.extra) {
    if (c.rank % 2 == 0) {
      out.push_back(send_round(c.rank + 1, c.bytes));
    } else {
      out.push_back(recv_round(c.rank - 1, c.bytes, true));
    }
  }
  if (f.newrank >= 0) {
    // Reduce-scatter: vector halving, distance doubling.
    std::uint64_t window = c.bytes;
    for (std::int64_t mask = 1; mask < f.adjsize; mask <<= 1) {
      const std::int64_t remote = unfold(f.newrank ^ mask, f);
      const std::uint64_t half = (window + 1) / 2;
      out.push_back(exchange_round(remote, window - half, remote, half, true));
      window = half;
    }
    // Allgather: vector doubling, distance halving.
    for (std::int64_t mask = f.adjsize >> 1; mask > 0; mask >>= 1) {
      const std::int64_t remote = unfold(f.newrank ^ mask, f);
      out.push_back(exchange_round(remote, window, remote, window));
      window *= 2;
    }
  }
  if (c.rank < 2 * f.extra) {
    if (c.rank % 2 == 0) {
      out.push_back(recv_round(c.rank + 1, c.bytes));
    } else {
      out.push_back(send_round(c.rank - 1, c.bytes));
    }
  }
}

void barrier_recursive_doubling(const CollectiveCall &c, Rounds &out) {
  // coll_base_barrier.c, barrier_intra_recursivedoubling: ranks >= adjsize report to
  // rank - adjsize and wait for its release.
  const std::int64_t adjsize = power_of_two_below(c.size);
  if (c.rank >= adjsize) {
    out.push_back(send_round(c.rank - adjsize, 0));
    out.push_back(recv_round(c.rank - adjsize, 0));
    return;
  }
  if (c.rank < c.size - adjsize) {
    out.push_back(recv_round(c.rank + adjsize, 0));
  }
  for (std::int64_t mask = 1; mask < adjsize; mask <<= 1) {
    const std::int64_t remote = c.rank ^ mask;
    out.push_back(exchange_round(remote, 0, remote, 0));
  }
  if (c.rank < c.size - adjsize) {
    out.push_back(send_round(c.rank + adjsize, 0));
  }
}

void barrier_tree(const CollectiveCall &c, Rounds &out) {
  // coll_base_barrier.c, barrier_intra_tree: fan-in over rank ^ jump, then fan-out.
  const std::int64_t depth =
      static_cast<std::int64_t>(std::bit_ceil(static_cast<std::uint64_t>(c.size)));
  for (std::int64_t jump = 1; jump < depth; jump <<= 1) {
    const std::int64_t partner = c.rank ^ jump;
    if ((partner & (jump - 1)) == 0 && partner < c.size) {
      if (partner > c.rank) {
        out.push_back(recv_round(partner, 0));
      } else if (partner < c.rank) {
        out.push_back(send_round(partner, 0));
      }
    }
  }
  for (std::int64_t jump = depth >> 1; jump > 0; jump >>= 1) {
    const std::int64_t partner = c.rank ^ jump;
    if ((partner & (jump - 1)) == 0 && partner < c.size) {
      if (partner > c.rank) {
        out.push_back(send_round(partner, 0));
      } else if (partner < c.rank) {
        out.push_back(recv_round(partner, 0));
      }
    }
  }
}

// Bruck allgather: at distance 2^k send the blocks held so far to rank - 2^k.
void bruck_allgather(const CollectiveCall &c, Rounds &out) {
  for (std::int64_t d = 1; d < c.size; d <<= 1) {
    const std::int64_t blocks = std::min(d, c.size - d);
    std::uint64_t bytes = 0;
    std::uint64_t recv_bytes = 0;
    if (c.block_bytes == nullptr) {
      bytes = recv_bytes = static_cast<std::uint64_t>(blocks) * c.bytes;
    } else {
      for (std::int64_t j = 0; j < blocks; ++j) {
        bytes += c.block(mod(c.rank + j, c.size));
        recv_bytes += c.block(mod(c.rank + d + j, c.size));
      }
    }
    out.push_back(
        exchange_round(mod(c.rank - d, c.size), bytes, mod(c.rank + d, c.size), recv_bytes));
  }
}

void recursive_doubling_allgather(const CollectiveCall &c, Rounds &out) {
  for (std::int64_t mask = 1; mask < c.size; mask <<= 1) {
    const std::int64_t remote = c.rank ^ mask;
    const std::uint64_t bytes = static_cast<std::uint64_t>(mask) * c.bytes;
    out.push_back(exchange_round(remote, bytes, remote, bytes));
  }
}

void bruck_alltoall(const CollectiveCall &c, Rounds &out) {
  for (std::int64_t d = 1; d < c.size; d <<= 1) {
    // Blocks whose index has bit d set travel in this round (Bruck et al. 1997).
    const std::int64_t blocks =
        (c.size / (2 * d)) * d + std::max<std::int64_t>(0, c.size % (2 * d) - d);
    const std::uint64_t bytes = static_cast<std::uint64_t>(blocks) * c.bytes;
    out.push_back(exchange_round(mod(c.rank + d, c.size), bytes, mod(c.rank - d, c.size), bytes));
  }
}

void dissemination(const CollectiveCall &c, Rounds &out) {
  for (std::int64_t d = 1; d < c.size; d <<= 1) {
    out.push_back(exchange_round(mod(c.rank + d, c.size), 0, mod(c.rank - d, c.size), 0));
  }
}

void double_ring(const CollectiveCall &c, Rounds &out) {
  const std::int64_t left = mod(c.rank - 1, c.size);
  const std::int64_t right = mod(c.rank + 1, c.size);
  for (int pass = 0; pass < 2; ++pass) {
    if (c.rank == 0) {
      out.push_back(send_round(right, 0));
      out.push_back(recv_round(left, 0));
    } else {
      out.push_back(recv_round(left, 0));
      out.push_back(send_round(right, 0));
    }
  }
}

void recursive_halving(const CollectiveCall &c, Rounds &out) {
  // Reduce_scatter by recursive halving (coll_base_reduce_scatter.c) with the same fold as
  // recursive doubling: the even rank of a folded pair hands over the whole vector and gets
  // its block back at the end.
  std::uint64_t total = 0;
  for (std::int64_t p = 0; p < c.size; ++p) {
    total += c.block(p);
  }
  const Fold f = fold_of(c.rank, c.size);
  if (c.rank < 2 * f.extra) {
    if (c.rank % 2 == 0) {
      out.push_back(send_round(c.rank + 1, total));
    } else {
      out.push_back(recv_round(c.rank - 1, total, true));
    }
  }
  if (f.newrank >= 0) {
    std::uint64_t window = total;
    for (std::int64_t mask = f.adjsize >> 1; mask > 0; mask >>= 1) {
      const std::int64_t remote = unfold(f.newrank ^ mask, f);
      const std::uint64_t half = (window + 1) / 2;
      out.push_back(exchange_round(remote, window - half, remote, half, true));
      window = half;
    }
  }
  if (c.rank < 2 * f.extra) {
    if (c.rank % 2 == 0) {
      out.push_back(recv_round(c.rank + 1, c.block(c.rank)));
    } else {
      out.push_back(send_round(c.rank - 1, c.block(c.rank - 1)));
    }
  }
}

// coll_base_allgather.c, neighborexchange (even sizes): one block with the first neighbour,
// then two blocks per round alternating neighbours (size / 2 rounds, computed directly).
Round neighbor_round(const CollectiveCall &c, std::uint32_t i) {
  const bool even = c.rank % 2 == 0;
  const std::array<std::int64_t, 2> neighbour = {
      even ? mod(c.rank + 1, c.size) : mod(c.rank - 1, c.size),
      even ? mod(c.rank - 1, c.size) : mod(c.rank + 1, c.size)};
  if (i == 0) {
    return exchange_round(neighbour[0], c.block(c.rank), neighbour[0], c.block(neighbour[0]));
  }
  const std::int64_t n = neighbour[i % 2];
  return exchange_round(n, 2 * c.bytes, n, 2 * c.bytes);
}

void scan_linear(const CollectiveCall &c, bool exclusive, Rounds &out) {
  // The basic module's scan: a chain from rank 0 up.
  (void)exclusive;
  if (c.rank > 0) {
    out.push_back(recv_round(c.rank - 1, c.bytes, true));
  }
  if (c.rank + 1 < c.size) {
    out.push_back(send_round(c.rank + 1, c.bytes));
  }
}

void scan_recursive_doubling(const CollectiveCall &c, Rounds &out) {
  for (std::int64_t mask = 1; mask < c.size; mask <<= 1) {
    Round r;
    if (c.rank + mask < c.size) {
      r.send_peer = c.rank + mask;
      r.send_bytes = c.bytes;
    }
    if (c.rank - mask >= 0) {
      r.recv_peer = c.rank - mask;
      r.recv_bytes = c.bytes;
      r.reduce = true;
    }
    out.push_back(r);
  }
}

// Builds the rounds of log-structured algorithms (and of linear ones whose count is small on
// every rank but the root, which are fine to build too for P up to millions only on the root).
const Rounds &build(const CollectiveCall &c) {
  Rounds &out = buffer();
  if (c.size <= 1) {
    return out;
  }
  switch (c.kind) {
  case Collective::Barrier:
    switch (c.algorithm) {
    case Algorithm::RecursiveDoubling:
      barrier_recursive_doubling(c, out);
      break;
    case Algorithm::Dissemination:
      dissemination(c, out);
      break;
    case Algorithm::DoubleRing:
      double_ring(c, out);
      break;
    case Algorithm::TwoProc:
      if (c.rank < 2) {
        out.push_back(exchange_round(1 - c.rank, 0, 1 - c.rank, 0));
      }
      break;
    default:
      barrier_tree(c, out);
      break;
    }
    break;
  case Collective::Bcast:
    tree_bcast(c, c.algorithm, c.bytes, out);
    break;
  case Collective::Reduce:
    tree_reduce(c, c.algorithm, c.bytes, out);
    break;
  case Collective::Allreduce:
    if (c.algorithm == Algorithm::Rabenseifner) {
      rabenseifner(c, out);
    } else {
      recursive_doubling_allreduce(c, out);
    }
    break;
  case Collective::Gather:
  case Collective::Gatherv:
    binomial_gather(c, out);
    break;
  case Collective::Scatter:
  case Collective::Scatterv:
    binomial_scatter(c, out);
    break;
  case Collective::Allgather:
  case Collective::Allgatherv:
    if (c.algorithm == Algorithm::Bruck) {
      bruck_allgather(c, out);
    } else if (c.algorithm == Algorithm::TwoProc) {
      out.push_back(exchange_round(1 - c.rank, c.block(c.rank), 1 - c.rank, c.block(1 - c.rank)));
    } else {
      recursive_doubling_allgather(c, out);
    }
    break;
  case Collective::Alltoall:
  case Collective::Alltoallv:
    if (c.algorithm == Algorithm::TwoProc) {
      out.push_back(exchange_round(1 - c.rank, c.block(1 - c.rank), 1 - c.rank, c.bytes));
    } else {
      bruck_alltoall(c, out);
    }
    break;
  case Collective::Scan:
  case Collective::Exscan:
    if (c.algorithm == Algorithm::RecursiveDoubling) {
      scan_recursive_doubling(c, out);
    } else {
      scan_linear(c, c.kind == Collective::Exscan, out);
    }
    break;
  case Collective::ReduceScatter:
    recursive_halving(c, out);
    break;
  }
  return out;
}

// ---- O(P) algorithms: direct round computation ----------------------------------------------

std::uint64_t ring_block(const CollectiveCall &c, std::int64_t block) {
  if (c.block_bytes != nullptr) {
    return c.block(block);
  }
  // The vector split into `size` blocks, the first (bytes % size) one byte larger.
  const auto n = static_cast<std::uint64_t>(c.size);
  const auto b = static_cast<std::uint64_t>(block);
  return c.bytes / n + (b < c.bytes % n ? 1 : 0);
}

bool is_linear_shape(const CollectiveCall &c) {
  switch (c.kind) {
  case Collective::Barrier:
  case Collective::Bcast:
  case Collective::Reduce:
  case Collective::Gather:
  case Collective::Gatherv:
  case Collective::Scatter:
  case Collective::Scatterv:
  case Collective::Alltoall:
  case Collective::Alltoallv:
    return c.algorithm == Algorithm::Linear;
  default:
    return false;
  }
}

std::uint32_t linear_count(const CollectiveCall &c) {
  const auto others = static_cast<std::uint32_t>(c.size - 1);
  const bool root = c.rank == c.root;
  switch (c.kind) {
  case Collective::Barrier:
    return root ? 2 * others : 2; // root 0: receive from all, then release all
  case Collective::Alltoall:
  case Collective::Alltoallv:
    return 2 * others;
  default:
    return root ? others : 1;
  }
}

// Peer of the k-th root round in rank order, skipping the root.
std::int64_t nth_other(const CollectiveCall &c, std::int64_t k) { return k < c.root ? k : k + 1; }

Round linear_round(const CollectiveCall &c, std::uint32_t k) {
  const bool root = c.rank == c.root;
  const std::int64_t others = c.size - 1;
  switch (c.kind) {
  case Collective::Barrier:
    if (!root) {
      return k == 0 ? send_round(c.root, 0) : recv_round(c.root, 0);
    }
    if (k < others) {
      return recv_round(nth_other(c, k), 0);
    }
    return send_round(nth_other(c, k - others), 0, k + 1 == 2 * others);
  case Collective::Bcast:
    if (!root) {
      return recv_round(c.root, c.bytes);
    }
    return send_round(nth_other(c, k), c.bytes, k + 1 == others);
  case Collective::Reduce:
    // The basic module's linear reduce receives from the highest rank down.
    if (!root) {
      return send_round(c.root, c.bytes);
    }
    return recv_round(nth_other(c, others - 1 - k), c.bytes, true);
  case Collective::Gather:
  case Collective::Gatherv:
    if (!root) {
      return send_round(c.root, c.block(c.rank));
    }
    return recv_round(nth_other(c, k), c.block(nth_other(c, k)));
  case Collective::Scatter:
  case Collective::Scatterv:
    if (!root) {
      return recv_round(c.root, c.block(c.rank));
    }
    return send_round(nth_other(c, k), c.block(nth_other(c, k)));
  default: { // alltoall(v), basic linear: post every receive, then every send, wait once
    if (k < others) {
      const std::int64_t from = mod(c.rank + 1 + k, c.size);
      return recv_round(from, c.bytes, false, false);
    }
    const std::int64_t j = k - others;
    const std::int64_t to = mod(c.rank - 1 - j, c.size);
    return send_round(to, c.block(to), k + 1 == 2 * others);
  }
  }
}

// Ring allreduce (coll_base_allreduce.c, allreduce_intra_ring): size-1 reduce-scatter rounds,
// then size-1 allgather rounds, block by block.
Round ring_allreduce_round(const CollectiveCall &c, std::uint32_t k) {
  const std::int64_t right = mod(c.rank + 1, c.size);
  const std::int64_t left = mod(c.rank - 1, c.size);
  const std::int64_t steps = c.size - 1;
  if (k < steps) {
    const std::int64_t send_block = mod(c.rank - k, c.size);
    const std::int64_t recv_block = mod(c.rank - k - 1, c.size);
    return exchange_round(right, ring_block(c, send_block), left, ring_block(c, recv_block), true);
  }
  const std::int64_t j = k - steps;
  const std::int64_t send_block = mod(c.rank + 1 - j, c.size);
  const std::int64_t recv_block = mod(c.rank - j, c.size);
  return exchange_round(right, ring_block(c, send_block), left, ring_block(c, recv_block));
}

Round ring_allgather_round(const CollectiveCall &c, std::uint32_t k) {
  const std::int64_t right = mod(c.rank + 1, c.size);
  const std::int64_t left = mod(c.rank - 1, c.size);
  const std::int64_t send_block = mod(c.rank - k, c.size);
  const std::int64_t recv_block = mod(c.rank - k - 1, c.size);
  return exchange_round(right, c.block(send_block), left, c.block(recv_block));
}

Round ring_reduce_scatter_round(const CollectiveCall &c, std::uint32_t k) {
  const std::int64_t right = mod(c.rank + 1, c.size);
  const std::int64_t left = mod(c.rank - 1, c.size);
  const std::int64_t send_block = mod(c.rank - k - 1, c.size);
  const std::int64_t recv_block = mod(c.rank - k - 2, c.size);
  return exchange_round(right, c.block(send_block), left, c.block(recv_block), true);
}

Round pairwise_round(const CollectiveCall &c, std::uint32_t k) {
  const std::int64_t step = k + 1;
  const std::int64_t to = mod(c.rank + step, c.size);
  const std::int64_t from = mod(c.rank - step, c.size);
  return exchange_round(to, c.block(to), from, c.bytes);
}

// Log-structured algorithms computed directly from the round index (the million-process
// benchmark runs these; building their round list per call would dominate the run time).
struct FoldedRounds {
  Fold fold;
  std::uint32_t pre;  // the fold's hand-over round (0 or 1)
  std::uint32_t main; // rounds among the power-of-two ranks
};

FoldedRounds folded(const CollectiveCall &c, std::uint32_t per_mask) {
  FoldedRounds f{fold_of(c.rank, c.size), 0, 0};
  f.pre = c.rank < 2 * f.fold.extra ? 1 : 0;
  if (f.fold.newrank >= 0) {
    f.main = per_mask * static_cast<std::uint32_t>(
                            std::countr_zero(static_cast<std::uint64_t>(f.fold.adjsize)));
  }
  return f;
}

bool is_direct(const CollectiveCall &c) {
  switch (c.kind) {
  case Collective::Allreduce:
    return c.algorithm == Algorithm::RecursiveDoubling || c.algorithm == Algorithm::Rabenseifner;
  case Collective::Barrier:
    return c.algorithm == Algorithm::Dissemination;
  case Collective::Allgather:
    return (c.algorithm == Algorithm::Bruck && c.block_bytes == nullptr) ||
           c.algorithm == Algorithm::Neighbor;
  case Collective::Alltoall:
    return c.algorithm == Algorithm::Bruck;
  default:
    return false;
  }
}

std::uint32_t log_rounds(std::int64_t size) {
  std::uint32_t n = 0;
  for (std::int64_t d = 1; d < size; d <<= 1) {
    ++n;
  }
  return n;
}

std::uint32_t direct_count(const CollectiveCall &c) {
  if (c.algorithm == Algorithm::Neighbor) {
    return static_cast<std::uint32_t>(c.size / 2);
  }
  if (c.kind == Collective::Allreduce) {
    const FoldedRounds f = folded(c, c.algorithm == Algorithm::Rabenseifner ? 2 : 1);
    return 2 * f.pre + f.main;
  }
  return log_rounds(c.size);
}

Round direct_round(const CollectiveCall &c, std::uint32_t i) {
  if (c.algorithm == Algorithm::Neighbor) {
    return neighbor_round(c, i);
  }
  if (c.kind == Collective::Allreduce) {
    const bool raben = c.algorithm == Algorithm::Rabenseifner;
    const FoldedRounds f = folded(c, raben ? 2 : 1);
    if (i < f.pre) {
      return c.rank % 2 == 0 ? send_round(c.rank + 1, c.bytes)
                             : recv_round(c.rank - 1, c.bytes, true);
    }
    if (i >= f.pre + f.main) {
      return c.rank % 2 == 0 ? recv_round(c.rank + 1, c.bytes) : send_round(c.rank - 1, c.bytes);
    }
    const std::uint32_t k = i - f.pre;
    if (!raben) {
      const std::int64_t remote = unfold(f.fold.newrank ^ (std::int64_t{1} << k), f.fold);
      return exchange_round(remote, c.bytes, remote, c.bytes, true);
    }
    const std::uint32_t steps = f.main / 2;
    if (k < steps) { // reduce-scatter: halving windows at doubling distances
      std::uint64_t window = c.bytes;
      for (std::uint32_t j = 0; j < k; ++j) {
        window = (window + 1) / 2;
      }
      const std::uint64_t half = (window + 1) / 2;
      const std::int64_t remote = unfold(f.fold.newrank ^ (std::int64_t{1} << k), f.fold);
      return exchange_round(remote, window - half, remote, half, true);
    }
    const std::uint32_t j = k - steps; // allgather: doubling windows at halving distances
    std::uint64_t window = c.bytes;
    for (std::uint32_t t = 0; t < steps; ++t) {
      window = (window + 1) / 2;
    }
    window <<= j;
    const std::int64_t remote =
        unfold(f.fold.newrank ^ (std::int64_t{1} << (steps - 1 - j)), f.fold);
    return exchange_round(remote, window, remote, window);
  }
  const std::int64_t d = std::int64_t{1} << i;
  switch (c.kind) {
  case Collective::Barrier:
    return exchange_round(mod(c.rank + d, c.size), 0, mod(c.rank - d, c.size), 0);
  case Collective::Allgather: {
    const std::uint64_t bytes = static_cast<std::uint64_t>(std::min(d, c.size - d)) * c.bytes;
    return exchange_round(mod(c.rank - d, c.size), bytes, mod(c.rank + d, c.size), bytes);
  }
  default: { // alltoall bruck
    const std::int64_t blocks =
        (c.size / (2 * d)) * d + std::max<std::int64_t>(0, c.size % (2 * d) - d);
    const std::uint64_t bytes = static_cast<std::uint64_t>(blocks) * c.bytes;
    return exchange_round(mod(c.rank + d, c.size), bytes, mod(c.rank - d, c.size), bytes);
  }
  }
}

// Composite algorithms: a first collective, then a second one on the same ranks.
struct Phases {
  CollectiveCall first;
  CollectiveCall second;
};

std::optional<Phases> phases_of(const CollectiveCall &c) {
  Phases p{c, c};
  p.first.root = 0;
  p.second.root = 0;
  p.first.block_bytes = nullptr;
  p.second.block_bytes = nullptr;
  switch (c.kind) {
  case Collective::Allreduce:
    if (c.algorithm == Algorithm::Linear || c.algorithm == Algorithm::NonOverlapping) {
      p.first.kind = Collective::Reduce;
      p.second.kind = Collective::Bcast;
      const bool linear = c.algorithm == Algorithm::Linear;
      p.first.algorithm = linear ? Algorithm::Linear : c.first;
      p.second.algorithm = linear ? Algorithm::Linear : c.second;
      return p;
    }
    return std::nullopt;
  case Collective::Allgather:
  case Collective::Allgatherv:
    if (c.algorithm == Algorithm::Linear) {
      // The basic module: gather(v) to rank 0, then broadcast everything.
      p.first.kind = c.kind == Collective::Allgather ? Collective::Gather : Collective::Gatherv;
      p.first.algorithm = Algorithm::Linear;
      p.first.block_bytes = c.block_bytes;
      std::uint64_t total = 0;
      for (std::int64_t r = 0; r < c.size; ++r) {
        total += c.block(r);
      }
      p.second.kind = Collective::Bcast;
      p.second.algorithm = c.second;
      p.second.bytes = total;
      return p;
    }
    return std::nullopt;
  case Collective::Bcast:
    if (c.algorithm == Algorithm::ScatterAllgather ||
        c.algorithm == Algorithm::ScatterAllgatherRing) {
      const auto n = static_cast<std::uint64_t>(c.size);
      p.first.kind = Collective::Scatter;
      p.first.algorithm = Algorithm::Binomial;
      p.first.root = c.root;
      p.first.bytes = (c.bytes + n - 1) / n;
      p.second.kind = Collective::Allgather;
      p.second.bytes = p.first.bytes;
      p.second.algorithm = c.algorithm == Algorithm::ScatterAllgather && is_power_of_two(c.size)
                               ? Algorithm::RecursiveDoubling
                               : Algorithm::Ring;
      return p;
    }
    return std::nullopt;
  case Collective::ReduceScatter:
    if (c.algorithm == Algorithm::NonOverlapping) {
      std::uint64_t total = 0;
      for (std::int64_t r = 0; r < c.size; ++r) {
        total += c.block(r);
      }
      p.first.kind = Collective::Reduce;
      p.first.algorithm = c.first;
      p.first.bytes = total;
      p.second.kind = Collective::Scatterv;
      p.second.algorithm = Algorithm::Linear;
      p.second.block_bytes = c.block_bytes;
      p.second.bytes = c.bytes;
      return p;
    }
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

bool is_ring_like(const CollectiveCall &c) {
  return (c.algorithm == Algorithm::Ring &&
          (c.kind == Collective::Allreduce || c.kind == Collective::Allgather ||
           c.kind == Collective::Allgatherv || c.kind == Collective::ReduceScatter)) ||
         (c.algorithm == Algorithm::Pairwise &&
          (c.kind == Collective::Alltoall || c.kind == Collective::Alltoallv));
}

Round ring_like_round(const CollectiveCall &c, std::uint32_t k) {
  switch (c.kind) {
  case Collective::Allreduce:
    return ring_allreduce_round(c, k);
  case Collective::Allgather:
  case Collective::Allgatherv:
    return ring_allgather_round(c, k);
  case Collective::ReduceScatter:
    return ring_reduce_scatter_round(c, k);
  default:
    return pairwise_round(c, k);
  }
}

std::uint32_t ring_like_count(const CollectiveCall &c) {
  const auto steps = static_cast<std::uint32_t>(c.size - 1);
  return c.kind == Collective::Allreduce ? 2 * steps : steps;
}

} // namespace

std::string_view collective_name(Collective c) {
  return kCollectiveNames[static_cast<std::size_t>(c)];
}

std::string_view algorithm_name(Algorithm a) {
  return kAlgorithmNames[static_cast<std::size_t>(a)];
}

std::optional<Algorithm> algorithm_by_name(std::string_view name) {
  for (std::size_t i = 0; i < kAlgorithmNames.size(); ++i) {
    if (kAlgorithmNames[i] == name) {
      return static_cast<Algorithm>(i);
    }
  }
  return std::nullopt;
}

std::optional<Collective> collective_by_name(std::string_view name) {
  for (std::size_t i = 0; i < kCollectiveNames.size(); ++i) {
    if (kCollectiveNames[i] == name) {
      return static_cast<Collective>(i);
    }
  }
  return std::nullopt;
}

std::vector<Algorithm> algorithms_for(Collective c) {
  using A = Algorithm;
  switch (c) {
  case Collective::Barrier:
    return {A::Linear, A::TwoProc, A::RecursiveDoubling, A::Dissemination, A::DoubleRing, A::Tree};
  case Collective::Bcast:
    return {A::Linear,
            A::Chain,
            A::BinaryTree,
            A::Binomial,
            A::Knomial,
            A::ScatterAllgather,
            A::ScatterAllgatherRing};
  case Collective::Reduce:
    return {A::Linear, A::Chain, A::BinaryTree, A::Binomial, A::Knomial};
  case Collective::Allreduce:
    return {A::Linear, A::NonOverlapping, A::RecursiveDoubling, A::Ring, A::Rabenseifner};
  case Collective::Gather:
  case Collective::Gatherv:
  case Collective::Scatter:
  case Collective::Scatterv:
    return {A::Linear, A::Binomial};
  case Collective::Allgather:
  case Collective::Allgatherv:
    return {A::Linear, A::Bruck, A::RecursiveDoubling, A::Ring, A::Neighbor, A::TwoProc};
  case Collective::Alltoall:
  case Collective::Alltoallv:
    return {A::Linear, A::Pairwise, A::Bruck, A::TwoProc};
  case Collective::Scan:
  case Collective::Exscan:
    return {A::Linear, A::RecursiveDoubling};
  case Collective::ReduceScatter:
    return {A::NonOverlapping, A::RecursiveHalving, A::Ring};
  }
  return {};
}

bool supports(Collective c, Algorithm a) {
  const auto list = algorithms_for(c);
  return std::find(list.begin(), list.end(), a) != list.end();
}

Algorithm decide(Collective c, std::int64_t size, std::uint64_t bytes) {
  switch (c) {
  case Collective::Barrier:
    return map_ompi(c, lookup(kBarrier, size, bytes));
  case Collective::Bcast:
    return map_ompi(c, lookup(kBcast, size, bytes));
  case Collective::Reduce:
    return map_ompi(c, lookup(kReduce, size, bytes));
  case Collective::Allreduce:
    return map_ompi(c, lookup(kAllreduce, size, bytes));
  case Collective::Allgather:
    return map_ompi(c, lookup(kAllgather, size, bytes));
  case Collective::Allgatherv:
    return map_ompi(c, lookup(kAllgatherv, size, bytes));
  case Collective::Alltoall:
    return map_ompi(c, lookup(kAlltoall, size, bytes));
  case Collective::Alltoallv:
    return map_ompi(c, lookup(kAlltoallv, size, bytes));
  case Collective::Gather:
    return map_ompi(c, lookup(kGather, size, bytes));
  case Collective::Scatter:
    return map_ompi(c, lookup(kScatter, size, bytes));
  case Collective::ReduceScatter:
    return map_ompi(c, lookup(kReduceScatter, size, bytes));
  case Collective::Gatherv:
  case Collective::Scatterv:
  case Collective::Scan:
  case Collective::Exscan:
    return Algorithm::Linear;
  }
  return Algorithm::Linear;
}

std::vector<std::string> algorithm_substitutions() {
  std::vector<std::string> out;
  out.emplace_back("bcast/reduce: chain (2) and pipeline (3) -> chain: the fixed decision passes "
                   "segsize 0 and fanout 0, i.e. one segment down a chain of fanout 1");
  out.emplace_back("bcast: split_binary_tree (4) -> binary_tree; reduce: in-order_binary (6) -> "
                   "binary_tree");
  out.emplace_back("reduce: rabenseifner (7) -> binomial");
  out.emplace_back("allreduce: segmented_ring (5) -> ring (segsize 0 does not segment)");
  out.emplace_back("alltoall: modified_bruck (3) -> bruck; linear_sync (4) -> linear");
  out.emplace_back("gather: linear_sync (3) -> linear; scatter: linear_nb (3) -> linear");
  out.emplace_back("reduce_scatter: butterfly (4) -> recursive_halving");
  out.emplace_back("allgatherv: default (1) -> linear (gatherv to rank 0, then bcast)");
  out.emplace_back("bcast scatter_allgather (8): the allgather is recursive doubling for powers "
                   "of two, ring otherwise");
  out.emplace_back("allgather recursive_doubling on a non-power of two -> bruck, neighbor on an "
                   "odd size -> ring, allreduce ring with fewer bytes than ranks -> recursive "
                   "doubling (all as Open MPI falls back)");
  return out;
}

namespace {

// Replace algorithms that cannot run on this size by what Open MPI falls back to.
CollectiveCall normalised(const CollectiveCall &c) {
  CollectiveCall out = c;
  if ((c.kind == Collective::Allgather || c.kind == Collective::Allgatherv) &&
      c.algorithm == Algorithm::RecursiveDoubling && !is_power_of_two(c.size)) {
    out.algorithm = Algorithm::Bruck;
  }
  if ((c.kind == Collective::Allgather || c.kind == Collective::Allgatherv) &&
      c.algorithm == Algorithm::Neighbor && c.size % 2 != 0) {
    out.algorithm = Algorithm::Ring;
  }
  if (c.kind == Collective::Allgatherv && c.algorithm == Algorithm::Neighbor) {
    out.algorithm = Algorithm::Ring; // neighbour exchange with unequal blocks: ring
  }
  if (c.algorithm == Algorithm::TwoProc && c.size != 2) {
    out.algorithm = c.kind == Collective::Barrier ? Algorithm::RecursiveDoubling
                    : (c.kind == Collective::Alltoall || c.kind == Collective::Alltoallv)
                        ? Algorithm::Pairwise
                        : Algorithm::Ring;
  }
  if (c.kind == Collective::Allreduce && c.algorithm == Algorithm::Ring &&
      c.bytes < static_cast<std::uint64_t>(c.size)) {
    out.algorithm = Algorithm::RecursiveDoubling;
  }
  return out;
}

} // namespace

std::uint32_t round_count(const CollectiveCall &call) {
  if (call.size <= 1) {
    return 0;
  }
  const CollectiveCall c = normalised(call);
  if (const auto p = phases_of(c)) {
    return round_count(p->first) + round_count(p->second);
  }
  if (is_linear_shape(c)) {
    return linear_count(c);
  }
  if (is_ring_like(c)) {
    return ring_like_count(c);
  }
  if (is_direct(c)) {
    return direct_count(c);
  }
  return static_cast<std::uint32_t>(build(c).size());
}

Round round_at(const CollectiveCall &call, std::uint32_t index) {
  const CollectiveCall c = normalised(call);
  if (const auto p = phases_of(c)) {
    const std::uint32_t first = round_count(p->first);
    return index < first ? round_at(p->first, index) : round_at(p->second, index - first);
  }
  if (is_linear_shape(c)) {
    return linear_round(c, index);
  }
  if (is_ring_like(c)) {
    return ring_like_round(c, index);
  }
  if (is_direct(c)) {
    return direct_round(c, index);
  }
  const Rounds &rounds = build(c);
  if (index >= rounds.size()) {
    throw Error(ErrorKind::Usage, "collective round out of range");
  }
  return rounds[index];
}

} // namespace parjava::interp
