/* Work only a rank with a neighbour does (miniVite's generator pairs its vertices with the next
 * rank's when there is one): at np 1 it never runs, so the estimation measures no time for it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = argc > 1 ? atoi(argv[1]) : 2000;
  double s = 0.0;
  for (int i = 0; i < n; ++i) {
    s += 1.0 / (1.0 + i);
  }
  if (rank + 1 < size) {
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        s += 1.0 / (1.0 + i + j);
      }
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  printf("%g\n", s);
  MPI_Finalize();
  return 0;
}
