// A header-only kernel, found through -I (as miniFE's utils/ headers are).
#ifndef KERN_SWEEP_HPP
#define KERN_SWEEP_HPP

#include <vector>

namespace kern {

// One relaxation sweep over the ids a helper collected: the work of the program.
template <typename T> T sweep(std::vector<T> &x, const std::vector<int> &ids, int reps) {
  T sum = 0;
  for (int r = 0; r < reps; ++r) {
    for (std::size_t k = 1; k + 1 < ids.size(); ++k) {
      const int i = ids[k];
      x[i] = (x[i - 1] + 2 * x[i] + x[i + 1]) * T(0.25);
      sum += x[i];
    }
  }
  return sum;
}

} // namespace kern

#endif
