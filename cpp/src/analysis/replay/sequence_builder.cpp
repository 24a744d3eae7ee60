// From a matched trace to the sequences the engine replays (replay.hpp lists the rules).
//
// One pass per process over its main location turns time outside MPI calls into Compute steps
// (charged to the innermost user region or interval open there), user regions and intervals
// into Enter/Leave steps, and each outermost MPI call, from the events inside it, into one or
// more Call steps. A request is posted in a group that its completing call waits for: a small
// pre-pass per location finds, for every completion event, the call that holds it.
#include <algorithm>
#include <cmath>
#include <limits>
#include <otf2/OTF2_Events.h>
#include <unordered_map>

#include "sequence_builder.hpp"

#include "call_overheads.hpp"
#include "parjava/error.hpp"
#include "parjava/trace/functions.hpp"

namespace parjava::analysis {

using interp::kNoSequenceRef;
using interp::SequenceCall;
using interp::SequenceProgram;
using interp::StepKind;
using model::Operation;
using trace::EventIndex;
using trace::EventKind;
using trace::Function;
using trace::kNoEvent;
using trace::kNoRef;
using trace::Timestamp;

namespace {

constexpr std::uint32_t kDropped = 0xfffffffeU;

// The engine collective an OTF2 collective operation is replayed as; nullopt for the others.
std::optional<Operation> collective_operation(trace::CollectiveOp op) {
  switch (op) {
  case OTF2_COLLECTIVE_OP_BARRIER:
    return Operation::Barrier;
  case OTF2_COLLECTIVE_OP_BCAST:
    return Operation::Bcast;
  case OTF2_COLLECTIVE_OP_GATHER:
    return Operation::Gather;
  case OTF2_COLLECTIVE_OP_GATHERV:
    return Operation::Gatherv;
  case OTF2_COLLECTIVE_OP_SCATTER:
    return Operation::Scatter;
  case OTF2_COLLECTIVE_OP_SCATTERV:
    return Operation::Scatterv;
  case OTF2_COLLECTIVE_OP_ALLGATHER:
    return Operation::Allgather;
  case OTF2_COLLECTIVE_OP_ALLGATHERV:
    return Operation::Allgatherv;
  case OTF2_COLLECTIVE_OP_ALLTOALL:
    return Operation::Alltoall;
  case OTF2_COLLECTIVE_OP_ALLTOALLV:
  case OTF2_COLLECTIVE_OP_ALLTOALLW:
    return Operation::Alltoallv;
  case OTF2_COLLECTIVE_OP_ALLREDUCE:
    return Operation::Allreduce;
  case OTF2_COLLECTIVE_OP_REDUCE:
    return Operation::Reduce;
  case OTF2_COLLECTIVE_OP_REDUCE_SCATTER:
  case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK:
    return Operation::ReduceScatter;
  case OTF2_COLLECTIVE_OP_SCAN:
    return Operation::Scan;
  case OTF2_COLLECTIVE_OP_EXSCAN:
    return Operation::Exscan;
  default:
    return std::nullopt;
  }
}

Operation send_operation(Function f, bool nonblocking) {
  switch (trace::function_info(f).send_mode) {
  case trace::SendMode::Buffered:
    return nonblocking ? Operation::Ibsend : Operation::Bsend;
  case trace::SendMode::Synchronous:
    return nonblocking ? Operation::Issend : Operation::Ssend;
  case trace::SendMode::Ready:
    return nonblocking ? Operation::Irsend : Operation::Rsend;
  default:
    return nonblocking ? Operation::Isend : Operation::Send;
  }
}

// Calls that synchronise every rank (replayed as a barrier when every rank makes them).
bool synchronising_management(Function f) {
  return f == Function::MPI_Init || f == Function::MPI_Init_thread || f == Function::MPI_Finalize ||
         f == Function::MPI_Comm_split || f == Function::MPI_Comm_dup ||
         f == Function::MPI_Comm_create || f == Function::MPI_Cart_create;
}

// The fields packed into five words, each folded in with one multiply (the words are
// independent, so the multiplies overlap): a call step hashes its call once, and the former
// chain of nine dependent boost-style mixes was 7 % of the sequence build's instructions.
struct CallHash {
  std::size_t operator()(const SequenceCall &c) const noexcept {
    const auto word = [](std::uint32_t a, std::uint32_t b) {
      return (std::uint64_t{a} << 32U) | b;
    };
    const std::uint64_t w0 = (static_cast<std::uint64_t>(c.op) | (std::uint64_t{c.local} << 8U) |
                              (std::uint64_t{c.comm} << 16U)) ^
                             (std::uint64_t{c.function} << 40U);
    const std::uint64_t w1 =
        word(static_cast<std::uint32_t>(c.peer), static_cast<std::uint32_t>(c.source));
    const std::uint64_t w2 =
        word(static_cast<std::uint32_t>(c.tag), static_cast<std::uint32_t>(c.recv_tag));
    const std::uint64_t w3 = c.bytes ^ (c.recv_bytes * 0x9e3779b97f4a7c15ULL);
    const std::uint64_t w4 = word(static_cast<std::uint32_t>(c.root) ^ c.group, c.callsite);
    std::uint64_t h = (w0 * 0xff51afd7ed558ccdULL) ^ (w1 * 0xc4ceb9fe1a85ec53ULL) ^
                      (w2 * 0x9e3779b97f4a7c15ULL) ^ (w3 * 0xd6e8feb86659fd93ULL) ^
                      (w4 * 0xa0761d6478bd642fULL);
    h ^= h >> 29U;
    h *= 0xbf58476d1ce4e5b9ULL;
    return static_cast<std::size_t>(h ^ (h >> 32U));
  }
};

class SequenceBuilder {
public:
  SequenceBuilder(const trace::Trace &t, const ReplayOptions &o, const machine::Machine *machine,
                  std::vector<std::string> &notes)
      : t_(t), ev_(t.events), o_(o), machine_(machine), notes_(notes),
        minimum_(o.call_overhead == CallOverhead::Minimum) {}

