/* Rounds of a do-while that communicates until no rank changes anything (miniAMR's refine.c:345:
 * `do { lchange = 0; ... if (...) lchange++; ... MPI_Allreduce(&lchange, &change, ...); }
 * while (change);`). Each step starts from larger values, so the rounds differ from step to
 * step: the loop's count follows the data decisions inside it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? atoi(argv[1]) : 20000;
  const int steps = argc > 2 ? atoi(argv[2]) : 6;
  double *a = (double *)malloc((size_t)n * sizeof(double));
  int rounds = 0, change = 0;
  for (int step = 0; step < steps; ++step) {
    for (int i = 0; i < n; ++i) {
      a[i] = (double)(1 << step) * (1.0 + (double)(i % 7) / 7.0);
    }
    do {
      int lchange = 0;
      for (int i = 0; i < n; ++i) {
        if (a[i] > 1.0) {
          a[i] *= 0.5;
          lchange++;
        }
      }
      MPI_Allreduce(&lchange, &change, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      rounds++;
    } while (change);
  }
  printf("rounds %d\n", rounds);
  free(a);
  MPI_Finalize();
  return 0;
}
