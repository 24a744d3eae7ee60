// The tracer's own cost per wrapped call, measured at start-up on this machine: the same
// instructions a wrapper adds around the runtime call (group check, thread state, two clock
// reads, in-flight bookkeeping, one 40-byte record), timed against the bare call. Recorded in
// the archive (PARJAVA::TRACER_OVERHEAD_NS) so analyses can discount it.
#pragma once

#include <cstdint>

namespace parjava::tracer::runtime {

// Median added ns per call; logs "overhead <ns>".
std::uint64_t calibrate_overhead();

} // namespace parjava::tracer::runtime
