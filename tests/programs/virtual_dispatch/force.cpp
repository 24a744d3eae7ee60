#include "force.h"

namespace {

// Pair forces: n^2 / 64 interactions per call.
class PairForce : public Force {
public:
  void compute(double *f, const double *x, int n) override {
    for (int i = 0; i < n; i++) {
      double s = 0.0;
      for (int j = i % 64; j < n; j += 64) {
        const double d = x[i] - x[j];
        s += d / (1.0 + d * d);
      }
      f[i] = s;
    }
    evaluations++;
  }
};

// A cheap external field: n interactions per call.
class FieldForce : public Force {
public:
  void compute(double *f, const double *x, int n) override {
    for (int i = 0; i < n; i++) {
      f[i] = -0.5 * x[i];
    }
    evaluations++;
  }
};

} // namespace

Force *make_force(int style) {
  if (style == 1) {
    return new FieldForce();
  }
  return new PairForce();
}
