// Several estimation runs reduced to one set of measurements (see estimates.hpp, combine_runs).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "parjava/error.hpp"
#include "parjava/frontend/estimates.hpp"

namespace parjava::frontend {

namespace {

// Iterations: an OpenMP loop's stretches (probe cost per iteration, the iteration calibration);
// Construct: an OpenMP loop timed whole (a pair per execution, spread over its iterations: none
// per sample); Stepped: a fragment's single timed iterations (a probe pair each).
enum class SlotUse : std::uint8_t { Counter, Timed, Iterations, Construct, Stepped };

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// What a probe pair costs the slot's samples in a run: the correction apply_estimates makes
// (seed 003 notes §6.5). Iteration samples are taken by one timestamp per iteration, so each
// carries a single probe event, not a pair.
double overhead_ticks(const SlotMeasurement &s, const Measurements &run, SlotUse use) {
  if (use == SlotUse::Iterations) {
    return static_cast<double>(s.count) * run.iteration_sample_ticks();
  }
  if (use == SlotUse::Construct) {
    return 0.0;
  }
  if (use == SlotUse::Stepped) {
    return static_cast<double>(s.count) * run.pair_ticks;
  }
  return static_cast<double>(s.count) * run.self_ticks +
         static_cast<double>(s.nested) * run.pair_ticks +
         static_cast<double>(s.counters) * run.counter_ticks +
         static_cast<double>(s.skips) * run.skip_ticks +
         static_cast<double>(s.counter_skips) * run.uncounted_ticks;
}

double key(const SlotMeasurement &s, const Measurements &run, SlotUse use) {
  if (s.count == 0) {
    return 0.0;
  }
  const double n = static_cast<double>(s.count);
  if (use == SlotUse::Counter) {
    return (static_cast<double>(s.sum) + s.dsum) / n;
  }
  return (static_cast<double>(s.sum) - overhead_ticks(s, run, use)) / n / run.ticks_per_second;
}

} // namespace

Measurements combine_runs(const std::vector<Measurements> &runs, const EstimationPlan &plan,
                          RunStatistic statistic) {
  if (runs.empty()) {
    throw Error(ErrorKind::Run, "no estimation run to combine");
  }
  if (runs.size() == 1) {
    return runs.front();
  }
  const std::size_t slots = runs.front().slots.size();
  for (std::size_t r = 1; r < runs.size(); ++r) {
    if (runs[r].slots.size() != slots || runs[r].files != runs.front().files) {
      throw Error(ErrorKind::Run,
                  "estimation run " + std::to_string(r + 1) + " wrote " +
                      std::to_string(runs[r].files) + " files with " +
                      std::to_string(runs[r].slots.size()) + " slots, but run 1 wrote " +
                      std::to_string(runs.front().files) + " with " + std::to_string(slots));
    }
  }
  std::vector<SlotUse> use(slots, SlotUse::Counter);
  for (const Probe &p : plan.probes) {
    if (p.slot >= slots) {
      continue;
    }
    switch (p.kind) {
    case ProbeKind::Block:
    case ProbeKind::Fragment:
    case ProbeKind::Function:
    case ProbeKind::Prologue:
      use[p.slot] = SlotUse::Timed;
      break;
    case ProbeKind::Iterations: {
      const PlannedLoop *loop = plan.loop(p.node);
      use[p.slot] = loop == nullptr || !loop->by_iterations ? SlotUse::Stepped
                    : loop->by_construct                    ? SlotUse::Construct
                                                            : SlotUse::Iterations;
      break;
    }
    case ProbeKind::Trips:
    case ProbeKind::Branch:
    case ProbeKind::Switch:
    case ProbeKind::Value:
    case ProbeKind::Sized:
    case ProbeKind::Input:
      break;
    }
  }
  Measurements out;
  out.files = runs.front().files;
  out.cpus = runs.front().cpus;
  for (const auto &r : runs) {
    out.runs.insert(out.runs.end(), r.runs.begin(), r.runs.end());
  }
  // The calibration: the runs' mean when their samples are pooled, else their median.
  std::vector<double> values(runs.size());
  const auto combined = [&](double Measurements::*field) {
    for (std::size_t r = 0; r < runs.size(); ++r) {
      values[r] = runs[r].*field;
    }
    if (statistic != RunStatistic::Mean) {
      return median(values);
    }
    double sum = 0.0;
    for (double v : values) {
      sum += v;
    }
    return sum / static_cast<double>(values.size());
  };
  out.ticks_per_second = combined(&Measurements::ticks_per_second);
  out.self_ticks = combined(&Measurements::self_ticks);
  out.pair_ticks = combined(&Measurements::pair_ticks);
  out.counter_ticks = combined(&Measurements::counter_ticks);
  out.skip_ticks = combined(&Measurements::skip_ticks);
  out.branch_ticks = combined(&Measurements::branch_ticks);
  out.uncounted_ticks = combined(&Measurements::uncounted_ticks);
  out.iteration_ticks = combined(&Measurements::iteration_ticks);
  if (statistic == RunStatistic::Mean) {
    out.slots.resize(slots);
    for (const auto &r : runs) {
      for (std::size_t k = 0; k < slots; ++k) {
        accumulate(out.slots[k], r.slots[k]);
      }
    }
    return out;
  }

  out.slots.resize(slots);
  std::vector<std::size_t> order(runs.size());
  for (std::size_t k = 0; k < slots; ++k) {
    for (std::size_t r = 0; r < runs.size(); ++r) {
      order[r] = r;
    }
    const auto value = [&](std::size_t r) { return key(runs[r].slots[k], runs[r], use[k]); };
    // Counters (trip counts, branch frequencies) describe the program, not the machine: the
    // median run's, whichever statistic the times use.
    const std::size_t pick =
        statistic == RunStatistic::Minimum && use[k] != SlotUse::Counter ? 0 : runs.size() / 2;
    std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(pick), order.end(),
                     [&](std::size_t a, std::size_t b) { return value(a) < value(b); });
    const Measurements &chosen = runs[order[pick]];
    SlotMeasurement s = chosen.slots[k];
    if (use[k] != SlotUse::Counter && s.count > 0) {
      // The same corrected time under the combined calibration.
      const double corrected_seconds =
          (static_cast<double>(s.sum) - overhead_ticks(s, chosen, use[k])) /
          chosen.ticks_per_second;
      const double sum =
          std::max(0.0, corrected_seconds * out.ticks_per_second + overhead_ticks(s, out, use[k]));
      const double scale = out.ticks_per_second / chosen.ticks_per_second;
      s.sum = static_cast<std::uint64_t>(std::llround(sum));
      s.sumsq *= scale * scale;
    }
    out.slots[k] = std::move(s);
  }
  return out;
}

void scale_probe_costs(Measurements &m, double scale) {
  if (!(scale >= 0.0 && scale <= 1.0)) {
    throw Error(ErrorKind::Usage,
                "probe_scale must be within [0, 1], got " + std::to_string(scale));
  }
  // A calibration loop is a dependency chain, where a probe's counter increment or clock read
  // costs its full latency; in a loop whose work leaves the core idle slots (search.c's
  // division chain) the same probe costs almost nothing, and the calibrated cost took 30 % of
  // the run off a loop that the probes had slowed by 5 %. The self-cost of an empty pair is
  // part of every sample as it was read, and stays.
  m.pair_ticks *= scale;
  m.counter_ticks *= scale;
  m.skip_ticks *= scale;
  m.branch_ticks *= scale;
  m.uncounted_ticks *= scale;
  m.iteration_ticks *= scale;
}

} // namespace parjava::frontend
