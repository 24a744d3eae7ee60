// From a matched trace to the sequences the engine replays (replay.hpp lists the rules).
//
// One pass per process over its main location turns time outside MPI calls into Compute steps
// (charged to the innermost user region or interval open there), user regions and intervals
// into Enter/Leave steps, and each outermost MPI call, from the events inside it, into one or
// more Call steps. A request is posted in a group that its completing call waits for: a small
// pre-pass per location finds, for every completion event, the call that holds it.
//
// This file: the program (processes, communicators), the balance what-if and the notes; the
// survey (sequence_survey.cpp) and the walk (sequence_walk.cpp) have files of their own.
#include <algorithm>
#include <limits>

#include "sequence_builder.hpp"

#include "parjava/error.hpp"
#include "sequence_builder_class.hpp"

namespace parjava::analysis {

SequenceProgram SequenceBuilder::build() {
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

// The step columns sized once: growing them by doubling copied and page-faulted each one
// about twice over. An MPI call gives a computation and one step per message or collective
// in it, a user region's Enter or Leave a computation and itself, so two steps per event
// are enough but for regions left open at a location's end (then a column grows once).
// Pages of the reserve that are never written are never touched.
void SequenceBuilder::reserve_steps() {
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
void SequenceBuilder::find_processes() {
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
void SequenceBuilder::map_communicators() {
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

std::vector<std::uint8_t> SequenceBuilder::runtime_regions() const {
  std::vector<std::uint8_t> out(t_.regions.size(), 0);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto &r = t_.regions[i];
    out[i] = static_cast<std::uint8_t>(r.function != Function::None ||
                                       r.paradigm == trace::Paradigm::Mpi ||
                                       r.paradigm == trace::Paradigm::Shmem);
  }
  return out;
}

// ---- what-ifs -------------------------------------------------------------------------------
// Per phase, every rank's computation is scaled to the mean over the ranks.
void SequenceBuilder::balance() {
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

void SequenceBuilder::write_notes() {
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
