// Loops whose bounds read an enclosing loop's counter (issue 12, counted loops stay counted):
// `for (i = 0; i < n; i++) for (j = i + 1; j < n; j++)`, the pairwise triangle of miniVite's
// graph generator, an LU factorisation's trailing update. Reduced as a nest, the inner loop's
// trips per execution are the average over the outer loop's iterations. The estimation used to
// keep the measured average (9999.5 at n = 20000), so the nest scaled as n where it runs n^2/2:
// at twice the vertices miniVite's generator was predicted 2x slower, and ran 3.9x slower.
#pragma once

#include <string>
#include <vector>

#include "parjava/frontend/estimates.hpp"

namespace parjava::frontend {

// A counted loop enclosing the one whose trips are averaged.
struct EnclosingCounter {
  std::string variable;  // the loop's counter, as the model names it
  std::string init;      // its first value (model text)
  std::string update;    // the counter's update (model text), e.g. "i + 1"
  std::string trips;     // the loop's trip count per execution (model text)
  double measured_trips; // its measured mean trips per execution (0: not measured)
};

// The average of `trips` (an expression reading the counter of one of `outer`) over that
// loop's iterations, as model text: the counter replaced by its mean, init + step * (trips -
// 1) / 2, which is exact when `trips` is affine in the counter. The substitution is made only
// when it is: the expression's slope in the counter is the same at every point tried (a
// clamp such as max(0, n - i - 1) is linear where the loop runs), the counter moves by a
// constant step, and the variance of the measured trips (`inner`: count, sum, sum of squares)
// is the one a uniform sweep of that slope gives, step^2 * slope^2 * (T^2 - 1) / 12 within
// 25 %. Returns "" otherwise (the caller keeps the measured mean).
std::string mean_over_enclosing(const std::string &trips,
                                const std::vector<EnclosingCounter> &outer,
                                const SlotMeasurement &inner);

} // namespace parjava::frontend
