/* Pairwise work over a triangle (miniVite's graph generator: j from i + 1 to n), the lower
 * triangle of a factorisation (j below i), and a band the triangle's formula does not describe
 * (j from i up to a bound m below n, so the inner count is clamped at zero for i >= m): the
 * first two nests run n^2/2 bodies, the model must scale them so. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double pair(int i, int j) { return 1.0 / (1.0 + (double)(i ^ j)); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? atoi(argv[1]) : 400;
  const int m = n / 4;
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    for (int j = i + 1; j < n; j++) {
      s += pair(i, j);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < i; j++) {
      s -= 0.5 * pair(j, i);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < n; i++) {
    for (int j = i; j < m; j++) {
      s += 0.25 * pair(i, j);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%g\n", s);
  MPI_Finalize();
  return 0;
}
