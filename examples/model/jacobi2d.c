/* Jacobi iteration on an N x N grid, rows split across the ranks: halo exchange with the
 * neighbours (Isend/Irecv/Waitall), a 5-point stencil, and the global residual with
 * MPI_Allreduce every iteration.
 *
 *   mpirun -np 4 ./jacobi2d [N=512] [iterations=100]
 * Prints "time <seconds>" measured between the barriers around the iterations.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = argc > 1 ? atoi(argv[1]) : 512;
  int iterations = argc > 2 ? atoi(argv[2]) : 100;

  int rows = n / size + (rank < n % size ? 1 : 0);
  double *u = malloc((size_t)(rows + 2) * n * sizeof(double));
  double *unew = malloc((size_t)(rows + 2) * n * sizeof(double));
  for (int i = 0; i < (rows + 2) * n; i++) {
    u[i] = (double)(i % 7) / 7.0;
    unew[i] = 0.0;
  }
  int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  double residual = 0.0;

  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (int it = 0; it < iterations; it++) {
    MPI_Request req[4];
    MPI_Irecv(&u[0], n, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(&u[(rows + 1) * n], n, MPI_DOUBLE, down, 0, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(&u[n], n, MPI_DOUBLE, up, 0, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(&u[rows * n], n, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);

    double local = 0.0;
    for (int i = 1; i <= rows; i++) {
      for (int j = 1; j < n - 1; j++) {
        double v =
            0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] + u[i * n + j + 1]);
        double d = v - u[i * n + j];
        local += d * d;
        unew[i * n + j] = v;
      }
    }
    double *t = u;
    u = unew;
    unew = t;
    MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double elapsed = MPI_Wtime() - start;
  if (rank == 0) {
    printf("residual %g\n", residual);
    printf("time %.6f\n", elapsed);
  }
  free(u);
  free(unew);
  MPI_Finalize();
  return 0;
}
