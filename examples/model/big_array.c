/* A program whose data does not fit a laptop: `n` doubles per process (n = 134217728 is 1 GiB)
 * swept `sweeps` times, with a global sum after every sweep. The reduced model keeps none of the
 * data: it loads and interprets in a few megabytes (benchmarks/frontend_memory.py).
 *
 *   mpirun -np 2 ./big_array [n=134217728] [sweeps=4]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long n = argc > 1 ? atol(argv[1]) : 134217728L;
  int sweeps = argc > 2 ? atoi(argv[2]) : 4;
  double *a = malloc((size_t)n * sizeof(double));
  if (a == NULL) {
    fprintf(stderr, "cannot allocate %ld doubles\n", n);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (long i = 0; i < n; i++) {
    a[i] = (double)(i % 1000) * 1e-3;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  double sum = 0.0;
  for (int s = 0; s < sweeps; s++) {
    double local = 0.0;
    for (long i = 0; i < n; i++) {
      a[i] = a[i] * 0.5 + 0.25;
      local += a[i];
    }
    MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double elapsed = MPI_Wtime() - start;
  if (rank == 0) {
    printf("sum %g\n", sum);
    printf("time %.6f\n", elapsed);
  }
  free(a);
  MPI_Finalize();
  return 0;
}
