/* A time-step loop inside one OpenMP parallel region (miniMD's Integrate::run): worksharing
 * loops over the atoms a process owns (a count the program finds in its data) in the
 * functions it calls, halo exchanges by the master thread only, barriers between, and a
 * master-only step counter inside the region itself.
 * Build it as its Makefile would: preprocess, then compile the output (schedule.h).
 *   ./md ATOMS STEPS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "schedule.h"

static double *x, *v;
static int nlocal;

/* A force from a few neighbours per atom, then the positions: two worksharing loops outside
 * any lexical parallel region (orphaned), as miniMD's are. */
static void integrate(double dt) {
  OMP_FOR_STATIC
  for (int i = 0; i < nlocal; i++) {
    double f = 0.0;
    for (int k = 1; k <= 8; k++) {
      const double d = x[i] - x[(i + k) % nlocal];
      f += d / (1.0 + d * d);
    }
    v[i] += dt * f;
  }
  OMP_FOR_STATIC
  for (int i = 0; i < nlocal; i++) {
    x[i] += dt * v[i];
  }
}

static void exchange(int me, int nprocs, int count) {
  const int right = (me + 1) % nprocs, left = (me + nprocs - 1) % nprocs;
#pragma omp master
  {
    MPI_Sendrecv(x, count, MPI_DOUBLE, right, 0, x + nlocal - count, count, MPI_DOUBLE, left, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
#pragma omp barrier
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  const int atoms = argc > 1 ? atoi(argv[1]) : 100000;
  const int steps = argc > 2 ? atoi(argv[2]) : 10;
  const int slots = atoms / nprocs;
  x = (double *)malloc(slots * sizeof(double));
  v = (double *)calloc(slots, sizeof(double));
  for (int i = 0; i < slots; i++) {
    x[i] = (double)(i % 97) / 97.0;
  }
  /* The atoms this process owns: a count its data holds (all of them here). */
  int *owned = (int *)calloc(slots, sizeof(int));
  for (int i = 0; i < slots; i++) {
    owned[i] = i + 1;
  }
  nlocal = owned[slots - 1];
  free(owned);
  int n, done = 0;
#pragma omp parallel private(n)
  {
    for (n = 0; n < steps; n++) {
      for (int sub = 0; sub < 5; sub++) {
        integrate(0.001);
      }
      exchange(me, nprocs, 64);
#pragma omp master
      done++;
    }
  }
  double local = 0.0, total = 0.0;
  for (int i = 0; i < nlocal; i++) {
    local += x[i];
  }
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0) {
    printf("%d steps, sum %.6f\n", done, total);
  }
  free(x);
  free(v);
  MPI_Finalize();
  return 0;
}
