// The LogGP discrete-event engine for GOAL schedules. It reproduces LogGOPSim's results exactly
// (host end times to the nanosecond and its event count; anchor §4) while avoiding its three
// costs (anchor §7):
//   * a blocked operation is not popped and re-queued every time its CPU/NIC frees: blocked
//     operations wait in per-resource groups that move as a whole (the order of the original
//     retries is preserved, so results are identical);
//   * receive and unexpected queues are indexed by (source, tag) once they grow long, instead of
//     being scanned linearly;
//   * per-op runtime state is 5 bytes, the schedule 32 bytes per op plus 4 per edge.
// It also reports what LogGOPSim silently drops: operations that never ran and messages left
// in the queues (a deadlock of the schedule, or of LogGOPSim's ready order, see ready_order.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "parjava/loggp/goal_schedule.hpp"
#include "parjava/loggp/loggp_rules.hpp"
#include "parjava/loggp/ready_order.hpp"

namespace parjava::loggp {

struct SimulationOptions {
  LogGPParameters parameters;
  ReadyOrder order = ReadyOrder::Stable;
  // Called about every million processed queue entries with the number processed so far;
  // returning false stops the simulation (parjava::Error(Usage, "interrupted")).
  std::function<bool(std::uint64_t)> progress;
};

// Why an operation did not complete.
enum class UnfinishedReason : std::uint8_t {
  NeverReady,           // some requires/irequires predecessor never completed/started
  ReceiveNotMatched,    // a posted recv no message matched (left in the receive queue)
  MessageNotReceived,   // a sent message no recv matched (left in the unexpected queue)
  RendezvousNotMatched, // a rendezvous send whose message reached the receiver but never matched
};

struct UnfinishedOp {
  OpId op = 0;
  std::uint32_t rank = 0;
  UnfinishedReason reason = UnfinishedReason::NeverReady;
  std::uint32_t waiting_for = 0; // NeverReady: dependencies not yet satisfied
};

struct SimulationResult {
  std::vector<SimTime> end_times;   // per host: the latest CPU free time (LogGOPSim's "Host i")
  SimTime max_end_time = 0;         // maximum of end_times
  std::uint32_t max_host = 0;       // lowest host with the maximum
  std::uint64_t events = 0;         // LogGOPSim's event count: ops made ready + messages sent
  std::uint64_t queue_pops = 0;     // entries this engine took from its queue
  std::uint64_t blocked_checks = 0; // re-checks of blocked ops LogGOPSim would pop one by one
  std::uint64_t ops_completed = 0;
  double seconds = 0.0;           // wall-clock time of the event loop
  double cpu_seconds = 0.0;       // CPU time of the event loop (its thread only)
  std::uint64_t engine_bytes = 0; // peak bytes of the engine's own state (besides the schedule)
  bool complete = true;           // every op completed and both match queues are empty
  std::uint64_t unfinished_count = 0;
  std::vector<UnfinishedOp> unfinished;    // the first kMaxReported, in op order
  std::uint64_t receive_queue_left = 0;    // recvs left in receive queues
  std::uint64_t unexpected_queue_left = 0; // messages left in unexpected queues

  static constexpr std::size_t kMaxReported = 64;
};

// Simulate `schedule` under LogGP. Throws parjava::Error(Usage) for a schedule with more CPUs
// or NICs than supported or when `progress` asks to stop.
[[nodiscard]] SimulationResult simulate(const GoalSchedule &schedule,
                                        const SimulationOptions &options);

// A one-paragraph human description of an incomplete run (which ops of which ranks are stuck
// and why), for error messages. `positions` may hold file:line of the reported ops.
[[nodiscard]] std::string describe_unfinished(const GoalSchedule &schedule,
                                              const SimulationResult &result);

} // namespace parjava::loggp
