// One (timer tick, CLOCK_MONOTONIC ns) anchor pair for the assembler's tick-to-ns mapping
// (clock_correction.hpp, TickConverter). Reading the two clocks is not atomic: a thread
// preempted, or interrupted, between the reads pairs a tick with a nanosecond time read
// microseconds later, and every event near that anchor is skewed by as much - enough to put a
// barrier exit before another rank's entry. So the pair is read several times, each monotonic
// read bracketed by two tick reads, and the pair with the shortest bracket is kept, its tick
// taken in the middle of the bracket. Header-only and async-signal-safe (the tracer's runtime
// logs anchors from signal handlers); tests substitute the clocks.
#pragma once

#include <cstdint>
#include <limits>

namespace parjava::tracer {

struct ClockAnchor {
  std::uint64_t tick = 0;
  std::uint64_t ns = 0;
  std::uint64_t gap = 0; // ticks between the bracketing reads (the anchor's uncertainty)
};

inline constexpr int kClockAnchorReads = 5;

template <typename ReadTicks, typename ReadNs>
ClockAnchor closest_clock_anchor(ReadTicks read_ticks, ReadNs read_ns,
                                 int reads = kClockAnchorReads) {
  ClockAnchor best{0, 0, std::numeric_limits<std::uint64_t>::max()};
  for (int k = 0; k < reads || best.gap == std::numeric_limits<std::uint64_t>::max(); ++k) {
    const std::uint64_t before = read_ticks();
    const std::uint64_t ns = read_ns();
    const std::uint64_t after = read_ticks();
    if (after < before) { // the tick counter went back (another CPU's TSC): try again
      if (k >= 4 * reads) {
        return {after, ns, 0};
      }
      continue;
    }
    if (after - before < best.gap) {
      best = {before + (after - before) / 2, ns, after - before};
    }
  }
  return best;
}

} // namespace parjava::tracer
