// Repeating a timing until it is known well enough: the stopping rule netbench applies to every
// measured point (ping-pong size, collective, overhead). Pure C++, no MPI.
#pragma once

#include <cstdint>
#include <vector>

#include "parjava/machine/measurement.hpp"

namespace parjava::netbench {

struct SamplerOptions {
  int min_samples = 5;               // never stop before this many accepted samples
  int max_samples = 200;             // the cap
  double target_relative_ci = 0.05;  // stop when the 95 % CI half-width / mean is below this
  double time_budget_seconds = 0.25; // or when this much time has been spent on the point
};

// Collects samples (each the mean time of one batch of operations) and decides when to stop.
// Far outliers, above Q3 + 3 IQR (Tukey's "far out" fence), are set aside before the mean and
// the confidence interval are computed: on a shared node a preempted batch can be a thousand
// times slower than the others and says nothing about the network. They are counted in the
// result. The CI uses Student's t with n - 1 degrees of freedom.
class Sampler {
public:
  explicit Sampler(const SamplerOptions &options) : options_(options) {}

  void add(double seconds) { samples_.push_back(seconds); }
  [[nodiscard]] int count() const noexcept { return static_cast<int>(samples_.size()); }

  // True when the point is known to the target precision, the sample cap is reached, or
  // `elapsed_seconds` (time spent on this point so far) exceeds the budget with at least two
  // samples taken.
  [[nodiscard]] bool done(double elapsed_seconds) const;

  // Mean, 95 % CI half-width and counts over the accepted samples.
  [[nodiscard]] machine::MeasuredPoint result(std::uint64_t bytes, int operations_per_sample) const;

private:
  struct Summary {
    double mean = 0.0;
    double ci95 = 0.0;
    int accepted = 0;
    int discarded = 0;
  };
  [[nodiscard]] Summary summarise() const;

  SamplerOptions options_;
  std::vector<double> samples_;
};

// The 0.975 quantile of Student's t distribution with `degrees_of_freedom` (>= 1).
double student_t_975(int degrees_of_freedom);

} // namespace parjava::netbench
