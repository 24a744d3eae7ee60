// Block times of an estimation run slowed by neighbours, without the CPU its ranks waited for
// (issue 13 item 5, noise-aware estimation). Probes read a cycle counter, so a block that was
// preempted counts the time other processes ran: at load 7 on this 2-core VM a compute loop of
// 1.23 s of CPU took 3.15 s of wall time, and the model followed it. The kernel says how long a
// thread was runnable but waiting for a CPU (/proc/thread-self/schedstat: run and run-queue wait
// nanoseconds; CONFIG_SCHED_INFO, which Debian's and most distributions' kernels have).
//
// Two corrections, one exact and one statistical:
// * the runtime reads the wait around every sample of a long interval (a slot's mean of about
//   400 us or more) and takes it out of that sample (probe_runtime.cpp, pj_end_watched): exact,
//   at any np, whatever the rank does between the samples;
// * at np 1 the other samples (short blocks, which a preemption of a few milliseconds hits
//   rarely but hard) are scaled by the rank's run / (run + wait) over the whole run: its waits
//   fall on whatever it did while runnable. With two ranks or more that does not hold: a rank
//   waiting in MPI polls, and on an oversubscribed node it yields the CPU at every poll and waits
//   on the run queue while the others compute. Scaled by the whole run's share, jacobi2d's
//   blocks came out 37 % (np 2) to 90 % (np 8) too fast at load 9.7. A rank runnable for less
//   than 80 % of its program time (one that sleeps or waits for I/O) is not scaled either.
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
  if (r.size > 1 || !r.has_program || r.run_seconds <= 0.0 || r.wait_seconds < 0.0 ||
      r.program_seconds <= 0.0) {
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

// Scale the samples the runtime did not correct one by one; returns the ticks taken out.
double scale_unwatched(SlotMeasurement &s, double f) {
  const std::uint64_t watched = std::min(s.watched_ticks, s.sum);
  const std::uint64_t rest = s.sum - watched;
  const std::uint64_t after = watched + scaled(rest, f);
  if (s.sum == 0 || after == s.sum) {
    return 0.0;
  }
  const double ratio = static_cast<double>(after) / static_cast<double>(s.sum);
  const double removed = static_cast<double>(s.sum - after);
  s.sum = after;
  s.sumsq *= ratio * ratio;
  s.min = scaled(s.min, ratio);
  s.max = scaled(s.max, ratio);
  return removed;
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
      double measured = 0.0; // the rank's timed ticks as the clock counted them
      double removed = 0.0;  // ... of which waiting
      for (std::size_t k = 0; k < rank.slots.size() && k < timed.size(); ++k) {
        SlotMeasurement &s = rank.slots[k];
        if (timed[k] == 0) {
          if (sized[k] != 0 && f < 1.0) {
            for (auto &[bin, values] : s.sizes) {
              values[2] *= f; // the ticks of the timed calls in this size bin
            }
          }
          continue;
        }
        measured += static_cast<double>(s.sum) + static_cast<double>(s.removed_ticks);
        removed += static_cast<double>(s.removed_ticks);
        if (f < 1.0) {
          removed += scale_unwatched(s, f);
          changed = true;
        }
      }
      rank.corrected_share = measured > 0.0 ? removed / measured : 0.0;
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
