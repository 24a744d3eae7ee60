// The trace -> sequences translation behind replay() and sequences_from_trace(), with what the
// replay needs besides the program: the trace's time origin and each rank's main location.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "parjava/analysis/replay/replay.hpp"

namespace parjava::analysis {

struct BuiltSequences {
  interp::SequenceProgram program;
  trace::Timestamp origin = 0;               // the earliest first event of a main location
  std::uint64_t events = 0;                  // events of the main locations
  std::vector<std::uint32_t> main_locations; // per rank
};

// `machine`: the network whose own time of each call the call overheads leave out (nullptr:
// none is left out).
BuiltSequences build_sequences(const trace::Trace &trace, const ReplayOptions &options,
                               const machine::Machine *machine, std::vector<std::string> &notes);

} // namespace parjava::analysis
