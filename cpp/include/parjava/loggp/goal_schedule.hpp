// A GOAL schedule (LogGOPSim's input, anchor §2): per rank, a DAG of send/recv/calc operations
// joined by `requires` (start after the other completed) and `irequires` (start after the other
// started) edges. Immutable once built; the simulator keeps its own per-run state, so one
// schedule can be simulated many times with different parameters.
//
// Layout (issue 18): one 16-byte OpRecord per operation. What repeats across ops -- kind, size,
// tag, cpu and nic -- is an index into a per-schedule table of distinct shapes (a pattern has a
// handful; a schedule read from a trace at most one per distinct size), and the dependents that
// follow an op closely in its rank -- the next op requires this one, as in every tree, ring and
// dissemination -- are implied by a distance and a run length instead of listed. Only the other
// edges go to one CSR array. So a message completing a recv finds the recv's dependents in the
// records right after it, one cache line, where a list would cost a miss for the list and one
// per dependent; and a schedule costs 16 bytes per op plus 4 per edge that is not implied
// (LogGOPSim's binary form needs 39 bytes per op plus its runtime copies, anchor §7).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "parjava/loggp/huge_page_allocator.hpp"

namespace parjava::loggp {

// Operation kinds, numbered as LogGOPSim numbers them: the ready-list sort orders by this value
// (SEND < RECV < CALC, anchor §4 "Admitting ready ops").
enum class OpKind : std::uint8_t { Send = 1, Recv = 2, Calc = 3 };

inline constexpr std::uint32_t kAnySource = 0xffffffffU; // `recv ... from -1`
inline constexpr std::uint32_t kAnyTag = 0xffffffffU;    // `tag -1` (sends accept it too)

using OpId = std::uint32_t; // global operation index, ops of rank r are contiguous

// What an op does, shared by every op that does the same (16 bytes).
struct OpShape {
  std::uint64_t size = 0; // bytes (send, recv) or duration (calc)
  std::uint32_t tag = 0;  // kAnyTag matches every tag; 0 for a calc
  OpKind kind = OpKind::Calc;
  std::uint8_t cpu = 0;
  std::uint8_t nic = 0; // 0 for a calc
  std::uint8_t reserved = 0;
  friend bool operator==(const OpShape &, const OpShape &) = default;
};
static_assert(sizeof(OpShape) == 16);

// The stored record of one op (16 bytes). `links` packs, from the low bit:
//   dependencies   7 bits  incoming requires + irequires edges; kManyDependencies: look it up
//   requires_at    7 bits  the first requires-dependent is op + requires_at (0: none implied),
//   requires_run   6 bits    followed by requires_run - 1 consecutive ones (op+at .. op+at+run-1)
//   irequires_at   6 bits  the first irequires-dependent is op + irequires_at (0: none implied)
//   split          6 bits  how many of the explicit dependents are requires ones (the rest are
//                          irequires); kManySplit: look it up
// Implied dependents come before the explicit ones of the same list, so release order -- the
// order of the dependency lines per prerequisite, which decides ties (anchor §2) -- is kept.
struct OpRecord {
  std::uint32_t peer = 0;  // send: destination; recv: source or kAnySource; calc: 0
  std::uint32_t shape = 0; // index into GoalSchedule::shapes()
  std::uint32_t edges = 0; // explicit dependents: [edges, next op's edges) in dependents()
  std::uint32_t links = 0;

  static constexpr std::uint32_t kManyDependencies = 127;
  static constexpr std::uint32_t kManySplit = 63;
  static constexpr std::uint32_t kMaxRequiresAt = 127;
  static constexpr std::uint32_t kMaxRequiresRun = 63;
  static constexpr std::uint32_t kMaxIrequiresAt = 63;

