/* A tiled transpose written as the ParRes kernels write it (C89 style): the loop indices are
 * declared, uninitialised, at the top of main, and the tile loops' bounds read the outer
 * indices (MIN(order, i + tile)). Usage: ./tiled ITERATIONS ORDER TILE */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define MIN(x, y) ((x) < (y) ? (x) : (y))

int main(int argc, char **argv) {
  int iterations, order, tile;
  int iter, i, j, it, jt;
  double *a, *b, sum;
  MPI_Init(&argc, &argv);
  if (argc != 4) {
    printf("Usage: %s <iterations> <order> <tile>\n", *argv);
    MPI_Finalize();
    return 1;
  }
  iterations = atoi(*++argv);
  order = atoi(*++argv);
  tile = atoi(*++argv);
  a = malloc(sizeof(double) * (size_t)order * (size_t)order);
  b = malloc(sizeof(double) * (size_t)order * (size_t)order);
  for (j = 0; j < order; j++) {
    for (i = 0; i < order; i++) {
      a[i + order * j] = (double)(order * j + i);
      b[i + order * j] = 0.0;
    }
  }
  for (iter = 0; iter < iterations; iter++) {
    for (i = 0; i < order; i += tile) {
      for (j = 0; j < order; j += tile) {
        for (it = i; it < MIN(order, i + tile); it++) {
          for (jt = j; jt < MIN(order, j + tile); jt++) {
            b[it + order * jt] += a[jt + order * it];
          }
        }
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  sum = 0.0;
  for (i = 0; i < order * order; i++) {
    sum += b[i];
  }
  printf("sum %g\n", sum);
  free(a);
  free(b);
  MPI_Finalize();
  return 0;
}
