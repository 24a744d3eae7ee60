#include "parjava/netbench/sampler.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

namespace parjava::netbench {

double student_t_975(int degrees_of_freedom) {
  // Exact table for small samples, where the correction matters most.
  static constexpr std::array<double, 30> table{
      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
      2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
      2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (degrees_of_freedom < 1) {
    return table[0];
  }
  if (degrees_of_freedom <= static_cast<int>(table.size())) {
    return table[static_cast<std::size_t>(degrees_of_freedom - 1)];
  }
  // Cornish-Fisher expansion around the normal quantile; error < 1e-3 beyond 30 d.o.f.
  const double z = 1.959964;
  const double nu = degrees_of_freedom;
  return z + (z * z * z + z) / (4.0 * nu) +
         (5.0 * std::pow(z, 5) + 16.0 * z * z * z + 3.0 * z) / (96.0 * nu * nu);
}

Sampler::Summary Sampler::summarise() const {
  Summary summary;
  if (samples_.empty()) {
    return summary;
  }
  std::vector<double> sorted = samples_;
  std::sort(sorted.begin(), sorted.end());
  double fence = sorted.back();
  if (sorted.size() >= 4) {
    const auto quantile = [&](double q) {
      const double position = q * static_cast<double>(sorted.size() - 1);
      const auto below = static_cast<std::size_t>(std::floor(position));
      const auto above = std::min(below + 1, sorted.size() - 1);
      return sorted[below] +
             (position - static_cast<double>(below)) * (sorted[above] - sorted[below]);
    };
    const double q1 = quantile(0.25);
    const double q3 = quantile(0.75);
    fence = q3 + 3.0 * (q3 - q1);
  }
  double sum = 0.0;
  for (double s : sorted) {
    if (s <= fence) {
      sum += s;
      ++summary.accepted;
    }
  }
  summary.discarded = static_cast<int>(sorted.size()) - summary.accepted;
  summary.mean = sum / summary.accepted;
  if (summary.accepted >= 2) {
    double squares = 0.0;
    for (double s : sorted) {
      if (s <= fence) {
        squares += (s - summary.mean) * (s - summary.mean);
      }
    }
    const double deviation = std::sqrt(squares / (summary.accepted - 1));
    summary.ci95 = student_t_975(summary.accepted - 1) * deviation / std::sqrt(summary.accepted);
  }
  return summary;
}

bool Sampler::done(double elapsed_seconds) const {
  const int n = count();
  if (n >= options_.max_samples) {
    return true;
  }
  if (n >= 2 && elapsed_seconds >= options_.time_budget_seconds) {
    return true;
  }
  const Summary summary = summarise();
  if (summary.accepted < options_.min_samples) {
    return false;
  }
  return summary.mean > 0.0 && summary.ci95 / summary.mean < options_.target_relative_ci;
}

machine::MeasuredPoint Sampler::result(std::uint64_t bytes, int operations_per_sample) const {
  const Summary summary = summarise();
  machine::MeasuredPoint point;
  point.bytes = bytes;
  point.seconds = summary.mean;
  point.ci95 = summary.ci95;
  point.samples = summary.accepted;
  point.discarded = summary.discarded;
  point.operations_per_sample = operations_per_sample;
  return point;
}

} // namespace parjava::netbench
