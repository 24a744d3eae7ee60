/* C the estimation code must compile as the program does (issue 12 item 4), three idioms of
   graph500's reference code: a C99 `inline` function with no external definition (it links
   only where the compiler inlines every call), a block of statements running on into a nested
   `{ }` that declares what it uses, and statements on both sides of an `#else` / `#endif`
   whose branch Clang and gcc choose differently (Clang says it is GCC 4.2). Each made the
   compiler reject the probed copy, and the function ran without any probe. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* Small enough that gcc -O2 inlines both calls of the program; the probed copy is not. */
inline void exchange(double *buf, int n, int right, int left) {
  MPI_Status status;
  MPI_Sendrecv_replace(buf, n, MPI_DOUBLE, right, 7, left, 7, MPI_COMM_WORLD, &status);
}

static double mix(double x) {
#if defined(__clang__) || __GNUC__ < 5
  x = x * 1.5;
  x = x + 1.0;
#else
  x = x * 1.25;
#endif
  x = x - 0.5;
  return x;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int steps = argc > 1 ? atoi(argv[1]) : 50;
  int n = 200000;
  double *buf = calloc((size_t)n, sizeof *buf);
  double acc = 0;
  int first = 0;
  if (getenv("PJ_TEST_NEVER_SET") == NULL) { /* data: counted by the estimation run */
    first = 1;
    int my_row = 0, my_col = 0;
    {
      int coords[2];
      coords[0] = rank / 2;
      coords[1] = rank % 2;
      MPI_Barrier(MPI_COMM_WORLD);
      my_row = coords[0];
      my_col = coords[1];
    }
    MPI_Comm column;
    MPI_Comm_split(MPI_COMM_WORLD, my_col, my_row, &column);
    MPI_Comm_free(&column);
    acc += first;
  }
  for (int t = 0; t < steps; ++t) {
    for (int i = 0; i < n; ++i) {
      buf[i] = buf[i] * 0.5 + (double)i;
    }
    exchange(buf, n, (rank + 1) % size, (rank + size - 1) % size);
    acc = mix(acc);
  }
  exchange(buf, n, (rank + 1) % size, (rank + size - 1) % size);
  printf("%g %g\n", acc, buf[n - 1]);
  free(buf);
  MPI_Finalize();
  return 0;
}
