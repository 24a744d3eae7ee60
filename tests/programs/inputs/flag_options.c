/* Options without a value, parsed as LULESH parses `-q` (lulesh-util.cc): a loop of strcmp
 * tests over argv sets a constant, `opts.sync = 1;`. Here `-b` adds a barrier to every step,
 * so the flag decides communication: it must follow the command line, not be drawn by its
 * frequency in the estimation run.
 * `-e` sets a tolerance that also asks for the barrier.
 *   ./flag_options -n STEPS [-b] [-e] [-q] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct options {
  int steps;
  int sync;
  int quiet;
  double tolerance;
};

static void parse(int argc, char **argv, struct options *opts) {
  int i = 1;
  while (i < argc) {
    if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
      opts->steps = atoi(argv[i + 1]);
      i += 2;
    } else if (strcmp(argv[i], "-b") == 0) {
      opts->sync = 1;
      i += 1;
    } else if (strcmp(argv[i], "-e") == 0) {
      opts->tolerance = 1e-9; /* a floating constant: kept as a number, not rounded to 0 */
      i += 1;
    } else if (strcmp(argv[i], "-q") == 0) {
      opts->quiet = 1;
      i += 1;
    } else {
      fprintf(stderr, "unknown option %s\n", argv[i]);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  struct options opts;
  opts.steps = 10;
  opts.sync = 0;
  opts.quiet = 0;
  opts.tolerance = 1e-3;
  parse(argc, argv, &opts);
  double x = 1.0;
  for (int step = 0; step < opts.steps; ++step) {
    for (int i = 0; i < 100000; ++i) {
      x = x * 0.999999 + 1e-9;
    }
    if (opts.sync || opts.tolerance < 1e-6) {
      MPI_Barrier(MPI_COMM_WORLD);
    }
  }
  if (!opts.quiet) {
    printf("%d steps, x %g\n", opts.steps, x);
  }
  MPI_Finalize();
  return 0;
}