  SequenceProgram build() {
    find_processes();
    map_communicators();
    survey();
    sp_.name = t_.metadata.path.empty() ? "trace" : t_.metadata.path;
    sp_.processes = static_cast<std::int64_t>(main_.size());
    reserve_steps();
    for (std::size_t r = 0; r < main_.size(); ++r) {
      rank_ = static_cast<std::int32_t>(r);
      process(main_[r]);
      overheads_.end_rank(rank_);
      sp_.end_rank();
    }
    if (mpi_calls_ == 0) {
      throw Error(ErrorKind::Usage, "replay: the trace '" + sp_.name +
                                        "' has no MPI call on the main thread of "
                                        "any process; only MPI traces can be replayed");
    }
    if (minimum_) {
      cost_failures_ = overheads_.apply(sp_, function_kind_, machine_, o_.interpret);
    }
    if (o_.balance) {
      balance();
    }
    write_notes();
    return std::move(sp_);
  }

private:
  // The step columns sized once: growing them by doubling copied and page-faulted each one
  // about twice over. An MPI call gives a computation and one step per message or collective
  // in it, a user region's Enter or Leave a computation and itself, so two steps per event
  // are enough but for regions left open at a location's end (then a column grows once).
  // Pages of the reserve that are never written are never touched.
  void reserve_steps() {
    std::size_t events = 0;
    for (const auto l : main_) {
      events += static_cast<std::size_t>(t_.location_end(l) - t_.location_begin(l));
    }
    const std::size_t steps = 2 * events + 4 * main_.size();
    sp_.kind.reserve(steps);
    sp_.ref.reserve(steps);
    sp_.seconds.reserve(steps);
    sp_.offsets.reserve(main_.size() + 1);
  }

  // ---- definitions ------------------------------------------------------------------------

  void find_processes() {
    std::int32_t processes = 0;
    for (const auto &loc : t_.locations) {
      processes = std::max(processes, loc.rank + 1);
    }
    if (processes == 0) {
      throw Error(ErrorKind::Usage, "replay: the trace has no MPI process (no location has a "
                                    "rank); only MPI traces can be replayed");
    }
    main_.assign(static_cast<std::size_t>(processes), kNoRef);
    for (std::uint32_t l = 0; l < t_.locations.size(); ++l) {
      const auto &loc = t_.locations[l];
      if (loc.rank < 0 || loc.type != trace::LocationType::CpuThread) {
        continue;
      }
      auto &m = main_[static_cast<std::size_t>(loc.rank)];
      if (loc.thread == 0 && m == kNoRef) {
        m = l;
      } else if (t_.location_end(l) > t_.location_begin(l)) {
        ++other_threads_;
      }
    }
    for (std::size_t r = 0; r < main_.size(); ++r) {
      if (main_[r] == kNoRef) {
        throw Error(ErrorKind::Usage, "replay: rank " + std::to_string(r) +
                                          " has no main-thread location in the trace");
      }
    }
    origin_ = std::numeric_limits<Timestamp>::max();
    for (const auto l : main_) {
      if (t_.location_end(l) > t_.location_begin(l)) {
        origin_ = std::min(origin_, ev_.time[static_cast<std::size_t>(t_.location_begin(l))]);
      }
    }
    if (origin_ == std::numeric_limits<Timestamp>::max()) {
      origin_ = 0;
    }
  }

  // World: the first communicator named MPI_COMM_WORLD, else the first holding every rank in
  // order; self communicators share slot 1; every other communicator has a slot of its own.
  void map_communicators() {
    const auto np = static_cast<std::int32_t>(main_.size());
    slot_.assign(t_.communicators.size(), kNoRef);
    std::uint32_t world = kNoRef;
    for (std::uint32_t c = 0; c < t_.communicators.size() && world == kNoRef; ++c) {
      if (t_.communicators[c].name == "MPI_COMM_WORLD") {
        world = c;
      }
    }
    for (std::uint32_t c = 0; c < t_.communicators.size() && world == kNoRef; ++c) {
      const auto &m = t_.communicators[c].members;
      bool identity = static_cast<std::int32_t>(m.size()) == np && !t_.communicators[c].self;
      for (std::int32_t i = 0; identity && i < np; ++i) {
        identity = m[static_cast<std::size_t>(i)] == i;
      }
      if (identity) {
        world = c;
      }
    }
    local_.assign(t_.communicators.size(), {});
    for (std::uint32_t c = 0; c < t_.communicators.size(); ++c) {
      const auto &comm = t_.communicators[c];
      if (c == world) {
        slot_[c] = 0;
      } else if (comm.self) {
        slot_[c] = 1;
      } else {
        bool valid = !comm.members.empty();
        for (const auto m : comm.members) {
          valid = valid && m >= 0 && m < np;
        }
        if (!valid) {
          continue; // used by nothing replayable (a communicator of other processes)
        }
        slot_[c] = static_cast<std::uint32_t>(2 + sp_.communicators.size());
        sp_.communicators.push_back(
            {comm.name.empty() ? "comm " + std::to_string(c) : comm.name, comm.members});
        auto &local = local_[c];
        local.assign(static_cast<std::size_t>(np), -1);
        for (std::size_t i = 0; i < comm.members.size(); ++i) {
          local[static_cast<std::size_t>(comm.members[i])] = static_cast<std::int32_t>(i);
        }
      }
    }
  }

