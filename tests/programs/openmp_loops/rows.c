// A 2-D sweep whose rows an `omp parallel for` shares out and whose columns are an inner loop,
// once under `#pragma omp simd` and once plain, as UoB-HPC/flow's kernels are written
// (omp3/flow.c). The work per row is the column count, which the command line sets.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void relax(int nx, int ny, const double *in, double *out) {
#pragma omp parallel for
  for (int ii = 1; ii < ny - 1; ++ii) {
#pragma omp simd
    for (int jj = 1; jj < nx - 1; ++jj) {
      out[ii * nx + jj] = 0.25 * (in[ii * nx + jj - 1] + in[ii * nx + jj + 1] +
                                  in[(ii - 1) * nx + jj] + in[(ii + 1) * nx + jj]);
    }
  }
}

static double energy(int nx, int ny, const double *field) {
  double total = 0.0;
#pragma omp parallel for reduction(+ : total)
  for (int ii = 1; ii < ny - 1; ++ii) {
    for (int jj = 1; jj < nx - 1; ++jj) {
      total += field[ii * nx + jj] * field[ii * nx + jj];
    }
  }
  return total;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s nx ny steps\n", argv[0]);
    return EXIT_FAILURE;
  }
  const int nx = atoi(argv[1]);
  const int ny = atoi(argv[2]);
  const int steps = atoi(argv[3]);
  MPI_Init(&argc, &argv);
  const double start = MPI_Wtime();
  double *a = calloc((size_t)nx * (size_t)ny, sizeof(double));
  double *b = calloc((size_t)nx * (size_t)ny, sizeof(double));
  for (int k = 0; k < nx * ny; ++k) {
    a[k] = (double)(k % 7);
  }
  double total = 0.0;
  for (int s = 0; s < steps; ++s) {
    relax(nx, ny, a, b);
    relax(nx, ny, b, a);
    total += energy(nx, ny, a);
  }
  printf("total %g time %f\n", total, MPI_Wtime() - start);
  free(a);
  free(b);
  MPI_Finalize();
  return 0;
}
