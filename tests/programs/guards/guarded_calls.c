/* Calls that only some evaluations of a statement make: a branch of ?:, the right of && and
   ||, in an assignment, a return and an if's condition (issue 13: never silently wrong; the
   model once ran both calls of `c ? f() : g()` on every evaluation). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double work(long n) {
  double s = 0;
  for (long i = 0; i < n; ++i) {
    s += (double)i * 1e-9;
  }
  return s;
}

static double light(void) { return work(200000); }
static double heavy(void) { return work(4000000); }
static int extras = 0;
static double extra(void) {
  ++extras;
  return work(1000000);
}

static double pick(int odd) { return odd ? heavy() : light(); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int steps = argc > 1 ? atoi(argv[1]) : 20;
  double *noise = malloc((size_t)steps * sizeof *noise);
  srand(7);
  for (int t = 0; t < steps; ++t) {
    noise[t] = (double)rand() / RAND_MAX; /* data: the model cannot compute it */
  }
  double s = 0;
  int hits = 0;
  for (int t = 0; t < steps; ++t) {
    s += (rank % 2 == 0) ? light() : heavy(); /* a control guard: the model evaluates it */
    s += pick(rank % 2);
    hits += noise[t] < 0.25 || extra() > 0; /* a data guard: the estimation counts it */
    if (noise[t] > 0.5 && extra() > 0) {
      ++hits;
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  printf("%g %d\nextra calls: %d\n", s, hits, extras);
  free(noise);
  MPI_Finalize();
  return 0;
}