  // Communicator rank of world rank `w` in trace communicator `c`, or -1.
  [[nodiscard]] std::int32_t local_rank(std::uint32_t c, std::int32_t w) const {
    if (slot_[c] == 0) {
      return w;
    }
    if (slot_[c] == 1) {
      return 0;
    }
    const auto &local = local_[c];
    return w >= 0 && static_cast<std::size_t>(w) < local.size() ? local[static_cast<std::size_t>(w)]
                                                                : -1;
  }

  // The maps below are indexed by trace region or call site (dense, looked up per call).
  std::uint32_t function_name(std::uint32_t region) {
    std::uint32_t &name = function_names_[region];
    if (name == kNoRef) {
      name = static_cast<std::uint32_t>(sp_.functions.size());
      sp_.functions.push_back(t_.regions[region].name);
      function_kind_.push_back(function_of(region));
    }
    return name;
  }

  std::uint32_t sequence_region(std::uint32_t region, std::uint64_t interval_id = 0) {
    if (region == kNoRef) {
      return kNoSequenceRef;
    }
    std::uint32_t &index = regions_[region];
    if (index == kNoRef) {
      index = static_cast<std::uint32_t>(sp_.regions.size());
      const auto &r = t_.regions[region];
      sp_.regions.push_back({r.name, r.file, r.line_begin, r.line_end,
                             r.role == trace::RegionRole::Interval, interval_id});
      sequence_region_trace_.push_back(region);
    }
    return index;
  }

  std::uint32_t sequence_callsite(std::uint32_t site) {
    if (site == kNoRef || site >= t_.callsites.size()) {
      return kNoSequenceRef;
    }
    std::uint32_t &index = callsites_[site];
    if (index == kNoRef) {
      index = static_cast<std::uint32_t>(sp_.callsites.size());
      const auto &s = t_.callsites[site];
      sp_.callsites.push_back({s.file, s.line, s.function});
    }
    return index;
  }

  // The index of `c` in sp_.calls, appended when new. An open-addressing table of indices
  // (linear probing, kept at most half full) compared against sp_.calls itself: one hash and
  // usually one comparison per call step, no node per distinct call (a call step is made for
  // most MPI events, so this is on the replay's hot path).
  std::uint32_t call(const SequenceCall &c) {
    if (2 * (sp_.calls.size() + 1) > call_slots_.size()) {
      grow_call_slots();
    }
    const std::size_t mask = call_slots_.size() - 1;
    for (std::size_t h = CallHash{}(c)&mask;; h = (h + 1) & mask) {
      const std::uint32_t k = call_slots_[h];
      if (k == kNoRef) {
        call_slots_[h] = static_cast<std::uint32_t>(sp_.calls.size());
        sp_.calls.push_back(c);
        return call_slots_[h];
      }
      if (sp_.calls[k] == c) {
        return k;
      }
    }
  }

  void grow_call_slots() {
    call_slots_.assign(std::max<std::size_t>(1024, 2 * call_slots_.size()), kNoRef);
    const std::size_t mask = call_slots_.size() - 1;
    for (std::uint32_t k = 0; k < sp_.calls.size(); ++k) {
      std::size_t h = CallHash{}(sp_.calls[k]) & mask;
      while (call_slots_[h] != kNoRef) {
        h = (h + 1) & mask;
      }
      call_slots_[h] = k;
    }
  }

  [[nodiscard]] Function function_of(std::uint32_t region) const {
    return region < t_.regions.size() ? t_.regions[region].function : Function::None;
  }
  // Asked for every Enter and Leave in three passes over the events: one byte per region,
  // not a bounds check and two fields of a Region record (with its strings) each time.
  [[nodiscard]] bool is_runtime_call(std::uint32_t region) const {
    return region < runtime_region_.size() && runtime_region_[region] != 0;
  }
  [[nodiscard]] std::vector<std::uint8_t> runtime_regions() const {
    std::vector<std::uint8_t> out(t_.regions.size(), 0);
    for (std::size_t i = 0; i < out.size(); ++i) {
      const auto &r = t_.regions[i];
      out[i] = static_cast<std::uint8_t>(r.function != Function::None ||
                                         r.paradigm == trace::Paradigm::Mpi ||
                                         r.paradigm == trace::Paradigm::Shmem);
    }
    return out;
  }

  // ---- survey: synchronising management calls, collective sizes ----------------------------

