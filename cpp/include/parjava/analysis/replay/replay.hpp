// Trace replay (issue 14 item 1; Dimemas' method): re-simulate a recorded run on a Machine.
// Each rank's computation between MPI calls is taken as measured (optionally scaled); every MPI
// call is executed again, with its recorded arguments, by the interpreter's engine
// (interpret_sequences, parjava/interp/sequence_program.hpp): eager or rendezvous by message
// size, non-blocking requests completed where the trace completed them, collectives as the
// algorithms the engine runs, on the machine's network. The result is a Prediction whose model
// trace is a Trace like any other, so scan, intervals, the critical path and the report apply.
//
// What a replay keeps from the trace and what it cannot (docs/replay.md):
//  * a receive gets the source and tag the trace recorded (wildcards are resolved as they
//    were); an Irecv is posted where it was posted and waited for where it completed;
//  * a Wait*/Test* completes the requests the trace says it completed (a Test that completed
//    them becomes a wait for them; one that completed nothing is local time);
//  * MPI_Init, MPI_Finalize and communicator creation called the same number of times by every
//    rank are a barrier over MPI_COMM_WORLD plus the time each rank spent after the last one
//    arrived (for MPI_Finalize local time after the barrier, outside scaling and balance);
//    every other call without communication keeps its measured duration;
//  * a communicating call keeps, as local time, the shortest duration its function took in
//    the trace (the library's own cost, which the network model does not hold), unless
//    call_overhead is None;
//  * v-collectives use the mean block of the instance; non-blocking collectives are replayed
//    as blocking where they were called; what cannot be paired (unmatched messages, incomplete
//    collectives) keeps its measured duration; OpenSHMEM calls keep theirs; only the main
//    thread of each process is replayed. Each of these is counted in ReplayResult::notes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "parjava/interp/options.hpp"
#include "parjava/interp/prediction.hpp"
#include "parjava/interp/sequence_program.hpp"
#include "parjava/machine/machine.hpp"
#include "parjava/trace/trace.hpp"

namespace parjava::analysis {

enum class CallOverhead : std::uint8_t {
  // Each communicating call costs, besides the network model's time, its function's overhead:
  // the least any of its calls took in the trace beyond the network model's own time for that
  // call (run alone on the overhead machine), floored at 0.
  Minimum,
  None, // only the network model's times
};

struct ReplayOptions {
  // Factors on computation (time outside MPI calls; local costs of calls are not scaled):
  // all of it, per trace region (the region the computation runs in, innermost), per trace
  // call site (the computation that ends at a call from that site), per world rank. Empty
  // vectors mean 1. Factors multiply.
  double compute_scale = 1.0;
  std::vector<double> region_scale;
  std::vector<double> callsite_scale;
  std::vector<double> rank_scale;
  // Every rank's computation in a phase set to the mean over the ranks; phases end at the
  // collectives over all ranks (the k-th such collective of every rank closes phase k).
  bool balance = false;
  CallOverhead call_overhead = CallOverhead::Minimum;
  // The machine the trace was recorded on, whose network time is taken out of the recorded
  // durations for the call overheads; nullptr: the machine of the replay. A what-if network
  // (ideal, another one) is not where the calls were measured.
  const machine::Machine *overhead_machine = nullptr;
  // record_trace, collective algorithms, endpoint contention, progress, max_events.
  interp::InterpretOptions interpret;
};

struct ReplayResult {
  interp::Prediction prediction; // end_times and program_time from the trace's start, trace
  double original_time = 0.0;    // seconds: the trace's makespan (first to last event)
  std::vector<double> original_end_times; // seconds from the trace's start, per rank
  std::vector<std::string> notes;         // what the replay approximated, counted
  std::uint64_t events = 0;               // events of the replayed locations
  std::uint64_t steps = 0;                // steps of the sequence program
  std::uint64_t calls = 0;                // distinct calls
  double build_seconds = 0.0;             // trace -> sequences
  double run_seconds = 0.0;               // the engine (with the model trace)
};

// Build the sequences of `trace` (matched), with the scaling of `options`; the call overheads
// leave out the network time of each call on `machine` (or options.overhead_machine). `notes`
// receives what was approximated. Throws Error(Usage) when the trace has no MPI process or no
// MPI call.
interp::SequenceProgram sequences_from_trace(const trace::Trace &trace,
                                             const ReplayOptions &options,
                                             const machine::Machine &machine,
                                             std::vector<std::string> &notes);

// Replay `trace` on `machine`.
ReplayResult replay(const trace::Trace &trace, const machine::Machine &machine,
                    const ReplayOptions &options);

// The machine with an ideal network: zero latency and unlimited bandwidth between any two
// ranks, messages to itself free too (the what-if behind POP's transfer efficiency): a crossbar
// without endpoint contention in place of the topology. Eager limits, placement, cores and
// power stay.
machine::Machine ideal_network(const machine::Machine &machine);

} // namespace parjava::analysis
