// Event timestamps. Reading the clock twice per wrapped call is most of the tracer's cost, so
// events are stamped with the TSC (rdtsc, a few ns) where the kernel itself trusts it as its
// clocksource and the CPU says the TSC is constant and non-stop, and with CLOCK_MONOTONIC
// (about 25 ns through the vDSO) otherwise; PARJAVA_TRACE_TIMER=tsc|monotonic overrides.
// TSC ticks are mapped to CLOCK_MONOTONIC ns by the assembler through (tick, ns) anchors the
// process logs at start-up, after initialisation, at every periodic flush and at its end.
#pragma once

#include <cstdint>
#include <ctime>
#include <x86intrin.h>

namespace parjava::tracer::runtime {

extern bool g_tsc_timer;

inline std::uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

// The timestamp of an event, in the process's timer ticks.
inline std::uint64_t now_ticks() { return g_tsc_timer ? __rdtsc() : monotonic_ns(); }

// Decide the timer (at library load); returns its name, "tsc" or "monotonic".
const char *choose_timer();
// Ticks per ns, measured over a fraction of a millisecond (for intervals that need no
// precision, like the periodic flush; the assembler uses the anchors).
double ticks_per_ns_estimate();
// Log an anchor "ticks <tick> <monotonic ns>" (async-signal-safe).
void write_tick_anchor();

} // namespace parjava::tracer::runtime