  void survey() {
    const auto np = main_.size();
    std::vector<std::vector<std::uint32_t>> counts(static_cast<std::size_t>(Function::Count_),
                                                   std::vector<std::uint32_t>(np, 0));
    for (std::size_t r = 0; r < np; ++r) {
      const auto l = main_[r];
      std::uint32_t depth = 0;
      for (EventIndex e = t_.location_begin(l); e < t_.location_end(l); ++e) {
        const auto i = static_cast<std::size_t>(e);
        const EventKind k = ev_.kind[i];
        if (k == EventKind::Enter && is_runtime_call(ev_.region[i])) {
          if (depth++ == 0) {
            const Function f = function_of(ev_.region[i]);
            if (synchronising_management(f)) {
              ++counts[static_cast<std::size_t>(f)][r];
              sync_enters_[static_cast<std::size_t>(f)].push_back(ev_.time[i]);
            }
          }
        } else if (k == EventKind::Leave && depth > 0 && is_runtime_call(ev_.region[i])) {
          --depth;
        }
      }
    }
    // A management call is a barrier when every rank made it equally often; its k-th
    // reference time is the latest entry of the k-th call over the ranks.
    for (auto &[f, enters] : sync_enters_) {
      const auto &c = counts[f];
      if (std::adjacent_find(c.begin(), c.end(), std::not_equal_to<>()) != c.end() || c[0] == 0) {
        enters.clear();
        continue;
      }
      const std::uint32_t n = c[0];
      std::vector<Timestamp> latest(n, std::numeric_limits<Timestamp>::min());
      for (std::size_t r = 0; r < np; ++r) {
        for (std::uint32_t k = 0; k < n; ++k) {
          latest[k] = std::max(latest[k], enters[r * n + k]);
        }
      }
      enters = std::move(latest);
    }
    // Collective payloads, per instance, in the sense of the engine's operations.
    instance_bytes_.assign(t_.collectives.size(), 0);
    instance_complete_.assign(t_.collectives.size(), 0);
    for (std::size_t c = 0; c < t_.collectives.size(); ++c) {
      instance_bytes_[c] = collective_bytes(t_.collectives[c]);
      instance_complete_[c] = t_.collectives[c].member_count == t_.collectives[c].expected &&
                              t_.collectives[c].member_count > 0;
    }
  }

  std::uint64_t collective_bytes(const trace::CollectiveInstance &inst) const {
    const auto op = collective_operation(inst.op);
    if (!op) {
      return 0;
    }
    std::uint64_t max_sent = 0, max_received = 0, sum_sent = 0, sum_received = 0;
    std::uint64_t nonroot_sent = 0, nonroot_received = 0, nonroot = 0;
    std::uint64_t nonroot_sum_sent = 0, nonroot_sum_received = 0;
    for (std::uint32_t m = 0; m < inst.member_count; ++m) {
      const auto e = static_cast<std::size_t>(t_.collective_members[inst.first_member + m]);
      const std::uint64_t sent = ev_.bytes[e];
      const std::uint64_t received = ev_.aux[e];
      max_sent = std::max(max_sent, sent);
      max_received = std::max(max_received, received);
      sum_sent += sent;
      sum_received += received;
      const auto rank = t_.locations[ev_.location[e]].rank;
      if (rank != inst.root) {
        ++nonroot;
        nonroot_sent = std::max(nonroot_sent, sent);
        nonroot_received = std::max(nonroot_received, received);
        nonroot_sum_sent += sent;
        nonroot_sum_received += received;
      }
    }
    const std::uint64_t n = std::max<std::uint64_t>(1, inst.member_count);
    const auto mean = [](std::uint64_t sum, std::uint64_t count) {
      return count == 0 ? std::uint64_t{0} : (sum + count / 2) / count;
    };
    switch (*op) {
    case Operation::Barrier:
      return 0;
    case Operation::Bcast:
      return nonroot > 0 ? nonroot_received : max_sent;
    case Operation::Reduce:
      return nonroot > 0 ? nonroot_sent : max_sent;
    case Operation::Gather:
      return nonroot > 0 ? nonroot_sent : max_sent;
    case Operation::Gatherv:
      return nonroot > 0 ? mean(nonroot_sum_sent, nonroot) : max_sent;
    case Operation::Scatter:
      return nonroot > 0 ? nonroot_received : max_received;
    case Operation::Scatterv:
      return nonroot > 0 ? mean(nonroot_sum_received, nonroot) : max_received;
    case Operation::Allgather:
      return max_sent;
    case Operation::Allgatherv:
      return mean(sum_sent, n);
    case Operation::Alltoall:
      return max_sent / n;
    case Operation::Alltoallv:
      return mean(sum_sent, n) / n;
    case Operation::ReduceScatter:
      return mean(sum_received, n);
    default: // Allreduce, Scan, Exscan
      return max_sent;
    }
  }

  // ---- per location: which call completes each request ------------------------------------

