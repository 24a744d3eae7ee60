// A work-sharing loop whose body synchronises the threads (miniVite's `omp atomic` updates per
// vertex), so the model keeps it, over a count held in data (the vertices a filter kept): each
// thread counts its share, or the model runs one iteration of it per step.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

static double work(long i, const std::vector<double> &v) {
  double s = 0.0;
  for (int k = 0; k < 100; ++k) {
    s += v[(i + k) % v.size()] * 1.0000001;
  }
  return s;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const long n = argc > 1 ? atol(argv[1]) : 8000;
  std::vector<double> v;
  for (long i = 0; i < n; ++i) {
    if (i % 4 != 0) {
      v.push_back(1.0);
    }
  }
  const long nv = static_cast<long>(v.size());
  std::vector<double> out(nv, 0.0);
  double total = 0.0;
  for (int step = 0; step < 5; ++step) {
#pragma omp parallel default(shared)
    {
#pragma omp for schedule(guided)
      for (long i = 0; i < nv; i++) {
        out[i] = work(i, v);
#pragma omp atomic
        total += 1e-9;
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  std::printf("%g %g\n", total, out[0]);
  MPI_Finalize();
  return 0;
}
