#include "parjava/loggp/goal_schedule.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "parjava/error.hpp"

namespace parjava::loggp {

namespace {

// Op ids and edge offsets are 32-bit; the last value is kept free for "none".
constexpr std::uint64_t kMaxOps = std::numeric_limits<std::uint32_t>::max() - 1U;

[[noreturn]] void usage(const std::string &message) { throw Error(ErrorKind::Usage, message); }

} // namespace

std::uint64_t GoalSchedule::count(OpKind kind) const noexcept {
  std::uint64_t n = 0;
  for (std::uint32_t i = 0; i < num_ops(); ++i) {
    n += ops_[i].kind == kind ? 1U : 0U;
  }
  return n;
}

std::uint32_t GoalSchedule::rank_of(OpId id) const noexcept {
  // rank_begin_ is non-decreasing; the rank is the last r with rank_begin_[r] <= id.
  const auto it = std::upper_bound(rank_begin_.begin(), rank_begin_.end() - 1, id);
  return static_cast<std::uint32_t>(it - rank_begin_.begin()) - 1U;
}

std::uint64_t GoalSchedule::memory_bytes() const noexcept {
  return ops_.capacity() * sizeof(GoalOp) + rank_begin_.capacity() * sizeof(OpId) +
         dependents_.capacity() * sizeof(OpId) +
         rank_block_offsets_.capacity() * sizeof(std::uint64_t) + source_.capacity();
}

GoalScheduleBuilder::GoalScheduleBuilder(std::uint32_t num_ranks, std::string source)
    : declared_ranks_(num_ranks) {
  if (num_ranks == 0) {
    usage("a GOAL schedule needs at least one rank (num_ranks >= 1)");
  }
  schedule_.source_ = std::move(source);
  schedule_.rank_begin_.reserve(static_cast<std::size_t>(num_ranks) + 1U);
}

void GoalScheduleBuilder::reserve(std::uint64_t ops, std::uint64_t edges) {
  schedule_.ops_.reserve(static_cast<std::size_t>(std::min(ops, kMaxOps) + 1U));
  schedule_.dependents_.reserve(static_cast<std::size_t>(std::min(edges, kMaxOps)));
}

void GoalScheduleBuilder::begin_rank(std::uint32_t rank) {
  if (in_rank_) {
    usage("begin_rank(" + std::to_string(rank) + ") while rank " + std::to_string(current_rank_) +
          " is still open: call end_rank() first");
  }
  const auto expected = static_cast<std::uint32_t>(schedule_.rank_begin_.size());
  if (rank != expected) {
    usage("ranks must be built in order 0.." + std::to_string(declared_ranks_ - 1U) +
          ": expected rank " + std::to_string(expected) + ", got rank " + std::to_string(rank));
  }
  if (rank >= declared_ranks_) {
    usage("rank " + std::to_string(rank) + " is beyond the declared " +
          std::to_string(declared_ranks_) + " ranks");
  }
  schedule_.rank_begin_.push_back(static_cast<OpId>(schedule_.ops_.size()));
  current_rank_ = rank;
  in_rank_ = true;
  rank_edges_.clear();
}

std::uint32_t GoalScheduleBuilder::rank_size() const noexcept {
  if (!in_rank_) {
    return 0;
  }
  return static_cast<std::uint32_t>(schedule_.ops_.size() - schedule_.rank_begin_.back());
}

void GoalScheduleBuilder::set_rank_block_offset(std::uint64_t offset) {
  schedule_.rank_block_offsets_.push_back(offset);
}

std::uint32_t GoalScheduleBuilder::add_op(OpKind kind, std::uint64_t size, std::uint32_t peer,
                                          std::uint32_t tag, std::uint8_t cpu, std::uint8_t nic) {
  if (!in_rank_) {
    usage("add an operation only between begin_rank() and end_rank()");
  }
  if (schedule_.ops_.size() >= kMaxOps) {
    usage("the schedule has more than " + std::to_string(kMaxOps) +
          " operations, the most one simulation holds");
  }
  GoalOp op;
  op.kind = kind;
  op.size = size;
  op.peer = peer;
  op.tag = tag;
  op.cpu = cpu;
  op.nic = nic;
  max_cpu_ = std::max(max_cpu_, cpu);
  max_nic_ = std::max(max_nic_, nic);
  schedule_.ops_.push_back(op);
  return rank_size() - 1U;
}

std::uint32_t GoalScheduleBuilder::add_send(std::uint64_t size, std::uint32_t dest,
                                            std::uint32_t tag, std::uint8_t cpu, std::uint8_t nic) {
  if (dest >= declared_ranks_) {
    usage("rank " + std::to_string(current_rank_) + ": send to rank " + std::to_string(dest) +
          ", but the schedule has ranks 0.." + std::to_string(declared_ranks_ - 1U));
  }
  return add_op(OpKind::Send, size, dest, tag, cpu, nic);
}

std::uint32_t GoalScheduleBuilder::add_recv(std::uint64_t size, std::uint32_t src,
                                            std::uint32_t tag, std::uint8_t cpu, std::uint8_t nic) {
  if (src != kAnySource && src >= declared_ranks_) {
    usage("rank " + std::to_string(current_rank_) + ": recv from rank " + std::to_string(src) +
          ", but the schedule has ranks 0.." + std::to_string(declared_ranks_ - 1U) +
          " (use -1 for any source)");
  }
  return add_op(OpKind::Recv, size, src, tag, cpu, nic);
}

std::uint32_t GoalScheduleBuilder::add_calc(std::uint64_t duration, std::uint8_t cpu) {
  return add_op(OpKind::Calc, duration, 0, 0, cpu, 0);
}

void GoalScheduleBuilder::add_edge(std::uint32_t dependent, std::uint32_t prerequisite,
                                   bool start) {
  const std::uint32_t n = rank_size();
  if (dependent >= n || prerequisite >= n) {
    usage("rank " + std::to_string(current_rank_) + ": dependency between ops " +
          std::to_string(dependent) + " and " + std::to_string(prerequisite) +
          ", but the rank has " + std::to_string(n) + " ops so far");
  }
  if (dependent == prerequisite) {
    usage("rank " + std::to_string(current_rank_) + ": op " + std::to_string(dependent) +
          " cannot depend on itself (it would never start)");
  }
  if (schedule_.dependents_.size() + rank_edges_.size() >= kMaxOps) {
    usage("the schedule has more than " + std::to_string(kMaxOps) + " dependencies");
  }
  rank_edges_.push_back(Edge{prerequisite, dependent, start});
}

void GoalScheduleBuilder::add_requires(std::uint32_t dependent, std::uint32_t prerequisite) {
  add_edge(dependent, prerequisite, false);
}

void GoalScheduleBuilder::add_irequires(std::uint32_t dependent, std::uint32_t prerequisite) {
  add_edge(dependent, prerequisite, true);
}

void GoalScheduleBuilder::end_rank() {
  if (!in_rank_) {
    usage("end_rank() without begin_rank()");
  }
  // Counting sort of this rank's edges by prerequisite into the global CSR. Per prerequisite,
  // requires-dependents come first, then irequires-dependents, each in declaration order:
  // LogGOPSim releases them in that order and the order decides ties (anchor §2).
  const OpId base = schedule_.rank_begin_.back();
  const std::uint32_t n = rank_size();
  edge_counts_.assign(2U * static_cast<std::size_t>(n), 0U);
  for (const Edge &e : rank_edges_) {
    ++edge_counts_[2ULL * e.prerequisite + (e.start ? 1U : 0U)];
    ++schedule_.ops_[base + e.dependent].dependency_count;
  }
  auto cursor = static_cast<std::uint32_t>(schedule_.dependents_.size());
  for (std::uint32_t i = 0; i < n; ++i) {
    GoalOp &op = schedule_.ops_[base + i];
    op.requires_begin = cursor;
    op.irequires_begin = cursor + edge_counts_[2ULL * i];
    const std::uint32_t total = edge_counts_[2ULL * i] + edge_counts_[2ULL * i + 1U];
    edge_counts_[2ULL * i] = op.requires_begin; // now: next free slot for each list
    edge_counts_[2ULL * i + 1U] = op.irequires_begin;
    cursor += total;
  }
  schedule_.dependents_.resize(cursor);
  for (const Edge &e : rank_edges_) {
    std::uint32_t &slot = edge_counts_[2ULL * e.prerequisite + (e.start ? 1U : 0U)];
    schedule_.dependents_[slot++] = base + e.dependent;
  }
  in_rank_ = false;
}

GoalSchedule GoalScheduleBuilder::finish() {
  if (in_rank_) {
    end_rank();
  }
  const auto built = static_cast<std::uint32_t>(schedule_.rank_begin_.size());
  if (built != declared_ranks_) {
    usage("the schedule declares " + std::to_string(declared_ranks_) + " ranks but only " +
          std::to_string(built) + " were built");
  }
  GoalOp sentinel;
  sentinel.requires_begin = static_cast<std::uint32_t>(schedule_.dependents_.size());
  sentinel.irequires_begin = sentinel.requires_begin;
  schedule_.rank_begin_.push_back(static_cast<OpId>(schedule_.ops_.size()));
  schedule_.ops_.push_back(sentinel);
  schedule_.num_cpus_ = static_cast<unsigned>(max_cpu_) + 1U;
  schedule_.num_nics_ = static_cast<unsigned>(max_nic_) + 1U;
  GoalSchedule out = std::move(schedule_);
  schedule_ = GoalSchedule();
  return out;
}

} // namespace parjava::loggp
