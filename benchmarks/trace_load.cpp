// trace_load: time parjava::trace::open() (reading, ordering and matching) on an OTF2 archive
// and measure its memory per event: Trace::memory_bytes() and the growth of the resident set
// (current and peak) over the load. Run trace_baseline on the same archive for the ratio.
//
//   trace_load /tmp/big/traces.otf2 [repetitions] [threads]   (threads 0: open()'s default)
#include <malloc.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "parjava/error.hpp"
#include "parjava/trace/otf2.hpp"

namespace {

// Resident and peak resident set of this process, in bytes (Linux /proc/self/status).
std::pair<long long, long long> resident_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  long long rss = 0;
  long long hwm = 0;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) {
      rss = std::atoll(line.c_str() + 6) * 1024;
    } else if (line.rfind("VmHWM:", 0) == 0) {
      hwm = std::atoll(line.c_str() + 6) * 1024;
    }
  }
  return {rss, hwm};
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: trace_load ARCHIVE/traces.otf2 [repetitions] [threads]\n");
    return 2;
  }
  const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  const auto threads = static_cast<unsigned>(argc > 3 ? std::atoi(argv[3]) : 0);
  try {
    // Memory: the first load, measured against the process before it.
    const auto [rss_before, hwm_before] = resident_bytes();
    const auto t0 = std::chrono::steady_clock::now();
    auto trace = parjava::trace::open(argv[1], threads);
    const std::chrono::duration<double> first = std::chrono::steady_clock::now() - t0;
    const auto [rss_after, hwm_after] = resident_bytes();
    const double n = static_cast<double>(trace.size());
    std::printf("parjava open: %zu events, %zu locations, %zu collective instances, "
                "%llu unmatched\n",
                trace.size(), trace.location_count(), trace.collectives.size(),
                static_cast<unsigned long long>(trace.unmatched.total()));
    std::printf("first open in this process: %.3f s\n", first.count());
    std::printf("memory: memory_bytes() %.1f B/event, RSS growth %.1f B/event, "
                "peak RSS growth %.1f B/event\n",
                static_cast<double>(trace.memory_bytes()) / n,
                static_cast<double>(rss_after - rss_before) / n,
                static_cast<double>(hwm_after - std::max(hwm_before, rss_before)) / n);
    trace = {};
    malloc_trim(0);

    double best = first.count();
    for (int r = 1; r < reps; ++r) {
      const auto t1 = std::chrono::steady_clock::now();
      auto again = parjava::trace::open(argv[1], threads);
      const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t1;
      best = std::min(best, dt.count());
    }
    std::printf("parjava open (matching included, %s threads): best of %d: %.3f s, "
                "%.1f M events/s\n",
                threads == 0 ? "default" : std::to_string(threads).c_str(), reps, best,
                n / best / 1e6);
  } catch (const parjava::Error &e) {
    std::fprintf(stderr, "trace_load: %s\n", e.what());
    return 2;
  }
  return 0;
}
