/* Ranks queried through checked wrappers into locals that some functions never read again
 * (Quicksilver's MpiCommObject::exchange asks for its rank and size and uses neither). The
 * work per step is n * n / size multiply-adds, then a reduction. Usage: ./wrappers N STEPS */
#include "wrappers.h"

#include <stdio.h>
#include <stdlib.h>

static double sweep(int n, int steps) {
  int nRanks, myRank;
  checkedRank(MPI_COMM_WORLD, &myRank);
  checkedSize(MPI_COMM_WORLD, &nRanks);
  checkedBarrier(MPI_COMM_WORLD);
  double total = 0.0;
  for (int s = 0; s < steps; ++s) {
    int size;
    checkedSize(MPI_COMM_WORLD, &size);
    double local = 0.0;
    for (int i = 0; i < n / size; ++i) {
      for (int j = 0; j < n; ++j) {
        local += (double)(i + s) * 1e-9 * (double)j;
      }
    }
    double sum = 0.0;
    checkedAllreduce(&local, &sum, 1, MPI_COMM_WORLD);
    total += sum;
  }
  return total;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  checkedRank(MPI_COMM_WORLD, &rank);
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  int steps = argc > 2 ? atoi(argv[2]) : 10;
  double t0 = MPI_Wtime();
  double total = sweep(n, steps);
  double elapsed = MPI_Wtime() - t0;
  if (rank == 0) {
    printf("total %g elapsed %.6f\n", total, elapsed);
  }
  MPI_Finalize();
  return 0;
}
