// Block times of an estimation run slowed by neighbours, corrected for the CPU its ranks waited
// for (issue 13 item 5, noise-aware estimation). Probes read a cycle counter, so a block that
// was preempted counts the time other processes ran. On a shared machine that is most of the
// error: at load 7 on this 2-core VM a compute loop of 1.23 s of CPU took 3.15 s of wall time,
// and the model followed it. The kernel says how long each thread was runnable but waiting for
// a CPU (/proc/thread-self/schedstat: run and run-queue wait nanoseconds; with CONFIG_SCHED_INFO,
// which Debian's and most distributions' kernels have). A rank's wait falls on whatever it was
// doing while runnable, so every timed sample is taken to have waited in the same proportion:
// its time is scaled by run / (run + wait) of that rank. This holds while the rank is runnable
// throughout: a rank that sleeps or blocks in I/O for a large part of its run is left as
// measured (its blocks may have slept rather than waited), and the estimation still calls such
// a run doubtful.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "parjava/frontend/estimates.hpp"

namespace parjava::frontend {

namespace {

// Below this share of waiting the correction is noise; a rank runnable for less than this share
// of its program time was not CPU-bound, so its blocks need not have waited at all.
constexpr double kLeastWait = 0.02;
constexpr double kRunnable = 0.8;
constexpr double kLeastFactor = 0.05;

double factor_of(const RankRun &r) {
  if (!r.has_program || r.run_seconds <= 0.0 || r.wait_seconds < 0.0 || r.program_seconds <= 0.0) {
    return 1.0;
  }
  const double runnable = r.run_seconds + r.wait_seconds;
  if (runnable < kRunnable * r.program_seconds || r.wait_seconds < kLeastWait * runnable) {
    return 1.0;
  }
  return std::max(kLeastFactor, r.run_seconds / runnable);
}

std::uint64_t scaled(std::uint64_t ticks, double f) {
  return static_cast<std::uint64_t>(std::llround(static_cast<double>(ticks) * f));
}

void scale(SlotMeasurement &s, double f) {
  s.sum = scaled(s.sum, f);
  s.sumsq *= f * f;
  s.min = scaled(s.min, f);
  s.max = scaled(s.max, f);
}

} // namespace

void correct_for_waiting(Measurements &m, const EstimationPlan &plan) {
  std::vector<std::uint8_t> timed(m.slots.size(), 0);
  std::vector<std::uint8_t> sized(m.slots.size(), 0);
  for (const Probe &p : plan.probes) {
    if (p.slot >= m.slots.size()) {
      continue;
    }
    switch (p.kind) {
    case ProbeKind::Block:
    case ProbeKind::Fragment:
    case ProbeKind::Function:
    case ProbeKind::Prologue:
    case ProbeKind::Iterations:
      timed[p.slot] = 1;
      break;
    case ProbeKind::Sized:
      sized[p.slot] = 1;
      break;
    case ProbeKind::Trips:
    case ProbeKind::Branch:
    case ProbeKind::Switch:
    case ProbeKind::Value:
    case ProbeKind::Input:
      break;
    }
  }
  bool changed = false;
  for (auto &run : m.runs) {
    for (RankRun &rank : run) {
      const double f = factor_of(rank);
      rank.waiting_factor = f;
      if (f >= 1.0) {
        continue;
      }
      changed = true;
      for (std::size_t k = 0; k < rank.slots.size() && k < timed.size(); ++k) {
        SlotMeasurement &s = rank.slots[k];
        if (timed[k] != 0) {
          scale(s, f);
        }
        if (sized[k] != 0 || timed[k] != 0) {
          for (auto &[bin, values] : s.sizes) {
            values[2] *= f; // the ticks of the timed calls in this size bin
          }
        }
      }
    }
  }
  if (!changed) {
    return;
  }
  // The merged slots are the ranks' slots added up (load_estimates): add them up again.
  std::vector<SlotMeasurement> merged(m.slots.size());
  for (const auto &run : m.runs) {
    for (const RankRun &rank : run) {
      for (std::size_t k = 0; k < rank.slots.size() && k < merged.size(); ++k) {
        accumulate(merged[k], rank.slots[k]);
      }
    }
  }
  m.slots = std::move(merged);
}

} // namespace parjava::frontend
