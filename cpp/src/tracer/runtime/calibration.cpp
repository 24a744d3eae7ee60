// Overhead calibration (calibration.hpp).
#include "calibration.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "call.hpp"
#include "line_writer.hpp"

namespace parjava::tracer::runtime {
namespace {

constexpr int kBatches = 15;
constexpr int kCallsPerBatch = 2000;

// Stands for the runtime call: an opaque function the compiler cannot remove.
__attribute__((noinline)) void bare_call(volatile int *x) { *x = *x + 1; }

std::uint64_t time_bare(volatile int *x) {
  const auto t0 = monotonic_ns();
  for (int i = 0; i < kCallsPerBatch; ++i) {
    bare_call(x);
  }
  return monotonic_ns() - t0;
}

volatile bool group_seen = false;

std::uint64_t time_traced(volatile int *x, ThreadState &scratch) {
  const auto t0 = monotonic_ns();
  for (int i = 0; i < kCallsPerBatch; ++i) {
    // What enter_call() does (group check, thread state, nesting check), recording into the
    // scratch buffer instead of the trace whatever the groups say.
    group_seen =
        g_routine_on[static_cast<std::size_t>(Routine::MPI_Iprobe)].load(std::memory_order_relaxed);
    ThreadState *real = thread_state();
    ThreadState *ts = (real == nullptr || real->depth == 0) ? &scratch : nullptr;
    Call call(ts, Routine::MPI_Iprobe, PARJAVA_CALL_SITE());
    bare_call(x);
    call.returned();
  }
  return monotonic_ns() - t0;
}

} // namespace

std::uint64_t calibrate_overhead() {
  ThreadState scratch;
  std::vector<Record> storage(kCallsPerBatch + 1);
  scratch.buffer.attach(storage.data(), storage.size(), -1);
  volatile int x = 0;
  std::array<double, kBatches> per_call{};
  time_bare(&x); // warm up
  time_traced(&x, scratch);
  for (int b = 0; b < kBatches; ++b) {
    const auto bare = time_bare(&x);
    const auto traced = time_traced(&x, scratch);
    per_call[static_cast<std::size_t>(b)] =
        (static_cast<double>(traced) - static_cast<double>(bare)) / kCallsPerBatch;
  }
  std::sort(per_call.begin(), per_call.end());
  const double median = std::max(0.0, per_call[kBatches / 2]);
  const auto ns = static_cast<std::uint64_t>(std::llround(median));
  LineWriter w;
  w.text("overhead ").number(ns).end();
  defs_line(w);
  return ns;
}

} // namespace parjava::tracer::runtime
