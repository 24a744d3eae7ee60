// Loading the estimation run's results into the model (seed 000 notes §1.5 step 5 "Load
// Estimations", §3.7, §4; seed 003 notes §6.3 step 4): block times with their mean, σ and
// sample count, branch probabilities and trip counts of opaque conditions, the values of MPI
// arguments the model cannot compute, and the reduction of loops without communication to
// blocks whose time is an expression of their trip counts, so that times measured on a small
// input predict a large one.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "parjava/frontend/diagnostic.hpp"
#include "parjava/frontend/estimation_plan.hpp"
#include "parjava/model/model.hpp"

namespace parjava::frontend {

// One slot of the estimates files, summed over threads and ranks.
struct SlotMeasurement {
  std::uint64_t count = 0;
  std::uint64_t sum = 0;
  double sumsq = 0.0;
  std::uint64_t min = 0;
  std::uint64_t max = 0;
  std::uint64_t nested = 0;
  double dsum = 0.0;
  std::uint64_t overflow = 0;
  std::vector<std::pair<std::int64_t, std::uint64_t>> histogram; // value, occurrences
};

struct Measurements {
  double ticks_per_second = 0.0;
  double self_ticks = 0.0; // what an empty probe pair reports
  double pair_ticks = 0.0; // what one probe event costs an enclosing measurement
  std::size_t files = 0;   // one per rank
  std::vector<SlotMeasurement> slots;
};

// Read and merge estimates files (parjava-estimates.<rank>.<pid>.txt); throws Error(Run) when
// none is given, one is malformed, or they disagree on the number of slots.
Measurements load_estimates(const std::vector<std::string> &files, std::uint32_t slots);

struct ApplyOptions {
  double balance_alpha = 0.1; // balanced loop: D <= alpha * T_mean (notes 000 §3.7.3, α = 0.1)
  bool reduce_loops = true;   // replace measured loops without communication by blocks
};

// Put the measurements into the model (validated afterwards) and say what was done, per node:
// measured blocks, balanced / unbalanced loops, reductions, opaque statistics, the error bound
// 3σ/√N of every measured time (notes 000 §4, Theorem 1), and what was never executed.
std::vector<Diagnostic> apply_estimates(model::Model &model, const EstimationPlan &plan,
                                        const Measurements &measurements,
                                        const ApplyOptions &options = {});

} // namespace parjava::frontend
