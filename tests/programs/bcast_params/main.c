/* bcast_params: rank 0 parses the command line (strcmp loop, atoi of the next argument), packs
 * the values into an array and broadcasts it; the other ranks unpack them, as miniAMR does. A
 * 1-D chain exchanges with rank +-1 (MPI_PROC_NULL at the ends); the number of sweeps per step
 * is read by rank 0 from an input file and broadcast. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int num_tsteps, block_size, sweeps;

static double smooth(double *u, double *v, int n) {
  double s = 0.0;
  for (int i = 1; i < n - 1; i++) {
    v[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]);
    s += v[i];
  }
  memcpy(u + 1, v + 1, (size_t)(n - 2) * sizeof(double));
  return s;
}

int main(int argc, char **argv) {
  int params[3], my_pe, num_pes, i;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &my_pe);
  MPI_Comm_size(MPI_COMM_WORLD, &num_pes);
  if (my_pe == 0) {
    num_tsteps = 20;
    block_size = 100000;
    sweeps = 1;
    const char *input = NULL;
    for (i = 1; i < argc; i++) {
      if (!strcmp(argv[i], "--num_tsteps")) {
        num_tsteps = atoi(argv[++i]);
      } else if (!strcmp(argv[i], "--nx") || !strcmp(argv[i], "--block_size")) {
        block_size = atoi(argv[++i]);
      } else if (!strcmp(argv[i], "--input")) {
        input = argv[++i];
      }
    }
    if (input != NULL) {
      FILE *f = fopen(input, "r");
      if (f == NULL || fscanf(f, "%d", &sweeps) != 1) {
        fprintf(stderr, "cannot read %s\n", input);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
      fclose(f);
    }
    params[0] = num_tsteps;
    params[1] = block_size;
    params[2] = sweeps;
    MPI_Bcast(params, 3, MPI_INT, 0, MPI_COMM_WORLD);
  } else {
    MPI_Bcast(params, 3, MPI_INT, 0, MPI_COMM_WORLD);
    num_tsteps = params[0];
    block_size = params[1];
    sweeps = params[2];
  }
  const int left = my_pe > 0 ? my_pe - 1 : MPI_PROC_NULL;
  const int right = my_pe < num_pes - 1 ? my_pe + 1 : MPI_PROC_NULL;
  double *u = calloc((size_t)block_size + 2, sizeof(double));
  double *v = calloc((size_t)block_size + 2, sizeof(double));
  for (i = 0; i < block_size + 2; i++) {
    u[i] = (double)(i % 13);
  }
  double total = 0.0;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int t = 0; t < num_tsteps; t++) {
    MPI_Sendrecv(&u[block_size], 1, MPI_DOUBLE, right, 0, &u[0], 1, MPI_DOUBLE, left, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 1, &u[block_size + 1], 1, MPI_DOUBLE, right, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double local = 0.0;
    for (int s = 0; s < sweeps; s++) {
      local += smooth(u, v, block_size + 2);
    }
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double t1 = MPI_Wtime();
  if (my_pe == 0) {
    printf("bcast_params: %d steps in %.6f s (total %g)\n", num_tsteps, t1 - t0, total);
  }
  free(u);
  free(v);
  MPI_Finalize();
  return 0;
}