  void index_completions(std::uint32_t l) {
    const EventIndex begin = t_.location_begin(l);
    completing_call_.assign(static_cast<std::size_t>(t_.location_end(l) - begin), kNoRef);
    std::uint32_t ordinal = 0;
    std::uint32_t depth = 0;
    for (EventIndex e = begin; e < t_.location_end(l); ++e) {
      const auto i = static_cast<std::size_t>(e);
      const EventKind k = ev_.kind[i];
      if (k == EventKind::Enter && is_runtime_call(ev_.region[i])) {
        if (depth++ == 0) {
          ++ordinal;
        }
      } else if (k == EventKind::Leave && depth > 0 && is_runtime_call(ev_.region[i])) {
        --depth;
      } else if ((k == EventKind::IsendComplete || k == EventKind::IrecvComplete) && depth > 0) {
        completing_call_[static_cast<std::size_t>(e - begin)] = ordinal;
      }
    }
  }

  // The group a post belongs to (allocated for the call that will complete it), or 0 for a
  // request no call completes.
  std::uint32_t group_for(std::uint32_t completing) {
    if (completing == kNoRef) {
      return 0;
    }
    const auto it = group_of_call_.find(completing);
    if (it != group_of_call_.end()) {
      return it->second;
    }
    std::uint32_t g = 0;
    if (!free_groups_.empty()) {
      g = free_groups_.back();
      free_groups_.pop_back();
    } else {
      g = ++groups_;
    }
    group_of_call_.emplace(completing, g);
    return g;
  }

  // ---- the walk -----------------------------------------------------------------------------

  void compute_until(Timestamp t) {
    if (t > cursor_) {
      const std::uint32_t region = stack_.empty() ? kNoSequenceRef : stack_.back();
      double s = static_cast<double>(t - cursor_) * 1e-9 * o_.compute_scale;
      if (!o_.rank_scale.empty() && static_cast<std::size_t>(rank_) < o_.rank_scale.size()) {
        s *= o_.rank_scale[static_cast<std::size_t>(rank_)];
      }
      if (!o_.region_scale.empty()) {
        for (const auto sr : stack_) {
          // Nested regions: the computation of an inner region is part of the outer ones.
          const auto tr = sequence_region_trace_[sr];
          if (tr < o_.region_scale.size()) {
            s *= o_.region_scale[tr];
          }
        }
      }
      sp_.add(StepKind::Compute, region, s);
      if (o_.balance) {
        step_phase_.resize(sp_.steps(), kNoRef);
        step_phase_.back() = phase_;
      }
    }
    cursor_ = std::max(cursor_, t);
  }

  void process(std::uint32_t l) {
    index_completions(l);
    group_of_call_.clear();
    free_groups_.clear();
    groups_ = 0;
    stack_.clear();
    phase_ = 0;
    std::fill(sync_seen_.begin(), sync_seen_.end(), 0);
    const EventIndex begin = t_.location_begin(l);
    const EventIndex end = t_.location_end(l);
    events_ += static_cast<std::uint64_t>(end - begin);
    cursor_ = origin_;
    if (begin == end) {
      return;
    }
    compute_until(ev_.time[static_cast<std::size_t>(begin)]);
    std::uint32_t ordinal = 0;
    for (EventIndex e = begin; e < end; ++e) {
      const auto i = static_cast<std::size_t>(e);
      const EventKind k = ev_.kind[i];
      if (k == EventKind::Enter && is_runtime_call(ev_.region[i])) {
        ++ordinal;
        e = runtime_call(e, end, ordinal);
        continue;
      }
      switch (k) {
      case EventKind::Enter:
      case EventKind::IntervalBegin:
        if (ev_.region[i] == kNoRef) {
          break;
        }
        compute_until(ev_.time[i]);
        stack_.push_back(
            sequence_region(ev_.region[i], k == EventKind::IntervalBegin ? ev_.aux[i] : 0));
        sp_.add(StepKind::Enter, stack_.back(), 0.0);
        break;
      case EventKind::Leave:
      case EventKind::IntervalEnd:
        if (!stack_.empty() && !is_runtime_call(ev_.region[i])) {
          compute_until(ev_.time[i]);
          sp_.add(StepKind::Leave, stack_.back(), 0.0);
          stack_.pop_back();
        }
        break;
      case EventKind::Send:
      case EventKind::IsendPost:
      case EventKind::Recv:
      case EventKind::IrecvPost:
      case EventKind::IsendComplete:
      case EventKind::IrecvComplete:
      case EventKind::CollectiveEnd:
        ++outside_calls_;
        break;
      default:
        break;
      }
    }
    compute_until(ev_.time[static_cast<std::size_t>(end - 1)]);
    while (!stack_.empty()) {
      sp_.add(StepKind::Leave, stack_.back(), 0.0);
      stack_.pop_back();
    }
  }

