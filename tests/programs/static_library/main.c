/* Relaxation sweeps over a local array, then a reduction; the solver comes from a static
 * library (see solver.h). Usage: ./relax N SWEEPS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "solver.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int n = argc > 1 ? atoi(argv[1]) : 100000;
  int sweeps = argc > 2 ? atoi(argv[2]) : 10;
  double *x = calloc((size_t)n, sizeof(double));
  x[0] = 1.0;
  x[n - 1] = 1.0;
  double local = relax(x, n, sweeps);
  double total = 0.0;
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("norm %g\n", total);
  }
  free(x);
  MPI_Finalize();
  return 0;
}
