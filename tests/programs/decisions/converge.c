/* A solver loop ended by a data test (miniFE's CG: `k <= max_iter && normr > tolerance`) and a
 * time-step loop ended by its count (LULESH: `time < stoptime && cycle < its`): the model keeps
 * each loop's computed bound; only the first is ended early by its data. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double work(int n, double x) {
  for (int i = 0; i < n; ++i) {
    x = x * 0.999999 + 1e-9;
  }
  return x;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int max_iter = argc > 1 ? atoi(argv[1]) : 100;
  const int its = argc > 2 ? atoi(argv[2]) : 10;
  double normr = 1.0;
  const double tolerance = 1e-6;
  double x = 1.0;
  int k;
  for (k = 1; k <= max_iter && normr > tolerance; ++k) {
    x = work(20000, x);
    normr *= 0.5; /* converges after 20 iterations */
    MPI_Allreduce(MPI_IN_PLACE, &normr, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  }
  double time = 0.0;
  int cycle = 0;
  while (time < 1e9 && cycle < its) {
    x = work(20000, x);
    time += 1.0;
    cycle++;
    MPI_Barrier(MPI_COMM_WORLD);
  }
  printf("%d %g\n", k, x);
  MPI_Finalize();
  return 0;
}
