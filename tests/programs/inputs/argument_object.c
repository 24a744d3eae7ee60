/* The command line kept in a record and read by key through it (ORNL minisweep, arguments.c and
 * runner.c, reproduced): main copies argv into `args.argv_unconsumed` with Arguments_create, and
 * any function given the record reads an option by its name with a default, consuming it:
 * `dims.nx = Arguments_consume_int_or_default(args, "--nx", 5)`. The values bound the steps,
 * the sweep and the message sizes of a ring exchange.
 * Usage: argument_object [--nx N] [--steps S] [--nproc_x P] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int argc;
  char **argv_unconsumed;
} Arguments;

typedef struct {
  int nx;
  int steps;
} Dims;

static void Arguments_create(Arguments *args, int argc, char **argv) {
  args->argc = argc;
  args->argv_unconsumed = (char **)malloc(argc * sizeof(char *));
  for (int i = 0; i < argc; ++i) {
    args->argv_unconsumed[i] = argv[i];
  }
}

static int Arguments_exists(const Arguments *args, const char *arg_name) {
  int result = 0;
  for (int i = 0; i < args->argc; ++i) {
    if (args->argv_unconsumed[i] == NULL) {
      continue;
    }
    result = result || strcmp(args->argv_unconsumed[i], arg_name) == 0;
  }
  return result;
}

static int Arguments_consume_int_(Arguments *args, const char *arg_name) {
  int result = 0;
  for (int i = 0; i < args->argc; ++i) {
    if (args->argv_unconsumed[i] == NULL) {
      continue;
    }
    if (strcmp(args->argv_unconsumed[i], arg_name) == 0) {
      args->argv_unconsumed[i] = NULL;
      ++i;
      result = atoi(args->argv_unconsumed[i]);
      args->argv_unconsumed[i] = NULL;
    }
  }
  return result;
}

static int Arguments_consume_int_or_default(Arguments *args, const char *arg_name,
                                            int default_value) {
  return Arguments_exists(args, arg_name) ? Arguments_consume_int_(args, arg_name)
                                          : default_value;
}

static double sweep(const double *u, int nx) {
  double s = 0.0;
  for (int i = 0; i < nx; ++i) {
    for (int j = 0; j < 64; ++j) {
      s += u[i] * (double)j * 1e-3;
    }
  }
  return s;
}

static void run(Arguments *args, int rank, int size) {
  Dims dims;
  dims.nx = Arguments_consume_int_or_default(args, "--nx", 5);
  dims.steps = Arguments_consume_int_or_default(args, "--steps", 3);
  double *u = (double *)calloc((size_t)dims.nx, sizeof(double));
  double *halo = (double *)calloc((size_t)dims.nx, sizeof(double));
  double s = 0.0;
  for (int t = 0; t < dims.steps; ++t) {
    s += sweep(u, dims.nx);
    MPI_Sendrecv(u, dims.nx, MPI_DOUBLE, (rank + 1) % size, 0, halo, dims.nx, MPI_DOUBLE,
                 (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  printf("%d %g\n", rank, s);
  free(u);
  free(halo);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Arguments args;
  Arguments_create(&args, argc, argv);
  run(&args, rank, size);
  free(args.argv_unconsumed);
  MPI_Finalize();
  return 0;
}