  [[nodiscard]] std::uint32_t dependencies() const noexcept { return links & 0x7fU; }
  [[nodiscard]] std::uint32_t requires_at() const noexcept { return (links >> 7U) & 0x7fU; }
  [[nodiscard]] std::uint32_t requires_run() const noexcept { return (links >> 14U) & 0x3fU; }
  [[nodiscard]] std::uint32_t irequires_at() const noexcept { return (links >> 20U) & 0x3fU; }
  [[nodiscard]] std::uint32_t split() const noexcept { return links >> 26U; }
  [[nodiscard]] static std::uint32_t pack(std::uint32_t dependencies, std::uint32_t requires_at,
                                          std::uint32_t requires_run, std::uint32_t irequires_at,
                                          std::uint32_t split) noexcept {
    return dependencies | (requires_at << 7U) | (requires_run << 14U) | (irequires_at << 20U) |
           (split << 26U);
  }
};
static_assert(sizeof(OpRecord) == 16, "OpRecord is the hot record of the simulator; keep it 16 B");

// One op as a value (for reports, the writer and the bindings; the simulator reads the records).
struct GoalOp {
  std::uint64_t size = 0;
  std::uint32_t peer = 0;
  std::uint32_t tag = 0;
  std::uint32_t dependency_count = 0;
  OpKind kind = OpKind::Calc;
  std::uint8_t cpu = 0;
  std::uint8_t nic = 0;
};

class GoalScheduleBuilder;

class GoalSchedule {
public:
  GoalSchedule() = default;

  [[nodiscard]] std::uint32_t num_ranks() const noexcept {
    return static_cast<std::uint32_t>(rank_begin_.empty() ? 0 : rank_begin_.size() - 1);
  }
  [[nodiscard]] std::uint32_t num_ops() const noexcept {
    return static_cast<std::uint32_t>(ops_.empty() ? 0 : ops_.size() - 1);
  }
  // Every host gets max(cpu)+1 CPUs and max(nic)+1 NICs over the whole file (anchor §2).
  [[nodiscard]] unsigned num_cpus() const noexcept { return num_cpus_; }
  [[nodiscard]] unsigned num_nics() const noexcept { return num_nics_; }
  // All dependency edges, implied ones included.
  [[nodiscard]] std::uint64_t num_edges() const noexcept { return num_edges_; }
  [[nodiscard]] std::uint64_t count(OpKind kind) const noexcept;
  // The largest number of incoming edges of one op.
  [[nodiscard]] std::uint32_t max_dependency_count() const noexcept { return max_dependencies_; }

  [[nodiscard]] const OpRecord &record(OpId id) const noexcept { return ops_[id]; }
  [[nodiscard]] const OpShape &shape(OpId id) const noexcept { return shapes_[ops_[id].shape]; }
  [[nodiscard]] GoalOp op(OpId id) const noexcept;
  [[nodiscard]] std::uint32_t dependency_count(OpId id) const noexcept {
    const std::uint32_t d = ops_[id].dependencies();
    return d == OpRecord::kManyDependencies ? large_value(large_counts_, id) : d;
  }
  // How many of op id's explicit dependents are requires ones.
  [[nodiscard]] std::uint32_t split(OpId id) const noexcept {
    const std::uint32_t s = ops_[id].split();
    return s == OpRecord::kManySplit ? large_value(large_splits_, id) : s;
  }
  // First op of rank r; ops of rank r are [rank_begin(r), rank_begin(r+1)).
  [[nodiscard]] OpId rank_begin(std::uint32_t rank) const noexcept { return rank_begin_[rank]; }
  [[nodiscard]] std::uint32_t rank_of(OpId id) const noexcept; // binary search, for reports
  // Dependents in release order (implied ones first), for reports and tests; the simulator
  // walks the records itself.
  [[nodiscard]] std::vector<OpId> requires_dependents(OpId id) const;
  [[nodiscard]] std::vector<OpId> irequires_dependents(OpId id) const;
  template <class F> void for_each_requires(OpId id, F &&f) const {
    const OpRecord &r = ops_[id];
    for (std::uint32_t k = 0; r.requires_at() != 0 && k < r.requires_run(); ++k) {
      f(id + r.requires_at() + k);
    }
    const std::uint32_t end = r.edges + split(id);
    for (std::uint32_t e = r.edges; e < end; ++e) {
      f(dependents_[e]);
    }
  }
  template <class F> void for_each_irequires(OpId id, F &&f) const {
    const OpRecord &r = ops_[id];
    if (r.irequires_at() != 0) {
      f(id + r.irequires_at());
    }
    const std::uint32_t end = ops_[id + 1].edges;
    for (std::uint32_t e = r.edges + split(id); e < end; ++e) {
      f(dependents_[e]);
    }
  }

  // Where the schedule came from ("x.goal", "<text>", "pattern allreduce_recdoub ...").
  [[nodiscard]] const std::string &source() const noexcept { return source_; }
  // For a schedule read from a file: the byte offset of each `rank N {` block, so a report can
  // point at file:line of an operation without keeping a line number per op in memory.
  [[nodiscard]] const std::vector<std::uint64_t> &rank_block_offsets() const noexcept {
    return rank_block_offsets_;
  }

