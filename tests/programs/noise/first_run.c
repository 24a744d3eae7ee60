/* A program whose first launch in a directory is three times slower than the others (it
   leaves a marker there): what a lone estimation run in one of a VM's slow phases looks like
   to parjava (issue 13 item 5; tests/programs/guards/guarded_calls.c once ran 2.2x the
   unmodified program in one estimation in ten, and its model was 2x too slow). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double work(long n) {
  double s = 0;
  for (long i = 0; i < n; ++i) {
    s += (double)i * 1e-9;
  }
  return s;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int steps = argc > 1 ? atoi(argv[1]) : 20;
  FILE *marker = fopen("first_run.marker", "r");
  int first = marker == NULL;
  if (marker != NULL) {
    fclose(marker);
  } else if ((marker = fopen("first_run.marker", "w")) != NULL) {
    fclose(marker);
  }
  double s = 0;
  for (int t = 0; t < steps; ++t) {
    s += work(1000000);
    if (first) {
      s += work(2000000); /* the slow phase */
    }
  }
  printf("%g\n", s);
  MPI_Finalize();
  return 0;
}
