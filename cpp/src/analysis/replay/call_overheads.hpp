// The call overheads of a replay (call_overhead="minimum"; docs/replay.md, "Call overheads").
//
// A communicating call keeps, as local time before it, its function's overhead: the least that
// any of its calls took beyond the network model's own time for that call (its transfer or
// collective rounds; call_cost.hpp), floored at 0. The shortest recorded duration alone would
// hold the transfer of a call that moves much data, and the engine would add it a second time (a
// 512 KiB allreduce replayed at 283.8 + 39.2 us against 283.8 us recorded;
// benchmarks/replay_accuracy.md). Calls replayed as local time count with a network time of 0.
//
// The sequence builder reports, while it walks, every call's duration and the step that takes
// the overhead; apply() adds the overheads once the program is complete and the network times
// of its distinct calls can be run.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "call_cost.hpp"
#include "parjava/trace/functions.hpp"

namespace parjava::analysis {

class CallOverheads {
public:
  // A call replayed as local time (or as a barrier): its duration bounds its function's overhead.
  void local(trace::Function f, double seconds) {
    auto &m = local_min_[static_cast<std::size_t>(f)];
    m = std::min(m, seconds);
  }
  // A communicating call of `seconds` whose overhead goes to `step`, which makes call `call` of
  // the program (`calls` distinct calls so far). One per MPI call: no allocation but amortised
  // growth.
  void communicating(std::size_t step, std::uint32_t call, std::size_t calls, double seconds) {
    const std::size_t word = step >> 6U;
    if (word >= steps_.size()) {
      steps_.resize(std::max(word + 1, 2 * steps_.size()), 0);
    }
    steps_[word] |= std::uint64_t{1} << (step & 63U);
    if (call >= call_min_.size()) {
      call_min_.resize(calls, kNever);
    }
    double &m = call_min_[call];
    if (m == kNever) {
      touched_.push_back(call);
    }
    m = std::min(m, seconds);
  }
  // The rank whose calls were reported since the last end_rank() is `rank`.
  void end_rank(std::int32_t rank);
  // Adds each marked step's overhead to `program.seconds`; `function_of[i]` is the MPI function
  // of program.functions[i]. `machine` nullptr: no network time is left out. Returns how many
  // distinct calls could not be run alone.
  std::uint64_t apply(interp::SequenceProgram &program,
                      const std::vector<trace::Function> &function_of,
                      const machine::Machine *machine, const interp::InterpretOptions &options);

private:
  static constexpr double kNever = std::numeric_limits<double>::infinity();
  // Per Function: the shortest call replayed as local time.
  std::vector<double> local_min_ =
      std::vector<double>(static_cast<std::size_t>(trace::Function::Count_), kNever);
  // The rank being walked: per distinct call its shortest duration, and the calls it made.
  std::vector<double> call_min_;
  std::vector<std::uint32_t> touched_;
  // Per (call, rank) made: that shortest duration.
  std::vector<CallOnRank> observed_;
  std::vector<double> observed_min_;
  std::vector<std::uint64_t> steps_; // one bit per step that takes an overhead
};

} // namespace parjava::analysis
