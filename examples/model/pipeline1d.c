/* A 1-D pipeline: rank 0 produces `blocks` blocks of `len` doubles, every rank transforms each
 * block and passes it on to the next rank; the last rank reduces them. A classic wavefront with
 * a fill and drain phase, so the speedup saturates at blocks / (blocks + size - 1).
 *
 *   mpirun -np 4 ./pipeline1d [len=20000] [blocks=64] [sweeps=8]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void transform(double *block, int len, int sweeps) {
  for (int s = 0; s < sweeps; s++) {
    for (int i = 1; i < len - 1; i++) {
      block[i] = 0.5 * block[i] + 0.25 * (block[i - 1] + block[i + 1]) + 1e-3 * sin(block[i]);
    }
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int len = argc > 1 ? atoi(argv[1]) : 20000;
  int blocks = argc > 2 ? atoi(argv[2]) : 64;
  int sweeps = argc > 3 ? atoi(argv[3]) : 8;
  double *block = malloc((size_t)len * sizeof(double));
  double checksum = 0.0;

  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (int b = 0; b < blocks; b++) {
    if (rank == 0) {
      for (int i = 0; i < len; i++) {
        block[i] = (double)((b + i) % 13);
      }
    } else {
      MPI_Recv(block, len, MPI_DOUBLE, rank - 1, b, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    transform(block, len, sweeps);
    if (rank < size - 1) {
      MPI_Send(block, len, MPI_DOUBLE, rank + 1, b, MPI_COMM_WORLD);
    } else {
      for (int i = 0; i < len; i++) {
        checksum += block[i];
      }
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double elapsed = MPI_Wtime() - start;
  if (rank == size - 1) {
    printf("checksum %g\n", checksum);
  }
  if (rank == 0) {
    printf("time %.6f\n", elapsed);
  }
  free(block);
  MPI_Finalize();
  return 0;
}
