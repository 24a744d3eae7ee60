/* Persistent requests (MPI 4.0 §3.9), as halo codes set them up: the four requests of a
 * periodic 1-D halo exchange are made once with MPI_Recv_init / MPI_Send_init, and every step
 * starts them (MPI_Startall for the receives, MPI_Start for each send) and waits for all four.
 * Our own program, written for parjava's tests (mpi_coverage.c's persistent calls made the
 * model builder fail). Arguments: cells per rank, steps; prints `time X` (rank 0). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = argc > 1 ? atoi(argv[1]) : 100000;
  const int steps = argc > 2 ? atoi(argv[2]) : 50;
  const int halo = 512;
  const int left = (rank + size - 1) % size;
  const int right = (rank + 1) % size;
  double *u = calloc((size_t)n + 2 * halo, sizeof(double));
  double *v = calloc((size_t)n + 2 * halo, sizeof(double));
  MPI_Request req[4];
  MPI_Recv_init(u, halo, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &req[0]);
  MPI_Recv_init(u + halo + n, halo, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[1]);
  MPI_Send_init(u + halo, halo, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[2]);
  MPI_Send_init(u + n, halo, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &req[3]);
  for (int i = 0; i < n + 2 * halo; i++) {
    u[i] = (double)(i % 13);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int s = 0; s < steps; s++) {
    MPI_Startall(2, req);
    MPI_Start(&req[2]);
    MPI_Start(&req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    for (int i = halo; i < n + halo; i++) {
      v[i] = 0.25 * (u[i - 1] + 2.0 * u[i] + u[i + 1]);
    }
    for (int i = halo; i < n + halo; i++) {
      u[i] = v[i];
    }
  }
  const double t1 = MPI_Wtime();
  if (rank == 0) {
    printf("sum %g\ntime %.6f\n", u[halo + n / 2], t1 - t0);
  }
  for (int k = 0; k < 4; k++) {
    MPI_Request_free(&req[k]);
  }
  free(u);
  free(v);
  MPI_Finalize();
  return 0;
}
