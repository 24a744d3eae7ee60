// A GOAL schedule (LogGOPSim's input, anchor §2): per rank, a DAG of send/recv/calc operations
// joined by `requires` (start after the other completed) and `irequires` (start after the other
// started) edges. Immutable once built; the simulator keeps its own per-run state, so one
// schedule can be simulated many times with different parameters.
//
// Layout: one 32-byte GoalOp record per operation (the simulator touches every field of an op
// when it processes it, so one record per op costs one cache line where separate columns would
// cost five), dependents in one CSR array, ranks as ranges of op ids. LogGOPSim's binary form
// needs 39 bytes per op plus its runtime copies (anchor §7); this needs 32 + 4 per edge.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "parjava/loggp/huge_page_allocator.hpp"

namespace parjava::loggp {

// Operation kinds, numbered as LogGOPSim numbers them: the ready-list sort orders by this value
// (SEND < RECV < CALC, anchor §4 "Admitting ready ops").
enum class OpKind : std::uint8_t { Send = 1, Recv = 2, Calc = 3 };

inline constexpr std::uint32_t kAnySource = 0xffffffffU; // `recv ... from -1`
inline constexpr std::uint32_t kAnyTag = 0xffffffffU;    // `tag -1` (sends accept it too)

using OpId = std::uint32_t; // global operation index, ops of rank r are contiguous

struct GoalOp {
  std::uint64_t size = 0;             // bytes (send, recv) or duration (calc)
  std::uint32_t peer = 0;             // send: destination; recv: source or kAnySource; calc: 0
  std::uint32_t tag = 0;              // kAnyTag matches every tag
  std::uint32_t requires_begin = 0;   // dependents released at completion: [requires_begin,
  std::uint32_t irequires_begin = 0;  //   irequires_begin); at start: [irequires_begin, next
                                      //   op's requires_begin) -- each in dependency-line order
  std::uint32_t dependency_count = 0; // incoming requires + irequires edges
  OpKind kind = OpKind::Calc;
  std::uint8_t cpu = 0;
  std::uint8_t nic = 0;
  std::uint8_t reserved = 0;
};
static_assert(sizeof(GoalOp) == 32, "GoalOp is the hot record of the simulator; keep it 32 B");

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
  [[nodiscard]] std::uint64_t num_edges() const noexcept { return dependents_.size(); }
  [[nodiscard]] std::uint64_t count(OpKind kind) const noexcept;

  [[nodiscard]] const GoalOp &op(OpId id) const noexcept { return ops_[id]; }
  // First op of rank r; ops of rank r are [rank_begin(r), rank_begin(r+1)).
  [[nodiscard]] OpId rank_begin(std::uint32_t rank) const noexcept { return rank_begin_[rank]; }
  [[nodiscard]] std::uint32_t rank_of(OpId id) const noexcept; // binary search, for reports
  [[nodiscard]] std::span<const OpId> requires_dependents(OpId id) const noexcept {
    return {dependents_.data() + ops_[id].requires_begin,
            dependents_.data() + ops_[id].irequires_begin};
  }
  [[nodiscard]] std::span<const OpId> irequires_dependents(OpId id) const noexcept {
    return {dependents_.data() + ops_[id].irequires_begin,
            dependents_.data() + ops_[id + 1].requires_begin};
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
  // a sentinel whose requires_begin ends the dependents of the last real op.
  [[nodiscard]] std::span<const GoalOp> ops() const noexcept { return ops_; }
  [[nodiscard]] std::span<const OpId> rank_begins() const noexcept { return rank_begin_; }
  [[nodiscard]] std::span<const OpId> dependents() const noexcept { return dependents_; }

private:
  friend class GoalScheduleBuilder;
  friend GoalSchedule read_goal_binary(const std::string &path);
  // The simulator's random accesses go to these: huge pages (huge_page_allocator.hpp).
  std::vector<GoalOp, HugePageAllocator<GoalOp>> ops_;
  std::vector<OpId, HugePageAllocator<OpId>> rank_begin_;
  std::vector<OpId, HugePageAllocator<OpId>> dependents_;
  std::vector<std::uint64_t> rank_block_offsets_;
  std::string source_;
  unsigned num_cpus_ = 1;
  unsigned num_nics_ = 1;
};

// Builds a schedule rank by rank, in rank order, with dependencies given by the op's index
// within its rank (its *offset*, anchor §2). Throws parjava::Error(Usage) on misuse (ranks out
// of order, unknown op index, peer out of range, more than 2^32-2 ops or edges).
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
  std::uint32_t add_op(OpKind kind, std::uint64_t size, std::uint32_t peer, std::uint32_t tag,
                       std::uint8_t cpu, std::uint8_t nic);
  void add_edge(std::uint32_t dependent, std::uint32_t prerequisite, bool start);

  GoalSchedule schedule_;
  std::uint32_t declared_ranks_;
  std::uint32_t current_rank_ = 0;
  bool in_rank_ = false;
  std::uint8_t max_cpu_ = 0;
  std::uint8_t max_nic_ = 0;
  std::vector<Edge> rank_edges_; // edges of the current rank, in declaration order
  std::vector<std::uint32_t> edge_counts_;
};

} // namespace parjava::loggp
