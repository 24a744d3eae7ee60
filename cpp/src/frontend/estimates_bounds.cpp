#include "estimates_bounds.hpp"

#include <algorithm>
#include <cmath>

namespace parjava::frontend {

// Executions per process, range, and the largest drift any rank of the first run showed: the
// least-squares slope of the count over the rank's executions, times their number, over the
// mean, kept only where the slope is significant (|t| > 3), so that counts that vary from box
// to box but not over time read as stationary.
void measure_rewritten_bound(model::RewrittenBound &b, const Measurements &ms, std::uint32_t slot,
                             const SlotMeasurement &merged) {
  std::size_t files = 0;
  for (const auto &run : ms.runs) {
    files += run.size();
  }
  b.executions = static_cast<double>(executions_of(merged)) /
                 static_cast<double>(std::max<std::size_t>(files, 1));
  // Trip probes keep a histogram, not a range: more than its distinct values (overflow) is
  // variation enough, whatever the range.
  if (!merged.histogram.empty()) {
    const auto [lo, hi] =
        std::minmax_element(merged.histogram.begin(), merged.histogram.end(),
                            [](const auto &x, const auto &y) { return x.first < y.first; });
    b.min = static_cast<double>(lo->first);
    b.max = static_cast<double>(hi->first);
  }
  b.drift = 0.0;
  if (ms.runs.empty()) {
    return;
  }
  for (const RankRun &rank : ms.runs.front()) {
    if (slot >= rank.slots.size()) {
      continue;
    }
    const SlotMeasurement &r = rank.slots[slot];
    if (r.count < 3 || r.sum == 0) {
      continue;
    }
    const double c = static_cast<double>(r.count);
    const double sx = c * (c - 1) / 2;
    const double sxx = (c - 1) * c * (2 * c - 1) / 6;
    const double sy = static_cast<double>(r.sum);
    const double cov = c * r.trend - sx * sy;
    const double vx = c * sxx - sx * sx;
    const double vy = c * r.sumsq - sy * sy;
    if (!(vx > 0) || !(vy > 0)) {
      continue;
    }
    const double r2 = std::min(1.0, cov * cov / (vx * vy));
    if (r2 < 1.0 && r2 * (c - 2) / (1 - r2) <= 9.0) {
      continue;
    }
    const double drift = (cov / vx) * (c - 1) / (sy / c);
    if (std::abs(drift) > std::abs(b.drift)) {
      b.drift = drift;
    }
  }
}

} // namespace parjava::frontend
