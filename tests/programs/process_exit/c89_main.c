/* ANSI C as ORNL minisweep writes it (built with -ansi): main ends without a return, which C89
 * leaves the exit status of undefined (C99 made it 0). Usage: ./c89_main N STEPS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double sum_steps(int n, int steps) {
  double sum = 0.0;
  int s, i;
  for (s = 0; s < steps; ++s) {
    for (i = 0; i < n; ++i) {
      sum += (double)(i ^ s) * 1e-6;
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  return sum;
}

int main(int argc, char **argv) {
  int rank;
  double sum;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  sum = sum_steps(argc > 1 ? atoi(argv[1]) : 1000, argc > 2 ? atoi(argv[2]) : 10);
  if (rank == 0) {
    printf("sum %g\n", sum);
  }
  MPI_Finalize();
}
