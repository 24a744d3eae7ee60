/* blocks.c with its two levels local objects of main, each made and relaxed through a pointer
   (issue 12 item 2): the model keeps each level's own fields through the pointer parameters'
   cells (record_pointers.hpp), so the loops over a level's cells scale with DIM.
   Usage: local_levels DIM SWEEPS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  int dim;
  double *cells;
} level_t;

static void create_level(level_t *level, int dim) {
  level->dim = dim;
  level->cells = calloc((size_t)dim * (size_t)dim, sizeof(double));
}

static void relax(level_t *level, int s) {
  double *c = level->cells;
  for (int j = 1; j < level->dim - 1; j++) {
    for (int i = 1; i < level->dim - 1; i++) {
      c[j * level->dim + i] =
          0.25 * (c[j * level->dim + i - 1] + c[j * level->dim + i + 1] + (double)s + 1.0);
    }
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int dim = argc > 1 ? atoi(argv[1]) : 256;
  int sweeps = argc > 2 ? atoi(argv[2]) : 10;
  level_t fine, coarse;
  create_level(&fine, dim);
  create_level(&coarse, dim / 2);
  double sum = 0, t0 = MPI_Wtime();
  for (int s = 0; s < sweeps; s++) {
    relax(&fine, s);
    relax(&coarse, s);
    MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  sum += fine.cells[dim + 1] + coarse.cells[dim / 2 + 1];
  free(fine.cells);
  free(coarse.cells);
  printf("%g time %f\n", sum, MPI_Wtime() - t0);
  MPI_Finalize();
  return 0;
}
