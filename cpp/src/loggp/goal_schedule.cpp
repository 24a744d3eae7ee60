#include "parjava/loggp/goal_schedule.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "parjava/error.hpp"

namespace parjava::loggp {

namespace {

// Op ids, edge offsets and shape indices are 32-bit; the last value is kept free for "none".
constexpr std::uint64_t kMaxOps = std::numeric_limits<std::uint32_t>::max() - 1U;

[[noreturn]] void usage(const std::string &message) { throw Error(ErrorKind::Usage, message); }

// The messages of add_op's checks, out of line: building them inline made every add_op save
// and restore the registers the string code needs (the GOAL reader calls it once per op).
[[noreturn]] [[gnu::cold]] [[gnu::noinline]] void op_outside_rank() {
  usage("add an operation only between begin_rank() and end_rank()");
}
[[noreturn]] [[gnu::cold]] [[gnu::noinline]] void too_many_ops() {
  usage("the schedule has more than " + std::to_string(kMaxOps) +
        " operations, the most one simulation holds");
}
[[noreturn]] [[gnu::cold]] [[gnu::noinline]] void
peer_out_of_range(bool send, std::uint32_t rank, std::uint32_t peer, std::uint32_t ranks) {
  if (send) {
    usage("rank " + std::to_string(rank) + ": send to rank " + std::to_string(peer) +
          ", but the schedule has ranks 0.." + std::to_string(ranks - 1U));
  }
  usage("rank " + std::to_string(rank) + ": recv from rank " + std::to_string(peer) +
        ", but the schedule has ranks 0.." + std::to_string(ranks - 1U) +
        " (use -1 for any source)");
}

[[noreturn]] [[gnu::cold]] [[gnu::noinline]] void
bad_edge(std::uint32_t rank, std::uint32_t dependent, std::uint32_t prerequisite, std::uint32_t n) {
  if (dependent >= n || prerequisite >= n) {
    usage("rank " + std::to_string(rank) + ": dependency between ops " + std::to_string(dependent) +
          " and " + std::to_string(prerequisite) + ", but the rank has " + std::to_string(n) +
          " ops so far");
  }
  if (dependent == prerequisite) {
    usage("rank " + std::to_string(rank) + ": op " + std::to_string(dependent) +
          " cannot depend on itself (it would never start)");
  }
  usage("the schedule has more than " + std::to_string(kMaxOps) + " dependencies");
}

} // namespace

std::uint32_t GoalSchedule::large_value(const Large &table, OpId id) noexcept {
  const auto it = std::lower_bound(table.begin(), table.end(), id,
                                   [](const auto &entry, OpId op) { return entry.first < op; });
  return it != table.end() && it->first == id ? it->second : 0U;
}

GoalOp GoalSchedule::op(OpId id) const noexcept {
  const OpRecord &r = ops_[id];
  const OpShape &s = shapes_[r.shape];
  GoalOp o;
  o.size = s.size;
  o.peer = r.peer;
  o.tag = s.tag;
  o.dependency_count = dependency_count(id);
  o.kind = s.kind;
  o.cpu = s.cpu;
  o.nic = s.nic;
  return o;
}

std::vector<OpId> GoalSchedule::requires_dependents(OpId id) const {
  std::vector<OpId> out;
  for_each_requires(id, [&out](OpId d) { out.push_back(d); });
  return out;
}

std::vector<OpId> GoalSchedule::irequires_dependents(OpId id) const {
  std::vector<OpId> out;
  for_each_irequires(id, [&out](OpId d) { out.push_back(d); });
  return out;
}

std::uint64_t GoalSchedule::count(OpKind kind) const noexcept {
  std::uint64_t n = 0;
  for (std::uint32_t i = 0; i < num_ops(); ++i) {
    n += shapes_[ops_[i].shape].kind == kind ? 1U : 0U;
  }
  return n;
}

std::uint32_t GoalSchedule::rank_of(OpId id) const noexcept {
  // rank_begin_ is non-decreasing; the rank is the last r with rank_begin_[r] <= id.
  const auto it = std::upper_bound(rank_begin_.begin(), rank_begin_.end() - 1, id);
  return static_cast<std::uint32_t>(it - rank_begin_.begin()) - 1U;
}

namespace {

// Bytes an array of the huge-page allocator holds. Above its threshold the block is a mapping
// of its own, and the capacity past size() is address space that was never touched (the GOAL
// reader reserves room for as many ops as the file could hold), so it is counted by size.
template <class T> std::uint64_t held_bytes(const std::vector<T, HugePageAllocator<T>> &v) {
  const std::uint64_t capacity = v.capacity() * sizeof(T);
  return capacity < kHugeThreshold ? capacity : v.size() * sizeof(T);
}

} // namespace

std::uint64_t GoalSchedule::memory_bytes() const noexcept {
  return held_bytes(ops_) + shapes_.capacity() * sizeof(OpShape) + held_bytes(rank_begin_) +
         held_bytes(dependents_) +
         (large_counts_.capacity() + large_splits_.capacity()) * sizeof(Large::value_type) +
         rank_block_offsets_.capacity() * sizeof(std::uint64_t) + source_.capacity();
}

std::size_t GoalScheduleBuilder::ShapeHash::operator()(const OpShape &s) const noexcept {
  // splitmix64 finaliser over the fields: shapes differ mostly in size.
  std::uint64_t x = s.size ^ (std::uint64_t{s.tag} << 29U) ^
                    (std::uint64_t{static_cast<std::uint8_t>(s.kind)} << 61U) ^
                    (std::uint64_t{s.cpu} << 40U) ^ (std::uint64_t{s.nic} << 48U);
  x ^= x >> 30U;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27U;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31U;
  return static_cast<std::size_t>(x);
}

GoalScheduleBuilder::GoalScheduleBuilder(std::uint32_t num_ranks, std::string source)
    : declared_ranks_(num_ranks) {
  if (num_ranks == 0) {
    usage("a GOAL schedule needs at least one rank (num_ranks >= 1)");
  }
  schedule_.source_ = std::move(source);
  schedule_.rank_begin_.reserve(static_cast<std::size_t>(num_ranks) + 1U);
  shape_slots_.assign(64, 0);
}

void GoalScheduleBuilder::reserve(std::uint64_t ops, std::uint64_t edges) {
  schedule_.ops_.reserve(static_cast<std::size_t>(std::min(ops, kMaxOps) + 1U));
  // Most edges of a pattern are implied; the explicit ones grow the array as they come.
  (void)edges;
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

void GoalScheduleBuilder::op_outside_rank_error() { op_outside_rank(); }
void GoalScheduleBuilder::too_many_ops_error() { too_many_ops(); }
void GoalScheduleBuilder::peer_error(bool send, std::uint32_t peer) const {
  peer_out_of_range(send, current_rank_, peer, declared_ranks_);
}

void GoalScheduleBuilder::set_rank_block_offset(std::uint64_t offset) {
  schedule_.rank_block_offsets_.push_back(offset);
}

std::uint32_t GoalScheduleBuilder::lookup_shape(const OpShape &shape) {
  std::vector<OpShape> &shapes = schedule_.shapes_;
  std::size_t mask = shape_slots_.size() - 1U;
  std::size_t slot = ShapeHash{}(shape)&mask;
  while (shape_slots_[slot] != 0) {
    if (shapes[shape_slots_[slot] - 1U] == shape) {
      return shape_slots_[slot] - 1U;
    }
    slot = (slot + 1U) & mask;
  }
  if (shapes.size() >= kMaxOps) {
    usage("the schedule has more than " + std::to_string(kMaxOps) + " distinct operations");
  }
  shapes.push_back(shape);
  const auto index = static_cast<std::uint32_t>(shapes.size() - 1U);
  shape_slots_[slot] = index + 1U;
  if (2U * shapes.size() > shape_slots_.size()) { // keep the table at most half full
    shape_slots_.assign(shape_slots_.size() * 2U, 0);
    mask = shape_slots_.size() - 1U;
    for (std::uint32_t i = 0; i < shapes.size(); ++i) {
      std::size_t s = ShapeHash{}(shapes[i]) & mask;
      while (shape_slots_[s] != 0) {
        s = (s + 1U) & mask;
      }
      shape_slots_[s] = i + 1U;
    }
  }
  return index;
}

void GoalScheduleBuilder::add_edge(std::uint32_t dependent, std::uint32_t prerequisite,
                                   bool start) {
  const std::uint32_t n = rank_size();
  if (dependent >= n || prerequisite >= n || dependent == prerequisite ||
      schedule_.num_edges_ + rank_edges_.size() >= kMaxOps) [[unlikely]] {
    bad_edge(current_rank_, dependent, prerequisite, n);
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
  // Counting sort of this rank's edges by prerequisite. Per prerequisite, requires-dependents
  // come first, then irequires-dependents, each in declaration order: LogGOPSim releases them in
  // that order and the order decides ties (anchor §2). A list's leading run of dependents that
  // follow the prerequisite closely and consecutively is implied by the record; the rest is
  // written to the CSR array.
  const OpId base = schedule_.rank_begin_.back();
  const std::uint32_t n = rank_size();
  if (rank_edges_.size() <= 1U) {
    end_rank_with_one_edge_at_most(base, n);
    return;
  }
  counts_.assign(2U * static_cast<std::size_t>(n) + 1U, 0U);
  incoming_.assign(n, 0U);
  for (const Edge &e : rank_edges_) {
    ++counts_[2ULL * e.prerequisite + (e.start ? 1U : 0U) + 1U];
    ++incoming_[e.dependent];
  }
  for (std::size_t i = 1; i < counts_.size(); ++i) {
    counts_[i] += counts_[i - 1U]; // counts_[2i + s]: start of list (i, s) in lists_
  }
  lists_.resize(rank_edges_.size());
  for (const Edge &e : rank_edges_) {
    lists_[counts_[2ULL * e.prerequisite + (e.start ? 1U : 0U)]++] = e.dependent;
  }
  // counts_[k] is now the end of list k, and so the start of list k + 1.
  std::vector<OpId, HugePageAllocator<OpId>> &deps = schedule_.dependents_;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t requires_begin = i == 0 ? 0U : counts_[2ULL * i - 1U];
    const std::uint32_t requires_end = counts_[2ULL * i];
    const std::uint32_t irequires_end = counts_[2ULL * i + 1U];
    std::uint32_t at = 0;
    std::uint32_t run = 0;
    if (requires_begin < requires_end && lists_[requires_begin] > i &&
        lists_[requires_begin] - i <= OpRecord::kMaxRequiresAt) {
      at = lists_[requires_begin] - i;
      run = 1;
      while (requires_begin + run < requires_end && run < OpRecord::kMaxRequiresRun &&
             lists_[requires_begin + run] == lists_[requires_begin] + run) {
        ++run;
      }
    }
    std::uint32_t iat = 0;
    if (requires_end < irequires_end && lists_[requires_end] > i &&
        lists_[requires_end] - i <= OpRecord::kMaxIrequiresAt) {
      iat = lists_[requires_end] - i;
    }
    OpRecord &op = schedule_.ops_[base + i];
    op.edges = static_cast<std::uint32_t>(deps.size());
    for (std::uint32_t k = requires_begin + run; k < requires_end; ++k) {
      deps.push_back(base + lists_[k]);
    }
    const std::uint32_t split = requires_end - requires_begin - run;
    for (std::uint32_t k = requires_end + (iat != 0 ? 1U : 0U); k < irequires_end; ++k) {
      deps.push_back(base + lists_[k]);
    }
    std::uint32_t dependencies = incoming_[i];
    schedule_.max_dependencies_ = std::max(schedule_.max_dependencies_, dependencies);
    if (dependencies >= OpRecord::kManyDependencies) {
      schedule_.large_counts_.emplace_back(base + i, dependencies);
      dependencies = OpRecord::kManyDependencies;
    }
    std::uint32_t packed_split = split;
    if (split >= OpRecord::kManySplit) {
      schedule_.large_splits_.emplace_back(base + i, split);
      packed_split = OpRecord::kManySplit;
    }
    op.links = OpRecord::pack(dependencies, at, run, iat, packed_split);
  }
  schedule_.num_edges_ += rank_edges_.size();
  in_rank_ = false;
}

// What the counting sort above gives for a rank with no edge or a single one (most ranks of a
// tree or a ring: a recv and the send that requires it), without its per-rank set-up, which
// was about 280 instructions for such a rank, a seventh of reading its GOAL text (issue 18).
void GoalScheduleBuilder::end_rank_with_one_edge_at_most(OpId base, std::uint32_t n) {
  const auto edges = static_cast<std::uint32_t>(schedule_.dependents_.size());
  for (std::uint32_t i = 0; i < n; ++i) {
    OpRecord &op = schedule_.ops_[base + i];
    op.edges = edges;
    op.links = 0; // OpRecord::pack(0, 0, 0, 0, 0)
  }
  if (rank_edges_.empty()) {
    in_rank_ = false;
    return;
  }
  const Edge e = rank_edges_.front();
  OpRecord &prerequisite = schedule_.ops_[base + e.prerequisite];
  const std::uint32_t ahead = e.dependent > e.prerequisite ? e.dependent - e.prerequisite : 0U;
  std::uint32_t at = 0;
  std::uint32_t iat = 0;
  std::uint32_t split = 0;
  if (!e.start && ahead != 0 && ahead <= OpRecord::kMaxRequiresAt) {
    at = ahead;
  } else if (e.start && ahead != 0 && ahead <= OpRecord::kMaxIrequiresAt) {
    iat = ahead;
  } else {
    schedule_.dependents_.push_back(base + e.dependent);
    split = e.start ? 0U : 1U;
  }
  prerequisite.links = OpRecord::pack(0, at, at != 0 ? 1U : 0U, iat, split);
  // The ops after the prerequisite start their explicit dependents after its one entry.
  for (std::uint32_t i = e.prerequisite + 1U; i < n; ++i) {
    schedule_.ops_[base + i].edges = static_cast<std::uint32_t>(schedule_.dependents_.size());
  }
  OpRecord &dependent = schedule_.ops_[base + e.dependent];
  dependent.links |= OpRecord::pack(1, 0, 0, 0, 0);
  schedule_.max_dependencies_ = std::max(schedule_.max_dependencies_, 1U);
  schedule_.num_edges_ += 1U;
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
  OpRecord sentinel;
  sentinel.edges = static_cast<std::uint32_t>(schedule_.dependents_.size());
  schedule_.rank_begin_.push_back(static_cast<OpId>(schedule_.ops_.size()));
  schedule_.ops_.push_back(sentinel);
  schedule_.dependents_.shrink_to_fit();
  schedule_.shapes_.shrink_to_fit();
  schedule_.num_cpus_ = static_cast<unsigned>(max_cpu_) + 1U;
  schedule_.num_nics_ = static_cast<unsigned>(max_nic_) + 1U;
  GoalSchedule out = std::move(schedule_);
  schedule_ = GoalSchedule();
  shape_slots_ = {};
  last_shape_.fill(~0U);
  return out;
}

} // namespace parjava::loggp