  // One outermost runtime call opened at `enter`; returns the index of its Leave (or of the
  // last event when it never returned).
  EventIndex runtime_call(EventIndex enter, EventIndex end, std::uint32_t ordinal) {
    const auto ie = static_cast<std::size_t>(enter);
    const std::uint32_t region = ev_.region[ie];
    const Function f = function_of(region);
    const Timestamp start = ev_.time[ie];
    const EventIndex leave = ev_.match[ie];
    const std::size_t before = sp_.steps();
    compute_until(start);
    const std::uint32_t trace_site = ev_.callsite[ie];
    if (sp_.steps() > before && trace_site < o_.callsite_scale.size()) {
      sp_.seconds.back() *= o_.callsite_scale[trace_site]; // the computation ending here
    }
    ++mpi_calls_;
    if (leave == kNoEvent) {
      ++unclosed_calls_;
      return end - 1; // the process died inside the call: nothing after it is replayed
    }
    const Timestamp finish = ev_.time[static_cast<std::size_t>(leave)];
    const double duration = static_cast<double>(finish - start) * 1e-9;
    const std::uint32_t site = sequence_callsite(ev_.callsite[ie]);
    const std::uint32_t name = function_name(region);
    actions_.clear();
    bool completes = false;
    for (EventIndex e = enter + 1; e < leave; ++e) {
      const auto i = static_cast<std::size_t>(e);
      switch (ev_.kind[i]) {
      case EventKind::Send:
      case EventKind::IsendPost:
      case EventKind::Recv:
      case EventKind::IrecvPost:
      case EventKind::CollectiveEnd:
        actions_.push_back(e);
        break;
      case EventKind::IsendComplete:
      case EventKind::IrecvComplete:
        completes = true;
        break;
      default:
        break;
      }
    }
    const std::size_t first_step = sp_.steps();
    if (t_.regions[region].paradigm == trace::Paradigm::Shmem) {
      ++shmem_calls_;
    } else if (synchronising_management(f) && !sync_enters_[static_cast<std::size_t>(f)].empty()) {
      // A barrier over MPI_COMM_WORLD and what this rank spent after the last one arrived.
      // For MPI_Finalize that time follows the barrier, as local time outside the phases (so
      // neither balance nor scaling changes it): as the Call's own seconds, which come before
      // the call, it would hold every rank in the barrier until the slowest one's had passed,
      // and its messages would leave that late. MPI_Init keeps it inside the call, before the
      // barrier, so the replay's MPI_Init still ends where the run's main part begins.
      auto &k = sync_seen_[static_cast<std::size_t>(f)];
      const Timestamp latest = sync_enters_[static_cast<std::size_t>(f)][k++];
      const double after =
          std::max(0.0, static_cast<double>(finish - std::max(latest, start)) * 1e-9);
      SequenceCall c;
      c.op = Operation::Barrier;
      c.function = name;
      c.callsite = site;
      const bool trailing = f == Function::MPI_Finalize;
      sp_.add(StepKind::Call, call(c), trailing ? 0.0 : after);
      local_duration(f, duration);
      if (trailing && after > 0.0) {
        sp_.add(StepKind::Compute, stack_.empty() ? kNoSequenceRef : stack_.back(), after);
      }
    } else {
      if (completes) {
        completion(enter, leave, ordinal, name, site);
      }
      for (const EventIndex a : actions_) {
        action(a, f, name, site);
      }
      flush_pending_send();
      if (sp_.steps() > first_step && minimum_ && f != Function::None) {
        overheads_.communicating(first_step, sp_.ref[first_step], sp_.calls.size(), duration);
      }
    }
    if (sp_.steps() == first_step) {
      local_duration(f, duration);
      // Nothing to communicate: the call's own measured time.
      SequenceCall c;
      c.local = true;
      c.function = name;
      c.callsite = site;
      sp_.add(StepKind::Call, call(c), duration);
    }
    if (is_world_collective(f, actions_)) {
      ++phase_;
    }
    cursor_ = finish;
    return leave;
  }

  [[nodiscard]] bool is_world_collective(Function f, const std::vector<EventIndex> &actions) const {
    if (f == Function::MPI_Init || f == Function::MPI_Init_thread || f == Function::MPI_Finalize) {
      return true;
    }
    for (const EventIndex a : actions) {
      const auto i = static_cast<std::size_t>(a);
      if (ev_.kind[i] == EventKind::CollectiveEnd && ev_.comm[i] < slot_.size() &&
          slot_[ev_.comm[i]] == 0) {
        return true;
      }
    }
    return false;
  }

  // A Wait*/Test* (or any call) holding completions: wait for the group of this call.
  void completion(EventIndex enter, EventIndex leave, std::uint32_t ordinal, std::uint32_t name,
                  std::uint32_t site) {
    const auto it = group_of_call_.find(ordinal);
    if (it == group_of_call_.end()) {
      return; // every request it completes was dropped (unmatched)
    }
    (void)enter;
    (void)leave;
    SequenceCall c;
    c.op = Operation::Waitall;
    c.function = name;
    c.callsite = site;
    c.group = it->second;
    sp_.add(StepKind::Call, call(c), 0.0);
    free_groups_.push_back(it->second);
    group_of_call_.erase(it);
  }

