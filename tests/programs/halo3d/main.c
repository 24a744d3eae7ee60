#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "halo.h"

int nVars = 4;
static Params params;

/* One relaxation sweep; `i` is reused by a data-dependent search below, as C89 codes do. */
double relax(double *u, double *v, const Params *p) {
  int i, n = p->nx * p->ny * p->nz;
  double sum = 0.0;
  for (i = 1; i < n - 1; i++) {
    v[i] = 0.25 * (u[i - 1] + 2.0 * u[i] + u[i + 1]);
  }
  for (i = 0; i < n; i++) {
    sum += v[i];
    u[i] = v[i];
  }
  i = 0;
  while (i < n && u[i] > 1e300) {
    i++;
  }
  return sum + i;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  params.nx = params.ny = params.nz = 32;
  params.px = params.py = params.pz = 1;
  params.nSteps = 10;
  params.printRate = 5;
  addOption("nx", 'x', 1, &params.nx, "cells in x");
  addOption("ny", 'y', 1, &params.ny, "cells in y");
  addOption("nz", 'z', 1, &params.nz, "cells in z");
  addOption("px", 'i', 1, &params.px, "processes in x");
  addOption("py", 'j', 1, &params.py, "processes in y");
  addOption("pz", 'k', 1, &params.pz, "processes in z");
  addOption("nSteps", 'N', 1, &params.nSteps, "time steps");
  parseOptions(argc, argv);

  Domain domain;
  initDomain(&domain, &params);
  const int cells = params.nx * params.ny * params.nz;
  double *u = calloc((size_t)cells, sizeof(double));
  double *v = calloc((size_t)cells, sizeof(double));
  const int faceMax =
      nVars * (params.nx * params.ny + params.ny * params.nz + params.nx * params.nz);
  double *send = calloc((size_t)faceMax, sizeof(double));
  double *recv = calloc((size_t)faceMax, sizeof(double));
  for (int i = 0; i < cells; i++) {
    u[i] = (double)(i % 7);
  }
  double total = 0.0;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int step = 0; step < params.nSteps; step++) {
    exchangeHalos(&domain, &params, send, recv);
    double local = relax(u, v, &params);
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double t1 = MPI_Wtime();
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    printf("halo3d: %d steps in %.6f s (total %g)\n", params.nSteps, t1 - t0, total);
  }
  free(u);
  free(v);
  free(send);
  free(recv);
  MPI_Finalize();
  return 0;
}
