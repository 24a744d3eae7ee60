/* Ends as the ParRes kernels end: MPI_Finalize, then exit(EXIT_SUCCESS). exit() never returns,
 * so no probe after it ever counts it: the estimation run reports it as never executed. Usage:
 * ./finalize_exit N STEPS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc < 3) {
    if (rank == 0) {
      printf("Usage: %s <n> <steps>\n", *argv);
    }
    MPI_Finalize();
    exit(EXIT_FAILURE);
  }
  int n = atoi(argv[1]);
  int steps = atoi(argv[2]);
  double sum = 0.0;
  for (int s = 0; s < steps; ++s) {
    for (int i = 0; i < n; ++i) {
      sum += (double)(i ^ s) * 1e-6;
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (rank == 0) {
    printf("sum %g\n", sum);
  }
  MPI_Finalize();
  exit(EXIT_SUCCESS);
}
