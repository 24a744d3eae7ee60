/* A program that returns from main without MPI_Finalize, as UoB-HPC/flow's main does: mpirun
 * reports the job as failed ("exiting improperly"), though every rank ended well.
 * Usage: ./no_finalize N STEPS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int n = argc > 1 ? atoi(argv[1]) : 1000;
  const int steps = argc > 2 ? atoi(argv[2]) : 10;
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
  return 0;
}
