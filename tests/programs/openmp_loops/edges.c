// Boundary rows copied by `#pragma omp parallel for collapse(2)`, as UoB-HPC/arch's halos
// (omp3/halos.c) reflect a field's edges: a short region, run once per step, thousands of
// times. Nothing may stand between collapsed loops, so the inner loop is not counted, and each
// region's fork and join is a large part of its time.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void reflect(int nx, int pad, double *field) {
#pragma omp parallel for collapse(2)
  for (int dd = 0; dd < pad; ++dd) {
    for (int jj = pad; jj < nx - pad; ++jj) {
      field[dd * nx + jj] = 0.5 * field[(2 * pad - dd) * nx + jj];
    }
  }
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s nx steps\n", argv[0]);
    return EXIT_FAILURE;
  }
  const int nx = atoi(argv[1]);
  const int steps = atoi(argv[2]);
  MPI_Init(&argc, &argv);
  const double start = MPI_Wtime();
  double *field = calloc((size_t)nx * 8, sizeof(double));
  for (int k = 0; k < nx * 8; ++k) {
    field[k] = (double)(k % 5);
  }
  for (int s = 0; s < steps; ++s) {
    reflect(nx, 2, field);
  }
  printf("edge %g time %f\n", field[3], MPI_Wtime() - start);
  free(field);
  MPI_Finalize();
  return 0;
}
