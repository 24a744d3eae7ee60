/* A time-stepping program whose work per step comes from data the steps rewrite (issue 13,
   rewritten bounds), in the three ways a count can behave:
   - `nblocks[0]`, like miniAMR's sorted_index, counts the blocks of a mesh that refine()
     doubles from step `onset` on: a run that stops before `onset` sees one count only;
   - `queue[0]` grows by two items every step: its count drifts during any run;
   - `cells[c]` changes every step around a fixed mean (atoms per cell): it varies, but a
     longer run sees the same distribution.
   Usage: mesh STEPS ONSET */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NCELLS 8

int *nblocks;
int *queue;
int *cells;
static unsigned seed = 12345u;
static volatile double sink;

static void work(int units) {
  double s = 0.0;
  for (int k = 0; k < units * 2000; k++) {
    s += k * 0.5;
  }
  sink += s;
}

static void refine(int step, int onset) {
  if (step >= onset && nblocks[0] < 64) {
    nblocks[0] = nblocks[0] * 2;
  }
  queue[0] += 2;
  for (int c = 0; c < NCELLS; c++) {
    seed = seed * 1103515245u + 12345u;
    cells[c] = 2 + (int)((seed >> 16) % 5u);
  }
}

static void compute(void) {
  for (int b = 0; b < nblocks[0]; b++) {
    work(10);
  }
  for (int q = 0; q < queue[0]; q++) {
    work(2);
  }
  for (int c = 0; c < NCELLS; c++) {
    for (int j = 0; j < cells[c]; j++) {
      work(1);
    }
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int steps = argc > 1 ? atoi(argv[1]) : 10;
  int onset = argc > 2 ? atoi(argv[2]) : 20;
  nblocks = malloc(sizeof(int));
  queue = malloc(sizeof(int));
  cells = malloc(NCELLS * sizeof(int));
  nblocks[0] = 4;
  queue[0] = 4;
  for (int c = 0; c < NCELLS; c++) {
    cells[c] = 4;
  }
  double total = 0.0;
  const double t0 = MPI_Wtime();
  for (int step = 0; step < steps; step++) {
    compute();
    double mine = (double)step;
    MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    refine(step, onset);
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    printf("blocks %d queue %d total %g elapsed %.6f\n", nblocks[0], queue[0], total,
           MPI_Wtime() - t0);
  }
  free(nblocks);
  free(queue);
  free(cells);
  MPI_Finalize();
  return 0;
}
