/* prefix_options: the way HPCG reads its options (src/init.cpp). The sizes live in a heap array
 * of ints; every rank first reads them by position (sscanf of argv[i+1] into iparams+i), then
 * walks argv comparing each argument with a table of prefixes ("--nx=", ...) through a helper
 * calling strncmp and reads the text after the prefix with sscanf into iparams+j. Rank 0's
 * array is broadcast and copied into the fields of a struct, whose fields bound the time steps
 * and the message sizes of a ring exchange. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct Params {
  int nx, ny, nz, steps;
  int rank, size;
};

static int startswith(const char *s, const char *prefix) {
  size_t n = strlen(prefix);
  if (strncmp(s, prefix, n))
    return 0;
  return 1;
}

static int init(int *argc_p, char ***argv_p, struct Params *params) {
  int argc = *argc_p;
  char **argv = *argv_p;
  int i, j, *iparams;
  char cparams[][9] = {"--nx=", "--ny=", "--nz=", "--steps="};
  const int nparams = (sizeof cparams) / (sizeof cparams[0]);

  iparams = (int *)malloc(sizeof(int) * nparams);
  for (i = 0; i < nparams; ++i)
    iparams[i] = 0;
  /* by position first, as HPCG does: "./prefix 32 32 32" */
  for (i = 0; i < nparams; ++i)
    if (argc <= i + 1 || sscanf(argv[i + 1], "%d", iparams + i) != 1 || iparams[i] < 4)
      iparams[i] = 0;
  for (i = 1; i <= argc && argv[i]; ++i)
    for (j = 0; j < nparams; ++j)
      if (startswith(argv[i], cparams[j]))
        if (sscanf(argv[i] + strlen(cparams[j]), "%d", iparams + j) != 1)
          iparams[j] = 0;
  for (i = 0; i < 3; ++i)
    if (iparams[i] < 4)
      iparams[i] = 4;
  if (iparams[3] < 1)
    iparams[3] = 1;

  MPI_Bcast(iparams, nparams, MPI_INT, 0, MPI_COMM_WORLD);

  params->nx = iparams[0];
  params->ny = iparams[1];
  params->nz = iparams[2];
  params->steps = iparams[3];
  MPI_Comm_rank(MPI_COMM_WORLD, &params->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &params->size);
  free(iparams);
  return 0;
}

int main(int argc, char **argv) {
  struct Params params;
  MPI_Init(&argc, &argv);
  init(&argc, &argv, &params);
  const int n = params.nx * params.ny;
  double *u = calloc((size_t)n * params.nz, sizeof(double));
  double *halo = calloc((size_t)n, sizeof(double));
  const int right = (params.rank + 1) % params.size;
  const int left = (params.rank + params.size - 1) % params.size;
  double sum = 0.0;
  for (int t = 0; t < params.steps; t++) {
    for (int k = 0; k < params.nz; k++) {
      for (int i = 0; i < n; i++) {
        u[(size_t)k * n + i] = 0.5 * u[(size_t)k * n + i] + 0.001 * (i + k + t);
      }
    }
    MPI_Sendrecv(u, n, MPI_DOUBLE, right, 0, halo, n, MPI_DOUBLE, left, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    sum += halo[0];
  }
  double total = 0.0;
  MPI_Allreduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (params.rank == 0) {
    printf("prefix_options: %d x %d x %d, %d steps (%g)\n", params.nx, params.ny, params.nz,
           params.steps, total);
  }
  free(u);
  free(halo);
  MPI_Finalize();
  return 0;
}
