// Parameters of the interval analysis (notes 004 §2-§4, notes 002 §2, §S.2). Each enum settles
// one point the seeds leave open (notes 004 §4.5); the default is the documented choice and the
// other value is the alternative a user can ask for. docs/intervals.md explains each choice.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace parjava::analysis {

// Where nested intervals come from. Level 0 is always the whole run (notes 004 §2.2).
struct IntervalSources {
  bool markers = true;  // parjava_interval_begin/end (IntervalBegin/IntervalEnd events)
  bool pcontrol = true; // MPI_Pcontrol phases: MeasurementOnOff(on) .. MeasurementOnOff(off)
  bool regions = true;  // Enter/Leave of user-code regions (Score-P user and compiler regions)
};

// Productive time (notes 004 §4.4, F13). The worked example's numbers count all MPI time as
// lost (mode A); the note printed beside them counts one processor's MPI time as productive
// (mode B), without saying which processor.
enum class ProductiveTime : std::uint8_t {
  UserCode,       // mode A (default): Productive = Σ_p (CPU_p − insufficient parallelism_p)
  UserCodeOneMpi, // mode B: + MPI_p* of the process p* with the least MPI time
};

// Which process carries the start skew (potential synchronisation) and the end skew (time
// variation) of collectives, and the potential synchronisation of a receive posted before
// its send (notes 004 §4.3-§4.5, F10-F11).
enum class SkewAttribution : std::uint8_t {
  // Default: the late process, i.e. own start − earliest start, own end − earliest end, and a
  // late send is charged to its sender. This is the per-processor pattern of the seed-004
  // example (the processor with the most potential synchronisation has the least
  // communication time: it arrived late and did not wait).
  LateProcess,
  // DVM (notes 004 §2.1): the processes that would wait if the operation began (ended) with a
  // barrier: latest start − own start, latest end − own end; a late send is charged to the
  // receiver.
  WaitingProcess,
};

// SendRecv time (notes 004 §4.3, F9).
enum class SendRecvTime : std::uint8_t {
  // Default: time spent inside point-to-point calls (sends, receives, waits, tests, probes),
  // so that SendRecv + collective + all-to-all = communication ≤ MPI time per process.
  CallTime,
  // F9 literally: for every received message, exit of the call that completed the receive −
  // entry of the send call (≥ 0), charged to the receiver. Can exceed the MPI time when a
  // message waits in a buffer while the receiver computes.
  MessageTime,
};

// Execution time of an interval executed several times (notes 004 §4.5, EXE_count > 1).
enum class ExecutionTimeBasis : std::uint8_t {
  // Default (DVM, notes 004 §2.2): executions accumulate into one program run,
  // Exec = max_p Σ_k T_p,k, Idle_p = Exec − Σ_k T_p,k.
  Accumulated,
  // As if every execution ended with a barrier: Exec = Σ_k max_p T_p,k (k-th execution on
  // each process aligned), Idle_p = Exec − Σ_k T_p,k.
  PerExecution,
};

// Load of a process for the load imbalance max_q L_q − L_p (notes 004 F6, notes 002 §S.2).
enum class LoadBasis : std::uint8_t {
  // Default: user-code (CPU) time, the computational load DVM balances (§S.2 uses CPU_usr +
  // CPU_sys, the work of the processor without communication and waiting).
  UserCode,
  // F6 literally: CPU + MPI time. With CPU = T − MPI this equals the idle time.
  UserCodeAndMpi,
};

struct IntervalOptions {
  IntervalSources sources;
  // Deepest level at which intervals are created (the root is level 0); -1: no limit. Deeper
  // markers and regions are folded into the deepest interval above them.
  int max_depth = -1;
  ProductiveTime productive = ProductiveTime::UserCode;
  SkewAttribution attribution = SkewAttribution::LateProcess;
  SendRecvTime sendrecv = SendRecvTime::CallTime;
  ExecutionTimeBasis execution = ExecutionTimeBasis::Accumulated;
  LoadBasis load = LoadBasis::UserCode;
  // Intervals whose name matches one of these glob patterns ('*', '?') are sequential parts
  // that every process executes redundantly: (P − 1)/P of their user-code time is insufficient
  // parallelism (notes 002 §8 formula 5, the DVM basic algorithm). Nested intervals inherit it.
  std::vector<std::string> sequential{"seq:*"};
  // Keep every execution of every interval (process, begin, end): used by the timeline and
  // by ExecutionTimeBasis::PerExecution (which turns it on).
  bool record_executions = true;
};

} // namespace parjava::analysis
