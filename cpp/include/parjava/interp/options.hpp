// What an interpretation is asked to do: process and thread counts, parameter values, how
// opaque conditions are resolved, collective algorithm overrides, tracing.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "parjava/model/bytecode.hpp"

namespace parjava::interp {

// How opaque conditions (profiled branch probabilities and trip counts) become decisions
// (docs/model-schema.md "Opaque conditions").
enum class OpaqueMode : std::uint8_t {
  Expected, // error diffusion: exact long-run frequencies, identical on every process
  Sampled,  // seeded splitmix64 per logical thread: processes diverge, reproducibly
};

// What the engine reports to a progress callback (InterpretOptions::progress).
struct ProgressInfo {
  std::uint64_t events = 0; // events taken from the queue so far
  double model_time = 0.0;  // seconds: model time of the event being processed
  double wall_seconds = 0.0;
};

inline constexpr std::uint32_t kDefaultMaxDepth = 10000;

struct InterpretOptions {
  std::int64_t processes = 1; // logical processes (MPI ranks / PGAS threads)
  std::int64_t threads = 1;   // logical threads per process (the pool of task groups)
  std::map<std::string, model::Value> params; // overrides of the model's parameters
  OpaqueMode opaque = OpaqueMode::Expected;
  std::uint64_t seed = 1; // OpaqueMode::Sampled
  // Collective algorithm overrides: collective name ("allreduce", "bcast", ...) -> algorithm
  // name ("recursive_doubling", ...). A leaf's own `algorithm` argument wins over these.
  std::map<std::string, std::string> algorithms;
  // Time to apply a reduction operator per byte received in reductions (MPI_Reduce, Allreduce,
  // Reduce_scatter, Scan): not part of any network model, 0 by default.
  double reduction_seconds_per_byte = 0.0;
  // Hockney and measured-table networks: serialise messages on each process's injection and
  // ejection link (the occupancy T(n) - T(0) of one message blocks the next). Off gives the
  // textbook contention-free model (every message T(n) on its own). LogGP has its own gaps.
  bool endpoint_contention = true;
  bool record_trace = false; // build a model trace (Prediction::trace)
  // Replays on delay networks: a collective whose messages are all eager runs without request
  // and message records (docs/interpreter.md, "Direct collectives"). Off sends them through
  // the ordinary message path, with bit-identical results; for comparisons.
  bool direct_collectives = true;
  // Stop with a Usage error after this many events (0: no limit), a guard for runaway models.
  std::uint64_t max_events = 0;
  // Recursion (docs/interpreter.md "Calls and recursion"): the deepest call chain a logical
  // thread may build (a Model error naming the chain beyond it), and whether a recursion whose
  // depth only opaque (profiled) conditions decide may run (bounded by max_depth) instead of
  // being refused before the run.
  std::uint32_t max_depth = kDefaultMaxDepth;
  bool allow_opaque_recursion = false;
  // Called from the event loop at most every progress_interval seconds of wall time (the clock
  // is read once per 65,536 events). May throw to stop the interpretation (e.g. on Ctrl-C).
  std::function<void(const ProgressInfo &)> progress;
  double progress_interval = 0.2;
  // Entry point: a function name (default: the model's entry) or, for partial interpretation,
  // a node id (interpret_node).
  std::string entry;
};

} // namespace parjava::interp
