/* A solver that may hold a nested solver for its coarsest level, destroyed recursively, as
 * hypre's BoomerAMG does (`if (amg) hypre_BoomerAMGDestroy(amg);`): the pointer is data, so the
 * recursion's guard is opaque, and the estimation run measures it never taken. Usage:
 * ./nested N STEPS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct Solver {
  double *work;
  int n;
  struct Solver *coarse; /* a nested solver: none in this program's runs */
} Solver;

static Solver *create(int n) {
  Solver *s = calloc(1, sizeof(Solver));
  s->n = n;
  s->work = calloc((size_t)n, sizeof(double));
  return s;
}

static void destroy(Solver *s) {
  MPI_Barrier(MPI_COMM_WORLD);
  free(s->work);
  if (s->coarse) {
    destroy(s->coarse);
  }
  free(s);
}

static double relax(Solver *s, int steps) {
  double total = 0.0;
  for (int k = 0; k < steps; ++k) {
    double local = 0.0;
    for (int i = 1; i < s->n; ++i) {
      s->work[i] = 0.5 * (s->work[i - 1] + (double)i * 1e-6);
      local += s->work[i];
    }
    double sum = 0.0;
    MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    total += sum;
  }
  return total;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 100000;
  int steps = argc > 2 ? atoi(argv[2]) : 10;
  Solver *s = create(n);
  double total = relax(s, steps);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    printf("total %g\n", total);
  }
  destroy(s);
  MPI_Finalize();
  return 0;
}
