/* A 3-D halo exchange that picks which of its 27 neighbour directions to send to from
   per-direction tables (faces, edges, corners) combined in a loop and chosen by the stencil's
   shape, then sends in the directions the table marks. The model keeps one variable per table
   element, so each read by the loop index is a 27-way choice, and the combined table a choice
   of sums of choices: an expression of hundreds of nodes that evaluates a few deep.
   Usage: halo27 WORK STEPS SHAPE (SHAPE 0: faces, 1: faces and edges, 2: all 26). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double relax(int n, double x) {
  for (int i = 0; i < n; ++i) {
    x = x * 0.999 + 0.001 * (double)i;
  }
  return x;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int work = argc > 1 ? atoi(argv[1]) : 100000;
  int steps = argc > 2 ? atoi(argv[2]) : 20;
  int shape = argc > 3 ? atoi(argv[3]) : 0;

  int faces[27] = {0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};
  int edges[27] = {0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0};
  int corners[27] = {1, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 1};
  int n, exchange[27];
  for (n = 0; n < 27; n++)
    exchange[n] = faces[n] + edges[n] + corners[n];
  switch (shape) {
  case 0:
    for (n = 0; n < 27; n++)
      exchange[n] = faces[n];
    break;
  case 1:
    for (n = 0; n < 27; n++)
      exchange[n] = faces[n] + edges[n];
    break;
  }

  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  double x = rank, ghost = 0;
  for (int s = 0; s < steps; ++s) {
    for (n = 0; n < 27; n++) {
      if (exchange[n]) {
        x = relax(work, x);
        MPI_Sendrecv(&x, 1, MPI_DOUBLE, right, n, &ghost, 1, MPI_DOUBLE, left, n, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        x += 1e-9 * ghost;
      }
    }
  }
  if (rank == 0)
    printf("%g\n", x);
  MPI_Finalize();
  return 0;
}
