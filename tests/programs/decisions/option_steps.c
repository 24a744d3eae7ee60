/* LULESH's shape (lulesh.cc:2745, lulesh-util.cc:76): options parsed into a struct by a loop of
 * strcmp tests over argv, and a time-step loop `while (time < stoptime && cycle < opts.its)`
 * whose time step comes from an allreduce and is adjusted under data tests. The parser's tests
 * have both outcomes in any run with options; they read the command line, not data, so the
 * step loop's count follows `-i` and is not replayed from the estimation run. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct options {
  int its;
  int size;
  int quiet;
};

static int to_int(const char *token, int *value) {
  char *end;
  if (token == NULL) {
    return 0;
  }
  *value = (int)strtol(token, &end, 10);
  return end != token && *end == '\0';
}

static void parse_error(const char *message) {
  fprintf(stderr, "%s\n", message);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static void parse(int argc, char **argv, struct options *opts) {
  if (argc > 1) {
    int i = 1;
    while (i < argc) {
      int ok;
      if (strcmp(argv[i], "-i") == 0) {
        if (i + 1 >= argc) {
          parse_error("missing integer after -i");
        }
        ok = to_int(argv[i + 1], &(opts->its));
        if (!ok) {
          parse_error("an integer must follow -i");
        }
        i += 2;
      } else if (strcmp(argv[i], "-s") == 0) {
        if (i + 1 >= argc) {
          parse_error("missing integer after -s");
        }
        ok = to_int(argv[i + 1], &(opts->size));
        if (!ok) {
          parse_error("an integer must follow -s");
        }
        i += 2;
      } else if (strcmp(argv[i], "-q") == 0) {
        opts->quiet = 1;
        i += 1;
      } else {
        parse_error("unknown option");
      }
    }
  }
}

static double work(int n, double x) {
  for (int i = 0; i < n; ++i) {
    x = x * 0.999999 + 1e-9;
  }
  return x;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  struct options opts;
  opts.its = 9999999;
  opts.size = 20000;
  opts.quiet = 0;
  parse(argc, argv, &opts);
  double time = 0.0;
  const double stoptime = 1e9;
  double dt = 1.0;
  int cycle = 0;
  double x = 1.0;
  while (time < stoptime && cycle < opts.its) {
    x = work(opts.size, x);
    double local = 1.1 * dt;
    MPI_Allreduce(&local, &dt, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    if (dt > 2.0) { /* a data decision on the step, as LULESH's TimeIncrement makes */
      dt = 2.0;
    }
    time += dt;
    cycle++;
  }
  if (!opts.quiet) {
    printf("%d steps, time %g, x %g\n", cycle, time, x);
  }
  MPI_Finalize();
  return 0;
}
