/* A two-level relaxation whose levels are made by one function, as HPGMG-FV's create_level()
   makes each multigrid level on the heap: the loops over a level's cells read its fields
   through a pointer, the fields are set for two objects, and the model (one value per field of
   a heap object) times the loops as constants at the estimation input, whatever DIM the
   prediction gives. local_levels.c is the same with the levels local objects, which the model
   follows one by one.
   Usage: blocks DIM SWEEPS */
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
  level_t *fine = malloc(sizeof(level_t)), *coarse = malloc(sizeof(level_t));
  create_level(fine, dim);
  create_level(coarse, dim / 2);
  double sum = 0;
  for (int s = 0; s < sweeps; s++) {
    relax(fine, s);
    relax(coarse, s);
    MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  sum += fine->cells[dim + 1] + coarse->cells[dim / 2 + 1];
  free(fine->cells);
  free(coarse->cells);
  free(fine);
  free(coarse);
  printf("%g\n", sum);
  MPI_Finalize();
  return 0;
}
