// goal_simulate: the LogGP engine alone, without Python -- builds a pattern in memory (or reads
// a GOAL text or .pjgoal file) and simulates it, printing the event loop's CPU time (min and
// median of the repetitions), the result LogGOPSim prints (event count, maximum end time and
// its host) and the memory: the schedule's bytes, the engine's peak bytes and the process's
// peak resident set. benchmarks/goal_bench.py runs it beside LogGOPSim; it also serves as a
// callgrind target (`valgrind --tool=callgrind goal_simulate ...`).
//
//   goal_simulate pattern NAME RANKS BYTES [chain] [repeat N] [order loggopsim|stable]
//   goal_simulate file PATH [repeat N] [order loggopsim|stable]
//   goal_simulate pattern NAME RANKS BYTES [chain] write OUT.goal   (GOAL text for LogGOPSim)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include "parjava/error.hpp"
#include "parjava/loggp/goal_binary.hpp"
#include "parjava/loggp/goal_patterns.hpp"
#include "parjava/loggp/goal_reader.hpp"
#include "parjava/loggp/goal_writer.hpp"
#include "parjava/loggp/simulator.hpp"

namespace {

namespace lg = parjava::loggp;

// Peak resident set of this process since exec, in bytes (Linux /proc/self/status VmHWM).
long long peak_resident_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) {
      return std::atoll(line.c_str() + 6) * 1024;
    }
  }
  return 0;
}

// CPU time of this process (the reading phase is single-threaded), in seconds.
double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

int usage() {
  std::fprintf(stderr, "usage: goal_simulate pattern NAME RANKS BYTES [chain] [repeat N] "
                       "[order loggopsim|stable] [write OUT.goal]\n       goal_simulate file "
                       "PATH [repeat N] [order loggopsim|stable]\n");
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() < 2) {
    return usage();
  }
  int repeat = 1;
  lg::SimulationOptions options;
  options.order = lg::ReadyOrder::LogGOPSim;
  lg::PatternOptions pattern;
  std::string write_to;
  std::size_t i = args[0] == "pattern" ? 4 : 2;
  if ((args[0] != "pattern" && args[0] != "file") || args.size() < i) {
    return usage();
  }
  for (; i < args.size(); ++i) {
    if (args[i] == "chain") {
      pattern.chain_receives = true;
    } else if (args[i] == "repeat" && i + 1 < args.size()) {
      repeat = std::max(1, std::atoi(args[++i].c_str()));
    } else if (args[i] == "write" && i + 1 < args.size()) {
      write_to = args[++i];
    } else if (args[i] == "order" && i + 1 < args.size()) {
      options.order = args[++i] == "stable" ? lg::ReadyOrder::Stable : lg::ReadyOrder::LogGOPSim;
    } else {
      return usage();
    }
  }
  try {
    lg::GoalSchedule schedule;
    const auto read_start = std::chrono::steady_clock::now();
    const double read_cpu_start = process_cpu_seconds();
    if (args[0] == "pattern") {
      pattern.ranks = static_cast<std::uint32_t>(std::strtoul(args[2].c_str(), nullptr, 10));
      pattern.bytes = std::strtoull(args[3].c_str(), nullptr, 10);
      schedule = lg::generate_pattern(args[1], pattern);
    } else if (lg::is_goal_binary(args[1])) {
      schedule = lg::read_goal_binary(args[1]);
    } else {
      schedule = lg::read_goal_file(args[1]);
    }
    const std::chrono::duration<double> read_seconds =
        std::chrono::steady_clock::now() - read_start;
    const double read_cpu = process_cpu_seconds() - read_cpu_start;
    const long long read_peak = peak_resident_bytes();
    if (!write_to.empty()) {
      lg::write_goal_file(schedule, write_to);
      std::printf("wrote %s: %u ranks, %u ops\n", write_to.c_str(), schedule.num_ranks(),
                  schedule.num_ops());
      return 0;
    }
    std::vector<double> cpu;
    lg::SimulationResult r;
    for (int k = 0; k < repeat; ++k) {
      r = lg::simulate(schedule, options);
      cpu.push_back(r.cpu_seconds);
    }
    std::sort(cpu.begin(), cpu.end());
    std::printf("ranks %u ops %u edges %llu\n", schedule.num_ranks(), schedule.num_ops(),
                static_cast<unsigned long long>(schedule.num_edges()));
    std::printf("events %llu max %llu host %u complete %d\n",
                static_cast<unsigned long long>(r.events),
                static_cast<unsigned long long>(r.max_end_time), r.max_host, r.complete ? 1 : 0);
    if (args[0] == "file") {
      // Issue 18: a GOAL text is parsed at disk speed (compare `dd iflag=direct` of the file),
      // without the text resident beside the schedule (peak so far against the schedule).
      std::ifstream file(args[1], std::ios::binary | std::ios::ate);
      const double bytes = static_cast<double>(file.tellg());
      std::printf("read %.3f s wall, %.3f s cpu: %.0f MB/s of file (wall), %.0f MB/s (cpu); "
                  "peak rss after reading %lld, schedule %llu bytes\n",
                  read_seconds.count(), read_cpu, bytes / read_seconds.count() / 1e6,
                  bytes / read_cpu / 1e6, read_peak,
                  static_cast<unsigned long long>(schedule.memory_bytes()));
    } else {
      std::printf("built in %.3f s wall, %.3f s cpu\n", read_seconds.count(), read_cpu);
    }
    std::printf("loop cpu min %.6f median %.6f s (%d runs), wall %.6f s\n", cpu.front(),
                cpu[cpu.size() / 2], repeat, r.seconds);
    std::printf("schedule bytes %llu engine peak bytes %llu process peak rss %lld\n",
                static_cast<unsigned long long>(schedule.memory_bytes()),
                static_cast<unsigned long long>(r.engine_bytes), peak_resident_bytes());
    // Issue 18's memory bound: at most 200 bytes per rank plus 16 per op. Printed as what is
    // left per rank once 16 bytes per op are taken off (the schedule and engine alone, and the
    // whole process, whose fixed few MB weigh only at small rank counts).
    const auto per_rank = [&schedule](double bytes) {
      return (bytes - 16.0 * schedule.num_ops()) / schedule.num_ranks();
    };
    const double model_bytes =
        static_cast<double>(schedule.memory_bytes()) + static_cast<double>(r.engine_bytes);
    std::printf("bytes per rank beyond 16 per op: schedule+engine %.1f, process peak %.1f "
                "(bound 200)\n",
                per_rank(model_bytes), per_rank(static_cast<double>(peak_resident_bytes())));
    if (schedule.num_ranks() <= 16) {
      for (std::uint32_t h = 0; h < schedule.num_ranks(); ++h) {
        std::printf("Host %u: %llu\n", h, static_cast<unsigned long long>(r.end_times[h]));
      }
    }
  } catch (const parjava::Error &e) {
    std::fprintf(stderr, "goal_simulate: %s\n", e.what());
    return 1;
  }
  return 0;
}
