/* positional: rank 0 reads its arguments by position through a moving argv (`atoi(*++argv)`,
 * as the Parallel Research Kernels do), the optional third only when the command line has it
 * (`int tile = 32;` otherwise), and broadcasts them; the tile size chooses a tiled or a plain
 * loop. The model's ranks took 0 for the absent third argument (the plain loop, never run by
 * the program): PRK transpose predicted -95 %. Rank 0 also sends its share of the order, which
 * it computes from what it read (the other ranks took the estimation run's value: PRK nstream at
 * another length or np kept its vector length). Usage: ./positional ITERATIONS ORDER [TILE] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int iterations = 0, tile = 32, rank, size;
  long order = 0, share = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    if (argc != 3 && argc != 4) {
      printf("Usage: %s <# iterations> <order> [tile]\n", *argv);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    iterations = atoi(*++argv);
    order = atol(*++argv);
    if (argc == 4)
      tile = atoi(*++argv);
    share = order / size; /* what rank 0 computes from its inputs, then sends (PRK nstream) */
  }
  MPI_Bcast(&order, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  MPI_Bcast(&iterations, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast(&tile, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast(&share, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  const int tiling = tile > 0 && tile < order;
  double *a = (double *)calloc((size_t)(order * order), sizeof(double));
  double *b = (double *)calloc((size_t)(order * order), sizeof(double));
  for (int iter = 0; iter < iterations; iter++) {
    if (!tiling) {
      for (long i = 0; i < order; i++)
        for (long j = 0; j < order; j++)
          b[j * order + i] += a[i * order + j] + 1.0;
    } else {
      for (long i = 0; i < order; i += tile)
        for (long j = 0; j < order; j += tile)
          for (long it = i; it < i + tile && it < order; it++)
            for (long jt = j; jt < j + tile && jt < order; jt++)
              b[jt * order + it] += a[it * order + jt] + 1.0;
    }
  }
  double sum = 0.0;
  for (long k = 0; k < share; k++) {
    sum += b[k];
  }
  if (rank == 0)
    printf("%d iterations of order %ld, tile %d: %g %g\n", iterations, order, tile, b[order + 1],
           sum);
  free(a);
  free(b);
  MPI_Finalize();
  return 0;
}
