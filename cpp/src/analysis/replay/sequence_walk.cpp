// The walk over one process's main location (sequence_builder_class.hpp): time outside MPI
// calls into Compute steps, user regions and intervals into Enter/Leave steps, each outermost
// MPI call into Call steps (a pre-pass finds, for every request completion, the call that
// holds it); and the dense tables of functions, regions, call sites and distinct calls.
#include <algorithm>

#include "sequence_builder_class.hpp"

namespace parjava::analysis {

namespace {

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

} // namespace

// ---- per location: which call completes each request ------------------------------------
void SequenceBuilder::index_completions(std::uint32_t l) {
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
  // Per call ordinal its open group (0: none): a flat table, not a hash map looked up for every
  // non-blocking post and every completing call.
  group_of_call_.assign(static_cast<std::size_t>(ordinal) + 1, 0);
}

// The group a post belongs to (allocated for the call that will complete it), or 0 for a
// request no call completes.
std::uint32_t SequenceBuilder::group_for(std::uint32_t completing) {
  if (completing == kNoRef) {
    return 0;
  }
  std::uint32_t &g = group_of_call_[completing];
  if (g != 0) {
    return g;
  }
  if (!free_groups_.empty()) {
    g = free_groups_.back();
    free_groups_.pop_back();
  } else {
    g = ++groups_;
  }
  return g;
}

// ---- the walk -----------------------------------------------------------------------------
void SequenceBuilder::compute_until(Timestamp t) {
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

void SequenceBuilder::process(std::uint32_t l) {
  index_completions(l);
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
EventIndex SequenceBuilder::runtime_call(EventIndex enter, EventIndex end, std::uint32_t ordinal) {
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

bool SequenceBuilder::is_world_collective(Function f,
                                          const std::vector<EventIndex> &actions) const {
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
void SequenceBuilder::completion(EventIndex enter, EventIndex leave, std::uint32_t ordinal,
                                 std::uint32_t name, std::uint32_t site) {
  if (ordinal >= group_of_call_.size() || group_of_call_[ordinal] == 0) {
    return; // every request it completes was dropped (unmatched), or it was never counted
  }
  std::uint32_t &group = group_of_call_[ordinal];
  (void)enter;
  (void)leave;
  SequenceCall c;
  c.op = Operation::Waitall;
  c.function = name;
  c.callsite = site;
  c.group = group;
  sp_.add(StepKind::Call, call(c), 0.0);
  free_groups_.push_back(group);
  group = 0;
}

void SequenceBuilder::action(EventIndex a, Function f, std::uint32_t name, std::uint32_t site) {
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
      const bool completed =
          done != kNoEvent && ev_.kind[static_cast<std::size_t>(done)] == EventKind::IsendComplete;
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
        (nonblocking && ev_.kind[static_cast<std::size_t>(receive)] != EventKind::IrecvComplete) ||
        ev_.match[static_cast<std::size_t>(receive)] == kNoEvent) {
      ++dropped_; // never completed, or no send to match: posting it could steal a message
      return;
    }
    c.op = nonblocking ? Operation::Irecv : Operation::Recv;
    c.peer = local_rank(comm, ev_.peer[i]);
    c.tag = ev_.tag[i];
    c.bytes = ev_.bytes[i];
    if (nonblocking) {
      c.group = group_for(
          completing_call_[static_cast<std::size_t>(receive - t_.location_begin(ev_.location[i]))]);
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

void SequenceBuilder::flush_pending_send() {
  if (has_pending_send_) {
    has_pending_send_ = false;
    sp_.add(StepKind::Call, call(pending_send_), 0.0);
  }
}

// A call replayed as local time bounds its function's overhead (call_overheads.hpp).
void SequenceBuilder::local_duration(Function f, double duration) {
  if (minimum_ && f != Function::None) {
    overheads_.local(f, duration);
  }
}

// The maps below are indexed by trace region or call site (dense, looked up per call).
std::uint32_t SequenceBuilder::function_name(std::uint32_t region) {
  std::uint32_t &name = function_names_[region];
  if (name == kNoRef) {
    name = static_cast<std::uint32_t>(sp_.functions.size());
    sp_.functions.push_back(t_.regions[region].name);
    function_kind_.push_back(function_of(region));
  }
  return name;
}

std::uint32_t SequenceBuilder::sequence_region(std::uint32_t region, std::uint64_t interval_id) {
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

std::uint32_t SequenceBuilder::sequence_callsite(std::uint32_t site) {
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
std::uint32_t SequenceBuilder::call(const SequenceCall &c) {
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

void SequenceBuilder::grow_call_slots() {
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

} // namespace parjava::analysis
