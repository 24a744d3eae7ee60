/* Constructs a control tree cannot hold, and data-dependent control flow:
 *  - make_values() uses goto for its error handling: each goto leaves the statements before
 *    the label (a break in the model);
 *  - tree_sum() is recursive; its depth is a control parameter, so the model follows it;
 *  - newton() iterates `while (fabs(delta) > tol)` on data: its trip count is opaque;
 *  - a data-dependent `if` on the values of an array: its probability is opaque.
 *
 *   mpirun -np 2 ./irregular [depth=16] [points=2000]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* Allocates and fills the sample values, releasing what it allocated on failure: C's usual
 * goto-based cleanup. */
static double *make_values(int points, int rank) {
  double *values = malloc((size_t)points * sizeof(double));
  double *scratch = malloc((size_t)points * sizeof(double));
  if (values == NULL || scratch == NULL) {
    goto fail;
  }
  for (int i = 0; i < points; i++) {
    scratch[i] = (double)(((long long)i * 7919 + rank * 104729) % 100000);
  }
  for (int i = 0; i < points; i++) {
    values[i] = scratch[points - 1 - i] + 0.5;
    if (values[i] < 0.0) {
      goto fail;
    }
  }
  free(scratch);
  return values;
fail:
  free(values);
  free(scratch);
  return NULL;
}

static double tree_sum(int depth, double x) {
  if (depth == 0) {
    return x * 0.5 + 1.0;
  }
  return tree_sum(depth - 1, x * 0.7) + tree_sum(depth - 1, x * 0.3);
}

/* Newton's method for sqrt(a): the number of iterations depends on the value of a. */
static double newton(double a, double tol) {
  double x = a > 1.0 ? a : 1.0;
  double delta = x;
  while (fabs(delta) > tol) {
    double next = 0.5 * (x + a / x);
    delta = next - x;
    x = next;
  }
  return x;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int depth = argc > 1 ? atoi(argv[1]) : 16;
  int points = argc > 2 ? atoi(argv[2]) : 2000;
  if (depth < 1 || points < 1) {
    if (rank == 0) {
      fprintf(stderr, "usage: irregular [depth >= 1] [points >= 1]\n");
    }
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  double *values = make_values(points, rank);
  if (values == NULL) {
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  double local = tree_sum(depth, 1.0);
  int large = 0;
  for (int i = rank; i < points; i += size) {
    local += newton(values[i], 1e-12);
    if (values[i] > 50000.0) {
      large++;
    }
  }
  double total = 0.0;
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  double elapsed = MPI_Wtime() - start;
  if (rank == 0) {
    printf("total %g large %d\n", total, large);
    printf("time %.6f\n", elapsed);
  }
  free(values);
  MPI_Finalize();
  return 0;
}
