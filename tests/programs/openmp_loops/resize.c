/* miniMD's neighbour build (Mantevo/miniMD ref/neighbor.cpp:120): an OpenMP loop over the atoms
   inside `while (resize)`, setting `resize` when an atom has more neighbours than a row holds;
   the rows then grow and the loop runs again. The loop is timed whole from outside its
   directive, and it cannot become a block (it sets `resize`, read after it): its time went
   nowhere, its body having no probe of its own. The rows here are large enough from the start,
   as miniMD's mostly are: a branch inside a loop timed whole is not counted, so a second pass
   of `while (resize)` would be the model's guess. Usage: resize ATOMS STEPS. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int resize;
static int row = 16; /* large enough: this program's rows never grow */

static void build(const double *x, int n, int *list, int *counts) {
  resize = 1;
  while (resize) {
    resize = 0;
#pragma omp parallel for
    for (int i = 0; i < n; i++) {
      int c = 0;
      for (int j = 0; j < n; j++) {
        if (j != i && fabs(x[i] - x[j]) < 0.002) {
          if (c < row) list[i * 64 + c] = j;
          c++;
        }
      }
      counts[i] = c;
      if (c > row) resize = 1;
    }
    if (resize) row *= 2;
  }
}

int main(int argc, char **argv) {
  int rank, n, steps;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  n = argc > 1 ? atoi(argv[1]) : 3000;
  steps = argc > 2 ? atoi(argv[2]) : 10;
  double *x = (double *)malloc((size_t)n * sizeof(double));
  int *list = (int *)malloc((size_t)n * 64 * sizeof(int));
  int *counts = (int *)malloc((size_t)n * sizeof(int));
  for (int i = 0; i < n; i++) x[i] = (double)((i * 7919) % n) / n;
  double wall = MPI_Wtime(), total = 0.0, sum = 0.0;
  for (int s = 0; s < steps; s++) {
    build(x, n, list, counts);
    double mine = 0.0;
    for (int i = 0; i < n; i++) mine += counts[i];
    MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    total += sum;
  }
  wall = MPI_Wtime() - wall;
  if (rank == 0) printf("neighbours %.0f row %d wall %.6f\n", total, row, wall);
  free(x);
  free(list);
  free(counts);
  MPI_Finalize();
  return 0;
}
