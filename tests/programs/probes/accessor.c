/* Accessors called in the innermost loop of a measured nest and, once per step, beside the
   communication: ORNL minisweep's ref_facexz(), called by the sweep's kernels
   (sweeper_kba_c_kernels.h:706) and by the face exchange (faces_kba.c:134). Timed for their
   calls outside the nest, their probes ran in every call inside it too (minisweep's estimation
   code took 2.5-2.8x the program's time). ref() is straight-line code; cell() clamps its row
   with a branch. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double *ref(double *v, int nx, int ix, int iy) {
  const int at = ix + nx * iy;
  return &v[at];
}

static double *cell(double *v, int nx, int ny, int ix, int iy) {
  int row = iy;
  if (row >= ny) {
    row = ny - 1;
  }
  return &v[ix + nx * row];
}

static void sweep(double *v, int nx, int ny) {
  for (int iy = 1; iy < ny; ++iy) {
    for (int ix = 0; ix < nx; ++ix) {
      *ref(v, nx, ix, iy) = 0.5 * (*ref(v, nx, ix, iy - 1) + *cell(v, nx, ny, ix, iy)) + 1e-3;
    }
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int nx = argc > 1 ? atoi(argv[1]) : 256;
  const int ny = argc > 2 ? atoi(argv[2]) : 256;
  const int steps = argc > 3 ? atoi(argv[3]) : 100;
  double *v = calloc((size_t)nx * (size_t)ny, sizeof(double));
  for (int s = 0; s < steps; ++s) {
    sweep(v, nx, ny);
    double *face = s % 2 ? ref(v, nx, 0, ny - 1) : cell(v, nx, ny, 0, ny);
    MPI_Allreduce(MPI_IN_PLACE, face, nx, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  }
  printf("%g\n", v[(size_t)nx * (size_t)ny - 1]);
  free(v);
  MPI_Finalize();
  return 0;
}
