// One loop, two instantiations (miniMD's compute_halfneigh<EVFLAG, GHOST_NEWTON>): the run
// uses sweep<1> on every step and sweep<2> only when asked to (never, by default). Both share
// one probe in the estimation code, since they share their source.
//   ./kernels N STEPS [EVERY]   (sweep<2> on every EVERY-th step when EVERY > 0)
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

template <int K> static double sweep(std::vector<double> &a) {
  double sum = 0.0;
  for (std::size_t i = 0; i < a.size(); i++) {
    a[i] = a[i] * 0.5 + K;
    sum += a[i];
  }
  return sum;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 200000;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 10;
  const int every = argc > 3 ? std::atoi(argv[3]) : 0;
  std::vector<double> a(n, 1.0);
  double total = 0.0;
  for (int s = 0; s < steps; s++) {
    if (every > 0 && s % every == 0) {
      total += sweep<2>(a);
    } else {
      total += sweep<1>(a);
    }
    MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  std::printf("%g\n", total);
  MPI_Finalize();
  return 0;
}
