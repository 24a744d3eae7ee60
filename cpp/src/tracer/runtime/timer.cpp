// Timer choice and tick anchors (timer.hpp).
#include "timer.hpp"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "line_writer.hpp"
#include "parjava/tracer/clock_anchor.hpp"
#include "process.hpp"

namespace parjava::tracer::runtime {

bool g_tsc_timer = false;

namespace {

std::string read_file(const char *path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The kernel keeps the TSC as clocksource only after checking it is synchronised across CPUs;
// constant_tsc and nonstop_tsc mean its rate does not follow frequency changes or sleep states.
bool tsc_is_trustworthy() {
  const auto clocksource =
      read_file("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  if (clocksource.rfind("tsc", 0) != 0) {
    return false;
  }
  const auto cpuinfo = read_file("/proc/cpuinfo");
  return cpuinfo.find(" constant_tsc") != std::string::npos &&
         cpuinfo.find(" nonstop_tsc") != std::string::npos;
}

} // namespace

const char *choose_timer() {
  const char *requested = std::getenv("PARJAVA_TRACE_TIMER");
  if (requested != nullptr && std::strcmp(requested, "monotonic") == 0) {
    g_tsc_timer = false;
  } else if (requested != nullptr && std::strcmp(requested, "tsc") == 0) {
    g_tsc_timer = true;
  } else {
    g_tsc_timer = tsc_is_trustworthy();
  }
  return g_tsc_timer ? "tsc" : "monotonic";
}

double ticks_per_ns_estimate() {
  if (!g_tsc_timer) {
    return 1.0;
  }
  const std::uint64_t ns0 = monotonic_ns();
  const std::uint64_t tick0 = __rdtsc();
  std::uint64_t ns1 = ns0;
  while (ns1 - ns0 < 200'000) {
    ns1 = monotonic_ns();
  }
  const std::uint64_t tick1 = __rdtsc();
  return static_cast<double>(tick1 - tick0) / static_cast<double>(ns1 - ns0);
}

void write_tick_anchor() {
  // The pair read with the shortest bracket: a preempted read cannot skew the mapping.
  const auto anchor = closest_clock_anchor(now_ticks, monotonic_ns);
  LineWriter w;
  w.text("ticks ").number(anchor.tick).space().number(anchor.ns).end();
  defs_line_from_signal(w);
}

} // namespace parjava::tracer::runtime