  void action(EventIndex a, Function f, std::uint32_t name, std::uint32_t site) {
    const auto i = static_cast<std::size_t>(a);
    const std::uint32_t comm = ev_.comm[i];
    SequenceCall c;
    c.function = name;
    c.callsite = site;
    if (comm >= slot_.size() || slot_[comm] == kNoRef) {
      ++dropped_;
      return;
    }
    c.comm = slot_[comm];
    switch (ev_.kind[i]) {
    case EventKind::Send:
    case EventKind::IsendPost: {
      const bool nonblocking = ev_.kind[i] == EventKind::IsendPost;
      if (ev_.match[i] == kNoEvent) {
        ++dropped_; // never received: nothing would take it
        return;
      }
      c.op = send_operation(f, nonblocking);
      c.peer = local_rank(comm, ev_.peer[i]);
      c.tag = ev_.tag[i];
      c.bytes = ev_.bytes[i];
      if (nonblocking) {
        const EventIndex done = ev_.link[i];
        const bool completed = done != kNoEvent &&
                               ev_.kind[static_cast<std::size_t>(done)] == EventKind::IsendComplete;
        c.group = completed ? group_for(completing_call_[static_cast<std::size_t>(
                                  done - t_.location_begin(ev_.location[i]))])
                            : 0;
      }
      if (c.peer < 0) {
        ++dropped_;
        return;
      }
      if (f == Function::MPI_Sendrecv || f == Function::MPI_Sendrecv_replace) {
        pending_send_ = c;
        has_pending_send_ = true;
        return;
      }
      break;
    }
    case EventKind::Recv:
    case EventKind::IrecvPost: {
      const bool nonblocking = ev_.kind[i] == EventKind::IrecvPost;
      const EventIndex receive = nonblocking ? ev_.link[i] : a;
      if (receive == kNoEvent ||
          (nonblocking &&
           ev_.kind[static_cast<std::size_t>(receive)] != EventKind::IrecvComplete) ||
          ev_.match[static_cast<std::size_t>(receive)] == kNoEvent) {
        ++dropped_; // never completed, or no send to match: posting it could steal a message
        return;
      }
      c.op = nonblocking ? Operation::Irecv : Operation::Recv;
      c.peer = local_rank(comm, ev_.peer[i]);
      c.tag = ev_.tag[i];
      c.bytes = ev_.bytes[i];
      if (nonblocking) {
        c.group = group_for(completing_call_[static_cast<std::size_t>(
            receive - t_.location_begin(ev_.location[i]))]);
      }
      if (has_pending_send_ && !nonblocking && c.peer >= 0) {
        // MPI_Sendrecv (one communicator): its send came first in the trace.
        SequenceCall s = pending_send_;
        s.op = Operation::Sendrecv;
        s.source = c.peer;
        s.recv_tag = c.tag;
        s.recv_bytes = c.bytes;
        has_pending_send_ = false;
        sp_.add(StepKind::Call, call(s), 0.0);
        return;
      }
      break;
    }
    case EventKind::CollectiveEnd: {
      const auto inst = static_cast<std::size_t>(ev_.link[i]);
      const auto op = collective_operation(ev_.tag[i]);
      if (ev_.link[i] == kNoEvent || !op || instance_complete_[inst] == 0) {
        ++incomplete_collectives_;
        return;
      }
      if (!trace::function_info(f).blocking) {
        ++nonblocking_collectives_;
      }
      c.op = *op;
      c.bytes = instance_bytes_[inst];
      c.root = ev_.peer[i] >= 0 ? std::max(0, local_rank(comm, ev_.peer[i])) : 0;
      break;
    }
    default:
      return;
    }
    flush_pending_send();
    if (c.peer < 0 && c.op != Operation::Barrier && !model::is_collective(c.op)) {
      ++dropped_;
      return;
    }
    sp_.add(StepKind::Call, call(c), 0.0);
  }

  void flush_pending_send() {
    if (has_pending_send_) {
      has_pending_send_ = false;
      sp_.add(StepKind::Call, call(pending_send_), 0.0);
    }
  }

  // A call replayed as local time bounds its function's overhead (call_overheads.hpp).
  void local_duration(Function f, double duration) {
    if (minimum_ && f != Function::None) {
      overheads_.local(f, duration);
    }
  }

  // ---- what-ifs -------------------------------------------------------------------------------

  // Per phase, every rank's computation is scaled to the mean over the ranks.
  void balance() {
    step_phase_.resize(sp_.steps(), kNoRef);
    std::uint32_t phases = 0;
    for (const auto p : step_phase_) {
      if (p != kNoRef) {
        phases = std::max(phases, p + 1);
      }
    }
    const auto np = main_.size();
    std::vector<double> total(np * phases, 0.0);
    for (std::size_t r = 0; r < np; ++r) {
      for (auto s = sp_.offsets[r]; s < sp_.offsets[r + 1]; ++s) {
        const auto p = step_phase_[static_cast<std::size_t>(s)];
        if (p != kNoRef && sp_.kind[static_cast<std::size_t>(s)] == StepKind::Compute) {
          total[r * phases + p] += sp_.seconds[static_cast<std::size_t>(s)];
        }
      }
    }
    std::vector<double> factor(np * phases, 1.0);
    for (std::uint32_t p = 0; p < phases; ++p) {
      double sum = 0.0;
      for (std::size_t r = 0; r < np; ++r) {
        sum += total[r * phases + p];
      }
      const double mean = sum / static_cast<double>(np);
      for (std::size_t r = 0; r < np; ++r) {
        const double t = total[r * phases + p];
        if (t > 0.0) {
          factor[r * phases + p] = mean / t;
        } else if (mean > 0.0) {
          ++unbalanceable_;
        }
      }
    }
    for (std::size_t r = 0; r < np; ++r) {
      for (auto s = sp_.offsets[r]; s < sp_.offsets[r + 1]; ++s) {
        const auto p = step_phase_[static_cast<std::size_t>(s)];
        if (p != kNoRef && sp_.kind[static_cast<std::size_t>(s)] == StepKind::Compute) {
          sp_.seconds[static_cast<std::size_t>(s)] *= factor[r * phases + p];
        }
      }
    }
    balance_phases_ = phases;
  }

