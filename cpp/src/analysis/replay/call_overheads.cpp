// CallOverheads: the per-function overheads from the recorded durations and the network times.
#include "call_overheads.hpp"

#include <algorithm>
#include <bit>

namespace parjava::analysis {

void CallOverheads::end_rank(std::int32_t rank) {
  for (const std::uint32_t c : touched_) {
    observed_.push_back({c, rank});
    observed_min_.push_back(call_min_[c]);
    call_min_[c] = kNever;
  }
  touched_.clear();
}

std::uint64_t CallOverheads::apply(interp::SequenceProgram &program,
                                   const std::vector<trace::Function> &function_of,
                                   const machine::Machine *machine,
                                   const interp::InterpretOptions &options) {
  std::vector<double> overhead = local_min_;
  CallCosts costs;
  if (machine != nullptr) {
    costs = uncontended_call_seconds(program, observed_, *machine, options);
  } else {
    costs.seconds.assign(observed_.size(), 0.0);
  }
  for (std::size_t i = 0; i < observed_.size(); ++i) {
    const trace::Function f = function_of[program.calls[observed_[i].call].function];
    auto &o = overhead[static_cast<std::size_t>(f)];
    o = std::min(o, std::max(0.0, observed_min_[i] - costs.seconds[i]));
  }
  // Every marked step's function has a finite overhead: its own (call, rank) was observed.
  for (std::size_t w = 0; w < steps_.size(); ++w) {
    for (std::uint64_t bits = steps_[w]; bits != 0; bits &= bits - 1) {
      const std::size_t s = (w << 6U) + static_cast<std::size_t>(std::countr_zero(bits));
      const trace::Function f = function_of[program.calls[program.ref[s]].function];
      program.seconds[s] += overhead[static_cast<std::size_t>(f)];
    }
  }
  return costs.failed;
}

} // namespace parjava::analysis
