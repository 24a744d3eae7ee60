// Block times of an estimation run slowed by neighbours, without the CPU its ranks waited for:
// what share of each rank's timed ticks the runtime took out
// (issue 13 item 5, noise-aware estimation). Probes read a cycle counter, so a block that was
// preempted counts the time other processes ran: at load 7 on this 2-core VM a compute loop of
// 1.23 s of CPU took 3.15 s of wall time, and the model followed it. The kernel says how long a
// thread was runnable but waiting for a CPU (/proc/thread-self/schedstat: run and run-queue wait
// nanoseconds; CONFIG_SCHED_INFO, which Debian's and most distributions' kernels have).
//
// The runtime reads the wait around every sample of a long interval (a slot's mean of about
// 400 us or more) and takes it out of that sample (probe_runtime.cpp, pj_end_watched): exact, at
// any np, whatever the rank does between the samples. A short sample many times its slot's mean
// is looked at once more and counts as the mean when the thread waited for a CPU meanwhile
// (pj_suspect). Scaling short samples by the rank's run / (run + wait) over the whole run
// instead (an earlier version) was wrong both ways: a 355-ns block sampled 6975 times in a run
// that waited half its time came out at half its CPU time, and with two ranks or more a rank's
// waits fall mostly in MPI, where it polls or, oversubscribed, yields the CPU while the others
// compute (jacobi2d's blocks 37-90 % too fast at np 2-8).
#include <cstdint>
#include <vector>

#include "parjava/frontend/estimates.hpp"

namespace parjava::frontend {

void waiting_shares(Measurements &m, const EstimationPlan &plan) {
  std::vector<std::uint8_t> timed(m.slots.size(), 0);
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
    case ProbeKind::Trips:
    case ProbeKind::Branch:
    case ProbeKind::Switch:
    case ProbeKind::Value:
    case ProbeKind::Input:
      break;
    }
  }
  for (auto &run : m.runs) {
    for (RankRun &rank : run) {
      double measured = 0.0; // the rank's timed ticks as the clock counted them
      double removed = 0.0;  // ... of which waiting
      for (std::size_t k = 0; k < rank.slots.size() && k < timed.size(); ++k) {
        if (timed[k] != 0) {
          const SlotMeasurement &s = rank.slots[k];
          measured += static_cast<double>(s.sum) + static_cast<double>(s.removed_ticks);
          removed += static_cast<double>(s.removed_ticks);
        }
      }
      rank.corrected_share = measured > 0.0 ? removed / measured : 0.0;
    }
  }
}

} // namespace parjava::frontend
