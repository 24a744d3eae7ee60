// The result of interpreting a model (ARCHITECTURE §4, issue "Output Prediction"): end time per
// process, program time, Time and Freq per node (notes 000 §3.2-§3.3, Remark 3.1.2 hot
// fragments), the error bound (notes 000 §4), warnings, engine statistics, and on request the
// model trace.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "parjava/error.hpp"
#include "parjava/model/node.hpp"
#include "parjava/trace/trace.hpp"

namespace parjava::interp {

// Time and Freq of one node, summed over all logical processes and threads.
struct NodeStatistics {
  model::NodeId id = model::kNoId;
  double time = 0.0;        // seconds spent in the subtree (waiting included), all executions
  std::uint64_t freq = 0;   // executions (statements: entries; loops: entries of the loop)
  double error_bound = 0.0; // accumulated 3σ/√N of the measured blocks executed in the subtree
};

struct EngineStatistics {
  std::uint64_t events = 0;          // events taken from the queue
  std::uint64_t messages = 0;        // point-to-point messages (collective ones included)
  std::uint64_t direct_messages = 0; // of those, direct collectives' (no request records)
  std::uint64_t instructions = 0;    // compiled model instructions executed
  double wall_seconds = 0.0;
  std::uint64_t peak_queue = 0;
  std::uint64_t state_bytes = 0; // memory of the per-process and per-thread state
  // Flow-level link sharing (machines with a topology other than the crossbar): messages run
  // as flows, shares recomputed `flow_recomputations` times over `flows_recomputed` flows.
  std::uint64_t flows = 0;
  std::uint64_t flow_recomputations = 0;
  std::uint64_t flows_recomputed = 0;
};

struct Prediction {
  std::int64_t processes = 0;
  std::int64_t threads = 0;
  double program_time = 0.0;     // seconds: the latest process end (max over processes)
  std::vector<double> end_times; // seconds, per process
  // Error bound of program_time (notes 000 §4): the 3σ/√N of every measured block execution on
  // the path that decides the end time (errors add along that path; a wait inherits the error
  // of whoever it waited for). Seconds.
  double error_bound = 0.0;
  // The thesis' coarser bound C_P · max Δ_bb with C_P = the number of measured block
  // executions on that path (notes 000 §4, formula (7)), for comparison.
  double error_bound_thesis = 0.0;
  std::vector<NodeStatistics> nodes; // one per model node, in model order
  std::vector<std::string> warnings; // e.g. an Rsend before its receive, machine extended
  // The network model the prediction used: the inter-node model, the topology and whether the
  // NICs were shared, in one line (docs/networks.md).
  std::string network;
  EngineStatistics engine;
  std::shared_ptr<trace::Trace> trace; // when InterpretOptions::record_trace
};

// One blocked logical thread in a deadlock.
struct BlockedOperation {
  std::int64_t rank = 0;
  std::int64_t thread = 0;
  model::NodeId node = model::kNoId;
  std::string operation;   // "MPI_Send", "MPI_Recv", "lock", ...
  std::string location;    // "file:line" of the node, or ""
  std::string waiting_for; // e.g. "receive from rank 1 (tag 0, comm world)"
  double since = 0.0;      // model time (s) the thread blocked at
};

// Every unfinished logical thread is blocked. Kind Deadlock; Python sees
// parjava.DeadlockError with the list as `.blocked`.
class DeadlockError : public Error {
public:
  DeadlockError(const std::string &message, std::vector<BlockedOperation> blocked)
      : Error(ErrorKind::Deadlock, message), blocked_(std::move(blocked)) {}
  [[nodiscard]] const std::vector<BlockedOperation> &blocked() const { return blocked_; }

private:
  std::vector<BlockedOperation> blocked_;
};

} // namespace parjava::interp
