/* HPCCG's make_local_matrix: one `int i, j;` for every loop of the function, and a triangle
 * (`for (j = i + 1; ...)`) under a data test inside one of them. The reuse gives each counted
 * loop on `i` a variable of its own in the model; the triangle's count must read that one. The
 * groups of four make the test true on one `i` in four, spread evenly over the range. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? atoi(argv[1]) : 4000;
  int i, j;
  int *owner = malloc((size_t)n * sizeof(int));
  int *index = malloc((size_t)n * sizeof(int));
  for (i = 0; i < n; i++) {
    owner[i] = i / 4;
  }
  for (i = 0; i < n; i++) {
    index[i] = -1;
  }
  int count = 0;
  for (i = 0; i < n; i++) {
    if (index[i] == -1) {
      index[i] = count++;
      for (j = i + 1; j < n; j++) {
        if (owner[j] == owner[i]) {
          index[j] = count++;
        }
      }
    }
  }
  long sum = 0;
  for (i = 0; i < n; i++) {
    sum += index[i];
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d %ld\n", count, sum);
  free(owner);
  free(index);
  MPI_Finalize();
  return 0;
}
