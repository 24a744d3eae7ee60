// C++ kernels that take their arrays as std::vector parameters (issue 12: state reached
// "through pointers and calls when the target is known"): a loop to `u.size()`, an interior
// `j + 1 < u.size()`, an iterator loop `it != u.end()`, each called on vectors of different
// sizes, and a helper that grows its argument by reference. The callee's size was the caller's,
// which the model did not carry: each loop was opaque, its trips measured at the estimation
// input and kept at every other.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

double total(const std::vector<double> &u) {
  double s = 0.0;
  for (auto it = u.begin(); it != u.end(); ++it) {
    s += *it;
  }
  return s;
}

double smooth(std::vector<double> &u) {
  double s = 0.0;
  for (std::size_t j = 1; j + 1 < u.size(); ++j) {
    u[j] = 0.25 * u[j - 1] + 0.5 * u[j] + 0.25 * u[j + 1];
    s += u[j];
  }
  return s;
}

void grow(std::vector<double> &u, int extra) {
  u.resize(u.size() + static_cast<std::size_t>(extra), 1.0);
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 100000;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 10;
  std::vector<double> a(static_cast<std::size_t>(n), 1.0);
  std::vector<double> b(static_cast<std::size_t>(2 * n), 1.0);
  double s = 0.0;
  for (int step = 0; step < steps; ++step) {
    s += total(a) + smooth(b) + total(b);
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  grow(a, 3 * n); // a holds 4n now
  for (int step = 0; step < steps; ++step) {
    s += smooth(a);
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  std::printf("sum %g\n", s);
  MPI_Finalize();
  return 0;
}
