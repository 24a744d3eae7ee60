/* A stencil over static arrays (no heap the estimation could see, so the nest's working set is
 * unknown: mrnorman/miniWeather keeps its state in globals allocated once), n x n cells of a
 * fixed-size table; n from the command line, a reduction every step (the step loop stays a
 * loop; its two sweeps are nests run once per step). Estimated on a small grid and predicted on
 * a large one, the model prices every cell at the small grid's cost: the prediction must say so. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXN 1024
static double in[MAXN * MAXN];
static double out[MAXN * MAXN];

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? atoi(argv[1]) : 64;
  const int steps = argc > 2 ? atoi(argv[2]) : 50;
  if (n < 3 || n > MAXN) {
    fprintf(stderr, "n must be in 3..%d\n", MAXN);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const double start = MPI_Wtime();
  for (int step = 0; step < steps; ++step) {
    for (int i = 1; i < n - 1; ++i) {
      for (int j = 1; j < n - 1; ++j) {
        out[i * MAXN + j] = 0.25 * (in[(i - 1) * MAXN + j] + in[(i + 1) * MAXN + j] +
                                    in[i * MAXN + j - 1] + in[i * MAXN + j + 1]);
      }
    }
    for (int i = 1; i < n - 1; ++i) {
      for (int j = 1; j < n - 1; ++j) {
        in[i * MAXN + j] = out[i * MAXN + j] + 1e-3;
      }
    }
    MPI_Allreduce(MPI_IN_PLACE, &in[MAXN + 1], 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  double sum = 0.0;
  MPI_Allreduce(&in[MAXN + 1], &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  printf("sum %g time %.6f\n", sum, MPI_Wtime() - start);
  MPI_Finalize();
  return 0;
}