  // Bytes held by this schedule's arrays (what the simulator reads besides its own state).
  [[nodiscard]] std::uint64_t memory_bytes() const noexcept;

  // Raw arrays, for the binary form and the bindings. ops() has num_ops()+1 records: the last is
  // a sentinel whose `edges` ends the explicit dependents of the last real op. The large_*
  // tables hold (op, value) sorted by op for the ops whose count or split does not fit the
  // record.
  using Large = std::vector<std::pair<OpId, std::uint32_t>>;
  [[nodiscard]] std::span<const OpRecord> ops() const noexcept { return ops_; }
  [[nodiscard]] std::span<const OpShape> shapes() const noexcept { return shapes_; }
  [[nodiscard]] std::span<const OpId> rank_begins() const noexcept { return rank_begin_; }
  [[nodiscard]] std::span<const OpId> dependents() const noexcept { return dependents_; }
  [[nodiscard]] const Large &large_counts() const noexcept { return large_counts_; }
  [[nodiscard]] const Large &large_splits() const noexcept { return large_splits_; }

private:
  friend class GoalScheduleBuilder;
  friend GoalSchedule read_goal_binary(const std::string &path);
  [[nodiscard]] static std::uint32_t large_value(const Large &table, OpId id) noexcept;

  // The simulator's random accesses go to these: huge pages (huge_page_allocator.hpp).
  std::vector<OpRecord, HugePageAllocator<OpRecord>> ops_;
  std::vector<OpId, HugePageAllocator<OpId>> rank_begin_;
  std::vector<OpId, HugePageAllocator<OpId>> dependents_;
  std::vector<OpShape> shapes_;
  Large large_counts_;
  Large large_splits_;
  std::vector<std::uint64_t> rank_block_offsets_;
  std::string source_;
  std::uint64_t num_edges_ = 0;
  std::uint32_t max_dependencies_ = 0;
  unsigned num_cpus_ = 1;
  unsigned num_nics_ = 1;
};

// Builds a schedule rank by rank, in rank order, with dependencies given by the op's index
// within its rank (its *offset*, anchor §2). Throws parjava::Error(Usage) on misuse (ranks out
// of order, unknown op index, peer out of range, more than 2^32-2 ops, edges or shapes).
class GoalScheduleBuilder {
public:
  explicit GoalScheduleBuilder(std::uint32_t num_ranks, std::string source = "<built>");

  // Reserve room for about this many ops and edges in total (optional, saves reallocation).
  void reserve(std::uint64_t ops, std::uint64_t edges);

  void begin_rank(std::uint32_t rank);
  std::uint32_t add_send(std::uint64_t size, std::uint32_t dest, std::uint32_t tag = 0,
                         std::uint8_t cpu = 0, std::uint8_t nic = 0);
  std::uint32_t add_recv(std::uint64_t size, std::uint32_t src, std::uint32_t tag = 0,
                         std::uint8_t cpu = 0, std::uint8_t nic = 0);
  std::uint32_t add_calc(std::uint64_t duration, std::uint8_t cpu = 0);
  // `dependent requires prerequisite`: dependent starts after prerequisite completed.
  void add_requires(std::uint32_t dependent, std::uint32_t prerequisite);
  // `dependent irequires prerequisite`: dependent starts after prerequisite started.
  void add_irequires(std::uint32_t dependent, std::uint32_t prerequisite);
  void end_rank();
  // Number of ops added to the current rank so far.
  [[nodiscard]] std::uint32_t rank_size() const noexcept;
  void set_rank_block_offset(std::uint64_t offset);

  GoalSchedule finish();

private:
  struct Edge {
    std::uint32_t prerequisite;
    std::uint32_t dependent;
    bool start;
  };
  struct ShapeHash {
    std::size_t operator()(const OpShape &s) const noexcept;
  };
  std::uint32_t add_op(OpKind kind, std::uint64_t size, std::uint32_t peer, std::uint32_t tag,
                       std::uint8_t cpu, std::uint8_t nic);
  void add_edge(std::uint32_t dependent, std::uint32_t prerequisite, bool start);
  void end_rank_with_one_edge_at_most(OpId base, std::uint32_t n);
  // The messages of add_op's checks, out of line (cold): building them inline made every add_op
  // save and restore the registers the string code needs.
  [[noreturn]] [[gnu::cold]] [[gnu::noinline]] static void op_outside_rank_error();
  [[noreturn]] [[gnu::cold]] [[gnu::noinline]] static void too_many_ops_error();
  [[noreturn]] [[gnu::cold]] [[gnu::noinline]] void peer_error(bool send, std::uint32_t peer) const;
  static constexpr std::uint64_t kMaxOpCount = 0xffffffffULL - 1U; // 2^32 - 2
  std::uint32_t shape_index(const OpShape &shape);
  std::uint32_t lookup_shape(const OpShape &shape);

