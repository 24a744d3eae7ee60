/* A search loop left by `return` from inside, entered once per particle and step, the way
   LLNL/Quicksilver's MCT_Nearest_Facet_3D_G loops `while (true)` until `if (!retry) return
   nearest_facet;`. Without communication it was timed whole, as one fragment, and its records
   came after the loop, so a return skipped them: the run "never executed" it. Recorded before
   the return too, its time per execution still did not fit the model's copy of the loop, which
   ends by the return's branch, unmeasured inside the fragment. Usage: search PARTICLES STEPS. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static long searches;

static void count_search(void) { ++searches; }

static int nearest(const double *x, int n, double target, int start) {
  int i;
  count_search();
  for (i = start; i < n; ++i) { /* returns when the cell is found */
    double d = 0.0;
    int k;
    for (k = 0; k < 16; ++k) d += x[(i + k) % n] * 1e-9;
    if (x[i] + d >= target) return i;
  }
  return n - 1;
}

int main(int argc, char **argv) {
  int rank, size, particles, steps, step, p, n = 512, i;
  long found = 0, total = 0;
  double *x, wall;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  particles = (argc > 1 ? atoi(argv[1]) : 20000) / size;
  steps = argc > 2 ? atoi(argv[2]) : 10;
  x = (double *)malloc((size_t)n * sizeof(double));
  for (i = 0; i < n; ++i) x[i] = (double)i / n;
  wall = MPI_Wtime();
  for (step = 0; step < steps; ++step) {
    for (p = 0; p < particles; ++p) {
      found += nearest(x, n, 0.9 * (double)((p * 7919 + step) % 1000) / 1000.0, (p * 31) % 64);
    }
    MPI_Allreduce(&found, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  }
  wall = MPI_Wtime() - wall;
  if (rank == 0) printf("found %ld wall %.6f\n", total, wall);
  free(x);
  MPI_Finalize();
  return 0;
}
