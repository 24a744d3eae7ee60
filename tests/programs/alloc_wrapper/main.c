/* A tiny allocation wrapper called millions of times from loops, the way miniAMR allocates
   its blocks (ma_malloc: malloc, a NULL test, two counters). Each time step allocates a
   mesh of rows through the wrapper, relaxes it, frees it and reduces a residual. Prints its
   own wall and CPU time between MPI_Init and MPI_Finalize. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long allocations;
static double allocated_bytes;

void *xmalloc(size_t size, const char *file, int line) {
  void *p = malloc(size);
  if (p == NULL) {
    fprintf(stderr, "out of memory in %s at %d\n", file, line);
    exit(1);
  }
  allocations++;
  allocated_bytes += (double)size;
  return p;
}

int main(int argc, char **argv) {
  int rank, size, step, i, j;
  int rows = argc > 1 ? atoi(argv[1]) : 200000;
  int steps = argc > 2 ? atoi(argv[2]) : 10;
  double **mesh, residual = 0.0, total = 0.0, wall;
  clock_t cpu;
  MPI_Init(&argc, &argv);
  wall = MPI_Wtime();
  cpu = clock();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  rows /= size;
  mesh = (double **)xmalloc((size_t)rows * sizeof(double *), __FILE__, __LINE__);
  for (step = 0; step < steps; ++step) {
    for (i = 0; i < rows; ++i) {
      mesh[i] = (double *)xmalloc(4 * sizeof(double), __FILE__, __LINE__);
      for (j = 0; j < 4; ++j) mesh[i][j] = (double)(i + j + step);
    }
    for (i = 1; i < rows; ++i) {
      for (j = 0; j < 4; ++j) mesh[i][j] = 0.5 * (mesh[i][j] + mesh[i - 1][j]);
    }
    residual = 0.0;
    for (i = 0; i < rows; ++i) {
      residual += mesh[i][0];
      free(mesh[i]);
    }
    MPI_Allreduce(&residual, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  free(mesh);
  wall = MPI_Wtime() - wall;
  if (rank == 0) {
    printf("%ld allocations, residual %g, wall %.6f cpu %.6f\n", allocations, total, wall,
           (double)(clock() - cpu) / CLOCKS_PER_SEC);
  }
  MPI_Finalize();
  return 0;
}
