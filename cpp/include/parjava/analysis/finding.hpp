// One pattern occurrence (ARCHITECTURE §3 "Findings"): which pattern, where the time was lost
// (location, call, call site), when, how much (I_T), the optimal distance O_D where the pattern
// defines one, and the partner that caused it. Plain data, 72 bytes, so findings cost memory in
// proportion to their number and reach Python as one NumPy array without conversion.
#pragma once

#include <cstdint>

#include "parjava/analysis/pattern_catalogue.hpp"
#include "parjava/trace/trace.hpp"

namespace parjava::analysis {

inline constexpr std::int64_t kNoDistance = -1; // O_D undefined for this pattern

// Bits of Finding::flags.
enum FindingFlag : std::uint16_t {
  // Severity is an upper bound: the pattern is a suspicion (seed 001 P9/P10 "подозрение").
  kSuspected = 1U << 0,
  // O_D was computed without the transfer time T_send (no machine given, seed 000 §5.7).
  kNoTransferTime = 1U << 1,
  // A term of the literal P8 formula that is negative (seed 001 notes §3 P8, ambiguity 2).
  kNegativeTerm = 1U << 2,
  // The message was at or under the eager limit (sent eagerly).
  kEager = 1U << 3,
};

struct Finding {
  trace::Timestamp time = 0;                   // start of the lost time [ns]
  std::int64_t idle = 0;                       // I_T, the severity [ns]
  std::int64_t optimal_distance = kNoDistance; // O_D [ns] (non-blocking patterns)
  std::uint64_t bytes = 0;                     // message or collective payload, where there is one
  trace::EventIndex event = trace::kNoEvent;   // anchor event on `location` (receive, ...)
  trace::EventIndex peer_event = trace::kNoEvent; // the partner's event (send, root's end, ...)
  std::uint32_t location = trace::kNoRef;         // where the time was lost
  std::uint32_t peer_location = trace::kNoRef;    // who caused it (sender, root, lock holder)
  std::uint32_t callsite = trace::kNoRef;         // call site of the call that lost the time
  std::uint32_t region = trace::kNoRef;           // that call's region (MPI_Recv, ...)
  std::uint32_t caller = trace::kNoRef;   // region enclosing that call (for traces without sites)
  std::uint32_t instance = trace::kNoRef; // collective instance (Trace::collectives) or kNoRef
  PatternId pattern = PatternId::Count_;
  std::uint16_t flags = 0;
  std::uint32_t reserved = 0; // keeps the size a multiple of 8 (NumPy view)
};

static_assert(sizeof(Finding) == 72, "Finding is viewed from Python with a fixed layout");

} // namespace parjava::analysis
