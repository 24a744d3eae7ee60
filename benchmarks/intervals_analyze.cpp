// intervals_analyze: speed of the interval analysis on a large synthetic MPI trace.
//
// Builds (with TraceBuilder) a halo-exchange run: every rank and step enters the interval
// "step" (marker), a user region "compute" of uneven length, posts two MPI_Irecv and two
// MPI_Isend to its ring neighbours, completes them in MPI_Waitall and ends with MPI_Allreduce:
// 26 events per rank and step. Then times analyze_intervals() (best of --repeat runs) and, as a
// floor, one plain pass over the event columns that only sums Enter/Leave durations.
//
//   build/dev/benchmarks/intervals_analyze --events 10000000 --ranks 64 [--repeat 3]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "parjava/analysis/intervals/analyze_intervals.hpp"
#include "parjava/trace/builder.hpp"

namespace {

using parjava::trace::Timestamp;
namespace trace = parjava::trace;
namespace analysis = parjava::analysis;

constexpr int kEventsPerStep = 26;

struct Args {
  std::uint64_t events = 10'000'000;
  int ranks = 64;
  int repeat = 3;
};

Args parse(int argc, char **argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--events") == 0) {
      a.events = std::strtoull(argv[i + 1], nullptr, 10);
    } else if (std::strcmp(argv[i], "--ranks") == 0) {
      a.ranks = std::atoi(argv[i + 1]);
    } else if (std::strcmp(argv[i], "--repeat") == 0) {
      a.repeat = std::atoi(argv[i + 1]);
    } else {
      std::fprintf(stderr, "usage: intervals_analyze [--events N] [--ranks R] [--repeat K]\n");
      std::exit(2);
    }
  }
  if (a.ranks < 2 || a.events < 1000 || a.repeat < 1) {
    std::fprintf(stderr, "intervals_analyze: need --ranks >= 2, --events >= 1000, --repeat >= 1\n");
    std::exit(2);
  }
  return a;
}

trace::Trace generate(const Args &a) {
  trace::TraceBuilder b;
  const auto steps = static_cast<int>(a.events / (static_cast<std::uint64_t>(kEventsPerStep) *
                                                  static_cast<std::uint64_t>(a.ranks)));
  b.reserve(static_cast<std::size_t>(steps) * kEventsPerStep * static_cast<std::size_t>(a.ranks));
  const auto first = b.add_ranks(a.ranks);
  const auto world = b.world_communicator();
  trace::Region compute_region;
  compute_region.name = "compute";
  compute_region.paradigm = trace::Paradigm::User;
  const auto compute = b.add_region(compute_region);
  const auto step_region = b.region("step");
  const auto irecv = b.region("MPI_Irecv");
  const auto isend = b.region("MPI_Isend");
  const auto waitall = b.region("MPI_Waitall");
  const auto allreduce = b.region("MPI_Allreduce");
  const auto site = b.add_callsite("solver.c", 42);
  std::uint64_t rng = 88172645463325252ULL;
  auto next = [&rng]() {
    rng ^= rng << 13U;
    rng ^= rng >> 7U;
    rng ^= rng << 17U;
    return rng;
  };
  for (int r = 0; r < a.ranks; ++r) {
    const auto loc = first + static_cast<std::uint32_t>(r);
    const int left = (r + a.ranks - 1) % a.ranks;
    const int right = (r + 1) % a.ranks;
    for (int k = 0; k < steps; ++k) {
      const Timestamp base = static_cast<Timestamp>(k) * 100'000;
      Timestamp t = base;
      b.interval_begin(loc, t, step_region, 1, site);
      const auto work = 50'000 + static_cast<Timestamp>(next() % 20'000) + Timestamp{300} * r;
      b.enter(loc, t, compute);
      t += work;
      b.leave(loc, t, compute);
      for (int j = 0; j < 2; ++j) {
        b.enter(loc, t, irecv);
        b.irecv_post(loc, t + 100, static_cast<std::uint64_t>(j));
        t += 500;
        b.leave(loc, t, irecv);
      }
      const int peers[2] = {right, left};
      for (int j = 0; j < 2; ++j) {
        b.enter(loc, t, isend);
        b.isend(loc, t + 100, peers[j], j, world, 4096, 2U + static_cast<std::uint64_t>(j));
        t += 500;
        b.leave(loc, t, isend);
      }
      b.enter(loc, t, waitall);
      const Timestamp done = std::max(t + 2'000, base + 90'000);
      b.irecv_complete(loc, done - 400, left, 0, world, 4096, 0);
      b.irecv_complete(loc, done - 300, right, 1, world, 4096, 1);
      b.isend_complete(loc, done - 200, 2);
      b.isend_complete(loc, done - 100, 3);
      b.leave(loc, done, waitall);
      b.enter(loc, done, allreduce);
      b.collective_begin(loc, done);
      b.collective_end(loc, base + 97'000 + static_cast<Timestamp>(next() % 500), 11, world,
                       trace::kNoRank, 8, 8);
      b.leave(loc, base + 97'600, allreduce);
      b.interval_end(loc, base + 98'000, step_region, 1, site);
    }
  }
  return b.finish();
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

int main(int argc, char **argv) {
  const auto args = parse(argc, argv);
  auto t0 = std::chrono::steady_clock::now();
  const auto trace = generate(args);
  const double build_seconds = seconds_since(t0);
  const auto n = static_cast<double>(trace.size());
  std::printf("trace: %zu events, %d ranks, built and matched in %.2f s\n", trace.size(),
              args.ranks, build_seconds);

  // Floor: one pass over the columns summing the time inside Enter/Leave pairs.
  double floor_seconds = 1e30;
  std::int64_t checksum = 0;
  for (int k = 0; k < args.repeat; ++k) {
    t0 = std::chrono::steady_clock::now();
    std::int64_t inside = 0;
    for (std::size_t i = 0; i < trace.size(); ++i) {
      if (trace.events.kind[i] == trace::EventKind::Leave && trace.events.match[i] >= 0) {
        inside += trace.events.time[i] -
                  trace.events.time[static_cast<std::size_t>(trace.events.match[i])];
      }
    }
    floor_seconds = std::min(floor_seconds, seconds_since(t0));
    checksum += inside;
  }

  double best = 1e30;
  std::size_t nodes = 0;
  double efficiency = 0.0;
  for (int k = 0; k < args.repeat; ++k) {
    t0 = std::chrono::steady_clock::now();
    const auto tree = analysis::analyze_intervals(trace);
    best = std::min(best, seconds_since(t0));
    nodes = tree.nodes.size();
    efficiency = tree.root().summary.efficiency;
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("floor (one pass summing Enter/Leave): %.3f s, %.0f Mevents/s (checksum %lld)\n",
              floor_seconds, n / floor_seconds / 1e6, static_cast<long long>(checksum % 1000));
  std::printf("analyze_intervals: %.3f s, %.1f Mevents/s, %zu intervals, efficiency %.4f\n", best,
              n / best / 1e6, nodes, efficiency);
  std::printf("peak RSS: %.0f MB (%.1f bytes per event, trace included)\n",
              static_cast<double>(usage.ru_maxrss) / 1024.0,
              static_cast<double>(usage.ru_maxrss) * 1024.0 / n);
  return 0;
}
