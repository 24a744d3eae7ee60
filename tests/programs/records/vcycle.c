/* A V-cycle whose depth is data, as in HPCG's ComputeMG_ref (written for parjava's tests):
   each level points to the next coarser one, and the recursion goes on while that pointer is
   set, so the branch is taken three times and then not, in every cycle, on every rank. Each
   level smooths its own number of points and reduces a residual over all ranks.
   Usage: vcycle CYCLES POINTS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

struct Level {
  int n;
  double *x;
  struct Level *coarse;
};

static volatile double sink;

static void smooth(const struct Level *l) {
  double s = 0.0;
  for (int i = 0; i < l->n; ++i) {
    s += l->x[i] * 0.5;
  }
  sink += s;
}

static void vcycle(const struct Level *l) {
  smooth(l);
  if (l->coarse != NULL) {
    vcycle(l->coarse);
    smooth(l);
  }
  double local = l->x[0], global = 0.0;
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  sink += global;
}

static struct Level *build(int levels, int n) {
  struct Level *l = malloc(sizeof *l);
  l->n = n;
  l->x = malloc(sizeof(double) * (size_t)n);
  for (int i = 0; i < n; ++i) {
    l->x[i] = (double)(i % 5);
  }
  l->coarse = levels > 1 ? build(levels - 1, n / 8) : NULL;
  return l;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int cycles = argc > 1 ? atoi(argv[1]) : 10;
  const int points = argc > 2 ? atoi(argv[2]) : 1 << 18;
  struct Level *finest = build(4, points);
  double t0 = MPI_Wtime();
  for (int c = 0; c < cycles; ++c) {
    vcycle(finest);
  }
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    printf("cycles %d elapsed %.6f\n", cycles, MPI_Wtime() - t0);
  }
  MPI_Finalize();
  return 0;
}