  void write_notes() {
    const auto note = [&](std::uint64_t n, const std::string &text) {
      if (n != 0) {
        notes_.push_back(std::to_string(n) + " " + text);
      }
    };
    note(other_threads_, "location(s) of threads other than the main thread were not replayed "
                         "(only each process's main thread is)");
    note(dropped_, "message event(s) without a partner in the trace (unmatched, cancelled or "
                   "never completed) were not replayed");
    note(incomplete_collectives_, "collective call(s) whose instance is incomplete in the trace "
                                  "kept their measured duration");
    note(nonblocking_collectives_, "non-blocking collective call(s) were replayed as blocking "
                                   "collectives where they were called");
    note(shmem_calls_, "OpenSHMEM call(s) kept their measured duration (no SHMEM replay)");
    note(unclosed_calls_, "call(s) never returned (the process ended inside them); the "
                          "replay of that process stops there");
    note(outside_calls_, "message or collective event(s) outside any MPI call were ignored");
    note(unbalanceable_, "(rank, phase) pair(s) without computation could not be balanced");
    note(cost_failures_, "distinct call(s) could not be run alone for their network time; "
                         "their recorded minimum counts whole in the call overhead");
    if (o_.balance) {
      notes_.push_back("balance: computation set to the mean over the ranks in each of " +
                       std::to_string(balance_phases_) +
                       " phase(s) delimited by collectives over all ranks");
    }
  }

  const trace::Trace &t_;
  const trace::EventColumns &ev_;
  const ReplayOptions &o_;
  const machine::Machine *machine_; // call overheads: network times (nullptr: none)
  std::vector<std::string> &notes_;
  bool minimum_;
  SequenceProgram sp_;

  std::vector<std::uint8_t> runtime_region_ = runtime_regions(); // per trace region
  std::vector<std::uint32_t> main_;                              // per rank: its main location
  Timestamp origin_ = 0;
  std::vector<std::uint32_t> slot_;              // per trace communicator: engine slot
  std::vector<std::vector<std::int32_t>> local_; // per trace communicator: world -> local
  std::vector<std::uint32_t> function_names_ =   // per trace region: index into sp_.functions
      std::vector<std::uint32_t>(t_.regions.size(), kNoRef);
  std::vector<std::uint32_t> regions_ = // per trace region: index into sp_.regions
      std::vector<std::uint32_t>(t_.regions.size(), kNoRef);
  std::vector<std::uint32_t> sequence_region_trace_;
  std::vector<std::uint32_t> callsites_ = // per trace call site: index into sp_.callsites
      std::vector<std::uint32_t>(t_.callsites.size(), kNoRef);
  std::vector<std::uint32_t> call_slots_; // call(): open-addressing table into sp_.calls
  std::vector<Function> function_kind_;   // per sp_.functions entry
  CallOverheads overheads_;               // call_overhead="minimum"
  std::uint64_t cost_failures_ = 0;
  std::unordered_map<std::size_t, std::vector<Timestamp>> sync_enters_;
  std::vector<std::uint32_t> sync_seen_ =
      std::vector<std::uint32_t>(static_cast<std::size_t>(Function::Count_), 0);
  std::vector<std::uint64_t> instance_bytes_;
  std::vector<std::uint8_t> instance_complete_;

  // the process being walked
  std::int32_t rank_ = 0;
  Timestamp cursor_ = 0;
  std::vector<std::uint32_t> stack_;
  std::vector<std::uint32_t> completing_call_;
  std::unordered_map<std::uint32_t, std::uint32_t> group_of_call_;
  std::vector<std::uint32_t> free_groups_;
  std::uint32_t groups_ = 0;
  std::vector<EventIndex> actions_;
  SequenceCall pending_send_;
  bool has_pending_send_ = false;
  std::uint32_t phase_ = 0;
  std::vector<std::uint32_t> step_phase_;
  std::uint32_t balance_phases_ = 0;

  std::uint64_t events_ = 0, mpi_calls_ = 0, other_threads_ = 0, dropped_ = 0;
  std::uint64_t incomplete_collectives_ = 0, nonblocking_collectives_ = 0, shmem_calls_ = 0;
  std::uint64_t unclosed_calls_ = 0, outside_calls_ = 0, unbalanceable_ = 0;

public:
  [[nodiscard]] std::uint64_t events() const { return events_; }
  [[nodiscard]] Timestamp origin() const { return origin_; }
  [[nodiscard]] const std::vector<std::uint32_t> &main_locations() const { return main_; }
};

} // namespace

BuiltSequences build_sequences(const trace::Trace &trace, const ReplayOptions &options,
                               const machine::Machine *machine, std::vector<std::string> &notes) {
  SequenceBuilder builder(trace, options, machine, notes);
  BuiltSequences out;
  out.program = builder.build();
  out.origin = builder.origin();
  out.events = builder.events();
  out.main_locations = builder.main_locations();
  return out;
}

interp::SequenceProgram sequences_from_trace(const trace::Trace &trace,
                                             const ReplayOptions &options,
                                             const machine::Machine &machine,
                                             std::vector<std::string> &notes) {
  return build_sequences(trace, options,
                         options.overhead_machine != nullptr ? options.overhead_machine : &machine,
                         notes)
      .program;
}

} // namespace parjava::analysis
