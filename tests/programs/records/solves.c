/* Solves whose iteration counts are data, as HPCG's CG runs 50, 11, 50, 11, 1, 1 iterations
   (written for parjava's tests): each solve halves a residual until it is below its tolerance,
   so the counts follow the tolerances (4, 10, 7 per round); only the second solve of a round is
   preconditioned, with a reduction over all ranks per iteration.
   Usage: solves ROUNDS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

static void work(int n) {
  double s = 0.0;
  for (int i = 0; i < n; ++i) {
    s += i * 1e-9;
  }
  sink += s;
}

static int solve(double tolerance, int precondition) {
  double residual = 1.0;
  int iterations = 0;
  while (residual > tolerance) {
    work(20000);
    if (precondition) {
      double local = residual, global = 0.0;
      MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      work(200000);
    }
    residual = 0.5 * residual + 1e-30 * rand(); /* data the model does not follow */
    ++iterations;
  }
  return iterations;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rounds = argc > 1 ? atoi(argv[1]) : 2;
  int total = 0;
  for (int r = 0; r < rounds; ++r) {
    total += solve(0.1, 0);
    total += solve(0.001, 1);
    total += solve(0.01, 0);
  }
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    printf("iterations %d\n", total);
  }
  MPI_Finalize();
  return 0;
}
