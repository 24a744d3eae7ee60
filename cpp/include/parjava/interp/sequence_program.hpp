// A program given as the sequence of steps each rank performs (computation, regions, MPI
// calls with their actual arguments) instead of as a model: what a trace replay builds from a
// recorded run (Dimemas' idea: the trace is the program). interpret_sequences() runs it in the
// interpreter's own engine, with the same MPI semantics as a model (eager/rendezvous by size,
// requests, collectives as algorithms, the machine's network) and the same Prediction and model
// trace as a result; nothing of the engine is duplicated.
//
// Steps are stored column-wise (one byte, four bytes and eight bytes per step); the MPI calls
// they make are deduplicated into `calls`, so a step costs 13 bytes however many arguments its
// call has.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "parjava/interp/options.hpp"
#include "parjava/interp/prediction.hpp"
#include "parjava/machine/machine.hpp"
#include "parjava/model/operation.hpp"

namespace parjava::interp {

inline constexpr std::uint32_t kNoSequenceRef = 0xffffffffU;

enum class StepKind : std::uint8_t {
  Compute, // `seconds` of computation, charged to region `ref` (kNoSequenceRef: no region)
  Enter,   // enter region `ref` (a region of the model trace: user code)
  Leave,   // leave the innermost entered region, which is `ref`
  Call,    // the call `ref` (index into SequenceProgram::calls), after `seconds` of local time
};

struct SequenceRegion {
  std::string name;
  std::string file; // empty when unknown
  std::uint32_t line = 0;
  std::uint32_t end_line = 0;
  // An interval (parjava/interval.h markers): written as IntervalBegin/End with this id.
  bool interval = false;
  std::uint64_t interval_id = 0;
};

struct SequenceCallSite {
  std::string file;
  std::uint32_t line = 0;
  std::string function; // the enclosing function, where known
};

// A communicator that exists from the start of the run (slot 2 + its index).
struct SequenceCommunicator {
  std::string name;
  std::vector<std::int32_t> members; // world ranks in communicator-rank order
};

// One distinct MPI call. Communicator slots: 0 MPI_COMM_WORLD, 1 MPI_COMM_SELF, 2 + i
// SequenceProgram::communicators[i]. Ranks (peer, source, root) are communicator ranks.
struct SequenceCall {
  // The engine operation; ignored for a local call.
  model::Operation op = model::Operation::Barrier;
  // A call without communication (MPI_Comm_rank, a Test that completed nothing, ...): only its
  // local time passes.
  bool local = false;
  std::uint32_t function = 0; // index into SequenceProgram::functions: its name in the trace
  std::uint32_t comm = 0;
  std::int32_t peer = 0;   // send: destination; receive: source; Sendrecv: destination
  std::int32_t source = 0; // Sendrecv: the source
  std::int32_t tag = 0;
  std::int32_t recv_tag = 0; // Sendrecv
  std::uint64_t bytes = 0;   // message, or collective bytes as the engine's op takes them
  std::uint64_t recv_bytes = 0;
  std::int32_t root = 0;
  // Non-blocking sends and receives belong to request group `group` (>= 1); a Waitall on the
  // group completes every pending request of it on this rank.
  std::uint32_t group = 0;
  std::uint32_t callsite = kNoSequenceRef; // index into SequenceProgram::callsites

  friend bool operator==(const SequenceCall &, const SequenceCall &) = default;
};

struct SequenceProgram {
  std::string name; // for messages ("replay of run/traces.otf2")
  std::int64_t processes = 0;
  std::vector<SequenceRegion> regions;
  std::vector<SequenceCallSite> callsites;
  std::vector<SequenceCommunicator> communicators;
  std::vector<std::string> functions; // names of MPI calls as the model trace writes them
  std::vector<SequenceCall> calls;
  // Steps of rank r: [offsets[r], offsets[r + 1]).
  std::vector<std::uint64_t> offsets{0};
  std::vector<StepKind> kind;
  std::vector<std::uint32_t> ref;
  std::vector<double> seconds;

  [[nodiscard]] std::size_t steps() const { return kind.size(); }
  // Once per step while a trace is turned into sequences: inlined into the builder.
  [[gnu::always_inline]] void add(StepKind k, std::uint32_t r, double s) {
    kind.push_back(k);
    ref.push_back(r);
    seconds.push_back(s);
  }
  // Close the steps of the current rank.
  void end_rank() { offsets.push_back(kind.size()); }
};

// Run `program` on `machine`. Computation and local times are taken as given (no `power`, no
// processor sharing: they were measured, the caller scales them). options.processes is ignored
// (program.processes counts); options.record_trace asks for the model trace, whose regions are
// program.regions, whose MPI calls are named by program.functions and whose call sites are
// program.callsites. Throws Error(Usage) for an inconsistent program (a step referring to
// nothing) and DeadlockError when the calls cannot complete.
Prediction interpret_sequences(const SequenceProgram &program, const machine::Machine &machine,
                               const InterpretOptions &options);

} // namespace parjava::interp
