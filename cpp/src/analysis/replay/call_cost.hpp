// The network model's own time of one replayed call: the least the engine charges a rank for it,
// the call alone on the machine and every rank it talks to there long before. The replay's
// call_overhead="minimum" subtracts it from the call's shortest recorded duration, which already
// holds the transfer (benchmarks/replay_accuracy.md: a 512 KiB allreduce counted twice). The
// least, not the time with every rank arriving together: the shortest recorded call is one
// whose partners were early (a receive whose eager message was there costs the network
// nothing), so taking the latency out of it as well would leave less than the library's cost.
#pragma once

#include <cstdint>
#include <vector>

#include "parjava/interp/options.hpp"
#include "parjava/interp/sequence_program.hpp"
#include "parjava/machine/machine.hpp"

namespace parjava::analysis {

struct CallOnRank {
  std::uint32_t call = 0; // index into SequenceProgram::calls
  std::int32_t rank = 0;  // world rank making it
};

struct CallCosts {
  std::vector<double> seconds; // per CallOnRank, in the order given
  std::uint64_t failed = 0;    // calls whose time could not be computed (kept at 0)
};

// The least time, on `machine`, of each call in `calls` as made by its rank in `program` (its
// communicators, processes and function names). Each distinct (call, rank) is run by the engine
// (interpret_sequences) in a program of its own, the rank starting long after the others: a
// collective by every member of its communicator, a blocking send, receive or Sendrecv with its
// partners doing the matching receive or send. Non-blocking posts, completions (their transfer
// overlaps whatever ran meanwhile) and local calls cost 0 here. A call the engine cannot run alone
// (it deadlocks or is inconsistent) costs 0 and is counted in `failed`.
CallCosts uncontended_call_seconds(const interp::SequenceProgram &program,
                                   const std::vector<CallOnRank> &calls,
                                   const machine::Machine &machine,
                                   const interp::InterpretOptions &options);

} // namespace parjava::analysis
