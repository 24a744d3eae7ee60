// trace_build: how fast a model trace is built through TraceBuilder, the way the interpreter
// does it: events appended location by location with the typed helpers, then finish()
// (ordering and matching). 64 ranks run the halo exchange of trace_generate (Irecv/Isend to
// both neighbours, Waitall, Allreduce), 10 million events by default.
//
//   trace_build [events] [ranks]
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "parjava/trace/builder.hpp"

using parjava::trace::TraceBuilder;

int main(int argc, char **argv) {
  const auto events = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10'000'000ULL;
  const auto ranks = static_cast<std::int32_t>(argc > 2 ? std::atoi(argv[2]) : 64);
  constexpr std::uint64_t kEventsPerStep = 24;
  const auto steps = events / kEventsPerStep / static_cast<std::uint64_t>(ranks);

  const auto t0 = std::chrono::steady_clock::now();
  TraceBuilder b;
  b.add_ranks(ranks);
  const auto world = b.world_communicator();
  const auto compute = b.region("compute");
  const auto irecv = b.region("MPI_Irecv");
  const auto isend = b.region("MPI_Isend");
  const auto waitall = b.region("MPI_Waitall");
  const auto allreduce = b.region("MPI_Allreduce");
  b.reserve(steps * kEventsPerStep * static_cast<std::uint64_t>(ranks));
  for (std::int32_t r = 0; r < ranks; ++r) {
    const auto loc = static_cast<std::uint32_t>(r);
    const auto left = (r + ranks - 1) % ranks;
    const auto right = (r + 1) % ranks;
    parjava::trace::Timestamp t = 0;
    std::uint64_t request = 0;
    for (std::uint64_t s = 0; s < steps; ++s) {
      b.enter(loc, t += 10, compute);
      b.leave(loc, t += 5000);
      const auto rl = ++request;
      const auto rr = ++request;
      b.enter(loc, t += 10, irecv);
      b.irecv_post(loc, t += 5, rl);
      b.leave(loc, t += 5);
      b.enter(loc, t += 10, irecv);
      b.irecv_post(loc, t += 5, rr);
      b.leave(loc, t += 5);
      b.enter(loc, t += 10, isend);
      b.isend(loc, t += 5, left, 1, world, 8192, ++request);
      b.leave(loc, t += 5);
      b.enter(loc, t += 10, isend);
      b.isend(loc, t += 5, right, 0, world, 8192, ++request);
      b.leave(loc, t += 5);
      b.enter(loc, t += 10, waitall);
      b.irecv_complete(loc, t += 500, right, 1, world, 8192, rr);
      b.isend_complete(loc, t += 5, request - 1);
      b.irecv_complete(loc, t += 5, left, 0, world, 8192, rl);
      b.isend_complete(loc, t += 5, request);
      b.leave(loc, t += 5);
      b.enter(loc, t += 10, allreduce);
      b.collective_begin(loc, t += 5);
      b.collective_end(loc, t += 2000, 11, world, parjava::trace::kNoRank, 8, 8);
      b.leave(loc, t += 5);
    }
  }
  const auto t1 = std::chrono::steady_clock::now();
  const auto trace = b.finish(2);
  const auto t2 = std::chrono::steady_clock::now();
  const std::chrono::duration<double> append = t1 - t0;
  const std::chrono::duration<double> finish = t2 - t1;
  const auto n = static_cast<double>(trace.size());
  std::printf("TraceBuilder: %zu events, %zu locations, %llu unmatched\n", trace.size(),
              trace.location_count(), static_cast<unsigned long long>(trace.unmatched.total()));
  std::printf("appends %.3f s (%.1f M events/s), finish %.3f s, total %.1f M events/s, "
              "%.1f B/event\n",
              append.count(), n / append.count() / 1e6, finish.count(),
              n / (append + finish).count() / 1e6, static_cast<double>(trace.memory_bytes()) / n);
  return trace.unmatched.total() == 0 ? 0 : 1;
}