  GoalSchedule schedule_;
  std::uint32_t declared_ranks_;
  std::uint32_t current_rank_ = 0;
  bool in_rank_ = false;
  std::uint8_t max_cpu_ = 0;
  std::uint8_t max_nic_ = 0;
  std::vector<Edge> rank_edges_;      // edges of the current rank, in declaration order
  std::vector<std::uint32_t> counts_; // scratch of end_rank()
  std::vector<std::uint32_t> lists_;  // scratch of end_rank(): dependents per prerequisite
  std::vector<std::uint32_t> incoming_;
  // Open-addressing table from shape to index (a std::unordered_map node per shape would cost
  // more than the shape itself when sizes vary).
  std::vector<std::uint32_t> shape_slots_;
  // The shape of the last op of each kind (indexed by OpKind's value; out of range: none).
  std::array<std::uint32_t, 4> last_shape_{~0U, ~0U, ~0U, ~0U};
};

// The per-op part of building, inline: the GOAL text reader calls it once per op, and as calls
// (add_send, add_op, shape_index, rank_size) it was ~120 instructions an op (issue 18).
inline std::uint32_t GoalScheduleBuilder::rank_size() const noexcept {
  if (!in_rank_) {
    return 0;
  }
  return static_cast<std::uint32_t>(schedule_.ops_.size() - schedule_.rank_begin_.back());
}

inline std::uint32_t GoalScheduleBuilder::shape_index(const OpShape &shape) {
  const std::vector<OpShape> &shapes = schedule_.shapes_;
  // Consecutive ops of a kind mostly share their shape (every send of a dissemination, of a
  // tree): one compare instead of the hash and probe, which were a third of reading a GOAL text.
  std::uint32_t &last = last_shape_[static_cast<std::size_t>(shape.kind) & 3U];
  if (last < shapes.size() && shapes[last] == shape) {
    return last;
  }
  last = lookup_shape(shape);
  return last;
}

inline std::uint32_t GoalScheduleBuilder::add_op(OpKind kind, std::uint64_t size,
                                                 std::uint32_t peer, std::uint32_t tag,
                                                 std::uint8_t cpu, std::uint8_t nic) {
  if (!in_rank_) [[unlikely]] {
    op_outside_rank_error();
  }
  if (schedule_.ops_.size() >= kMaxOpCount) [[unlikely]] {
    too_many_ops_error();
  }
  OpShape shape;
  shape.kind = kind;
  shape.size = size;
  shape.tag = tag;
  shape.cpu = cpu;
  shape.nic = nic;
  OpRecord op;
  op.peer = peer;
  op.shape = shape_index(shape);
  max_cpu_ = std::max(max_cpu_, cpu);
  max_nic_ = std::max(max_nic_, nic);
  schedule_.ops_.push_back(op);
  return static_cast<std::uint32_t>(schedule_.ops_.size() - schedule_.rank_begin_.back()) - 1U;
}

inline std::uint32_t GoalScheduleBuilder::add_send(std::uint64_t size, std::uint32_t dest,
                                                   std::uint32_t tag, std::uint8_t cpu,
                                                   std::uint8_t nic) {
  if (dest >= declared_ranks_) [[unlikely]] {
    peer_error(true, dest);
  }
  return add_op(OpKind::Send, size, dest, tag, cpu, nic);
}

inline std::uint32_t GoalScheduleBuilder::add_recv(std::uint64_t size, std::uint32_t src,
                                                   std::uint32_t tag, std::uint8_t cpu,
                                                   std::uint8_t nic) {
  if (src != kAnySource && src >= declared_ranks_) [[unlikely]] {
    peer_error(false, src);
  }
  return add_op(OpKind::Recv, size, src, tag, cpu, nic);
}

inline std::uint32_t GoalScheduleBuilder::add_calc(std::uint64_t duration, std::uint8_t cpu) {
  return add_op(OpKind::Calc, duration, 0, 0, cpu, 0);
}

} // namespace parjava::loggp
