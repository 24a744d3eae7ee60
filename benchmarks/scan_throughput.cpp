// scan_throughput: events per second of the pattern scanner on one core (issue 4: at least 20
// million events/s on a 10-million-event trace). Builds a synthetic MPI trace through
// TraceBuilder, then scans it several times with all patterns on and prints the figures.
//
// Each rank runs `steps` iterations of a 1-D halo exchange with load imbalance, the usual MPI
// mix: compute (user region, a random 0-20 us extra on some ranks); MPI_Irecv x2 and MPI_Isend x2
// to both neighbours; MPI_Waitall of the four; a blocking MPI_Send/MPI_Recv pair with rank ^ 1;
// MPI_Allreduce; every 10th step MPI_Barrier. About 30 events per rank and step.
//
//   build/dev/benchmarks/scan_throughput [--events 10000000] [--ranks 64] [--repeat 5]
//                                            [--patterns parjava|scalasca|pgas|KEY]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "parjava/analysis/scanner.hpp"
#include "parjava/trace/builder.hpp"

namespace {

using parjava::trace::Timestamp;
using parjava::trace::TraceBuilder;

struct Arguments {
  std::uint64_t events = 10'000'000;
  int ranks = 64;
  int repeat = 5;
  std::string patterns; // a family, key or code; empty: all
};

Arguments parse(int argc, char **argv) {
  Arguments a;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--events") == 0) {
      a.events = std::strtoull(argv[i + 1], nullptr, 10);
    } else if (std::strcmp(argv[i], "--ranks") == 0) {
      a.ranks = std::atoi(argv[i + 1]);
    } else if (std::strcmp(argv[i], "--patterns") == 0) {
      a.patterns = argv[i + 1];
    } else if (std::strcmp(argv[i], "--repeat") == 0) {
      a.repeat = std::atoi(argv[i + 1]);
    } else {
      std::fprintf(stderr,
                   "usage: scan_throughput [--events N] [--ranks R] [--repeat K] [--patterns P]\n");
      std::exit(2);
    }
  }
  if (a.ranks < 2 || a.ranks % 2 != 0) {
    std::fprintf(stderr, "scan_throughput: --ranks must be even and >= 2\n");
    std::exit(2);
  }
  return a;
}

parjava::trace::Trace build(const Arguments &a) {
  constexpr int kEventsPerStep = 30; // average, see the header comment
  const auto steps = std::max<std::uint64_t>(
      1, a.events / (std::uint64_t{kEventsPerStep} * static_cast<std::uint64_t>(a.ranks)));
  TraceBuilder b;
  b.reserve(a.events + a.events / 10);
  b.add_ranks(a.ranks);
  const auto world = b.world_communicator();
  const auto compute = b.region("compute");
  const auto irecv = b.region("MPI_Irecv");
  const auto isend = b.region("MPI_Isend");
  const auto waitall = b.region("MPI_Waitall");
  const auto send = b.region("MPI_Send");
  const auto recv = b.region("MPI_Recv");
  const auto allreduce = b.region("MPI_Allreduce");
  const auto barrier = b.region("MPI_Barrier");
  const auto site = b.add_callsite("halo.c", 42, "exchange");
  std::mt19937_64 random(42);
  std::vector<Timestamp> now(static_cast<std::size_t>(a.ranks), 0);
  std::vector<Timestamp> extra(static_cast<std::size_t>(a.ranks), 0);
  const auto n = a.ranks;
  for (std::uint64_t step = 0; step < steps; ++step) {
    for (int r = 0; r < n; ++r) {
      extra[static_cast<std::size_t>(r)] =
          (random() % 4 == 0) ? static_cast<Timestamp>(random() % 20'000) : 0;
    }
    // Compute, post the halo exchange; the sends to both neighbours start after the compute.
    std::vector<Timestamp> send_time(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) {
      auto &t = now[static_cast<std::size_t>(r)];
      const auto u = static_cast<std::uint32_t>(r);
      b.enter(u, t, irecv, site);
      b.irecv_post(u, t + 100, 1);
      b.leave(u, t + 200);
      b.enter(u, t + 300, irecv, site);
      b.irecv_post(u, t + 400, 2);
      b.leave(u, t + 500);
      t += 600;
      b.enter(u, t, compute);
      t += 50'000 + extra[static_cast<std::size_t>(r)];
      b.leave(u, t);
      const int left = (r + n - 1) % n;
      const int right = (r + 1) % n;
      b.enter(u, t, isend, site);
      b.isend(u, t + 100, left, 0, world, 8192, 3);
      b.leave(u, t + 200);
      b.enter(u, t + 300, isend, site);
      b.isend(u, t + 400, right, 1, world, 8192, 4);
      b.leave(u, t + 500);
      send_time[static_cast<std::size_t>(r)] = t + 400;
      t += 600;
    }
    Timestamp latest = 0;
    for (int r = 0; r < n; ++r) {
      const int left = (r + n - 1) % n;
      const int right = (r + 1) % n;
      const auto arrive = std::max(send_time[static_cast<std::size_t>(left)],
                                   send_time[static_cast<std::size_t>(right)]) +
                          2'000;
      auto &t = now[static_cast<std::size_t>(r)];
      const auto u = static_cast<std::uint32_t>(r);
      const auto end = std::max(t + 1'000, arrive);
      b.enter(u, t, waitall, site);
      b.isend_complete(u, end - 40, 3);
      b.isend_complete(u, end - 30, 4);
      b.irecv_complete(u, end - 20, right, 0, world, 8192, 1); // right neighbour's tag-0 send
      b.irecv_complete(u, end - 10, left, 1, world, 8192, 2);
      b.leave(u, end);
      t = end + 100;
      latest = std::max(latest, t);
    }
    // A blocking pair with rank ^ 1: even ranks send, odd ranks receive.
    for (int r = 0; r < n; r += 2) {
      auto &ts = now[static_cast<std::size_t>(r)];
      auto &tr = now[static_cast<std::size_t>(r) + 1];
      const auto s = static_cast<std::uint32_t>(r);
      const auto d = static_cast<std::uint32_t>(r + 1);
      const auto done = std::max(ts, tr) + 3'000;
      b.enter(s, ts, send, site);
      b.send(s, ts + 100, r + 1, 7, world, 1024);
      b.leave(s, ts + 1'000);
      b.enter(d, tr, recv, site);
      b.recv(d, done, r, 7, world, 1024);
      b.leave(d, done + 100);
      ts += 1'100;
      tr = done + 200;
      latest = std::max({latest, ts, tr});
    }
    const auto collective_end = latest + 5'000;
    for (int r = 0; r < n; ++r) {
      auto &t = now[static_cast<std::size_t>(r)];
      const auto u = static_cast<std::uint32_t>(r);
      b.enter(u, t, allreduce, site);
      b.collective_begin(u, t + 50);
      b.collective_end(u, collective_end, 0, world, -1, 8, 8);
      b.leave(u, collective_end + 50);
      t = collective_end + 100;
      if (step % 10 == 9) {
        b.enter(u, t, barrier, site);
        b.collective_begin(u, t + 10);
        b.collective_end(u, t + 3'000 + r, 0, world, -1, 0, 0);
        b.leave(u, t + 3'100 + r);
        t += 3'200 + r;
      }
    }
  }
  return b.finish();
}

double thread_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

} // namespace

int main(int argc, char **argv) {
  const auto args = parse(argc, argv);
  const auto t0 = std::chrono::steady_clock::now();
  const auto trace = build(args);
  const auto t1 = std::chrono::steady_clock::now();
  std::printf("trace: %zu events, %zu locations, %zu collective instances (built in %.2f s)\n",
              trace.size(), trace.location_count(), trace.collectives.size(),
              std::chrono::duration<double>(t1 - t0).count());
  parjava::analysis::ScanOptions options; // every pattern, default thresholds
  if (!args.patterns.empty()) {
    options.patterns = parjava::analysis::select_patterns({args.patterns});
  }
  // CPU time of this thread: the figure is per core, and other work on a shared machine then
  // does not count against the scanner (wall time is printed beside it).
  std::vector<double> cpu;
  std::vector<double> wall;
  std::size_t findings = 0;
  for (int k = 0; k < args.repeat; ++k) {
    const auto cpu_start = thread_seconds();
    const auto start = std::chrono::steady_clock::now();
    const auto result = parjava::analysis::scan(trace, options);
    wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    cpu.push_back(thread_seconds() - cpu_start);
    findings = result.size();
  }
  std::sort(cpu.begin(), cpu.end());
  std::sort(wall.begin(), wall.end());
  const auto events = static_cast<double>(trace.size());
  std::printf("findings: %zu (%.1f MB, %zu bytes each)\n", findings,
              static_cast<double>(findings * sizeof(parjava::analysis::Finding)) / 1e6,
              sizeof(parjava::analysis::Finding));
  std::printf("scan CPU time: best %.3f s, median %.3f s over %d runs (wall: median %.3f s)\n",
              cpu.front(), cpu[cpu.size() / 2], args.repeat, wall[wall.size() / 2]);
  std::printf("throughput: %.1f million events/s per core (best), %.1f (median)\n",
              events / cpu.front() / 1e6, events / cpu[cpu.size() / 2] / 1e6);
  return 0;
}
