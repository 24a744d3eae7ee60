/* Short work-sharing loop bodies the compiler vectorises, in the directive forms real codes
 * use: a combined `parallel for` over a count from the command line, an orphaned `omp for` a
 * macro spells (miniMD's OMPFORSCHEDULE, read as _Pragma) over a count held in data, a loop
 * that counts down by two, and a pointer loop (not an integer variable: timed per iteration).
 * Probes inside such bodies stopped their vectorisation: the estimation code ran 1.35x the
 * program. Usage: ./forces ATOMS STEPS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define OMP_FOR_STATIC _Pragma("omp for schedule(static)")

static double *x, *v, *f;
static int nlocal;

static void forces(double dt) {
  OMP_FOR_STATIC
  for (int i = 0; i < nlocal; i++) {
    f[i] = x[i] * (1.0 - x[i]) * dt;
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int atoms = argc > 1 ? atoi(argv[1]) : 100000;
  const int steps = argc > 2 ? atoi(argv[2]) : 10;
  x = (double *)malloc(atoms * sizeof(double));
  v = (double *)calloc(atoms, sizeof(double));
  f = (double *)calloc(atoms, sizeof(double));
  int *owned = (int *)malloc(atoms * sizeof(int));
  for (int i = 0; i < atoms; i++) {
    x[i] = (double)(i % 89) / 89.0;
    owned[i] = i + 1;
  }
  nlocal = owned[atoms - 1]; /* a count the program finds in its data */
  free(owned);
  double energy = 0.0;
  for (int s = 0; s < steps; s++) {
#pragma omp parallel
    {
      forces(0.001);
    }
#pragma omp parallel for
    for (int i = 0; i < atoms; i++) {
      v[i] += f[i];
      x[i] += 0.001 * v[i];
    }
    int i;
#pragma omp parallel for
    for (i = atoms - 1; i >= 0; i -= 2) {
      x[i] *= 0.999999;
    }
#pragma omp parallel for reduction(+ : energy)
    for (double *p = v; p < v + atoms; p++) {
      energy += *p * *p;
    }
    double total = 0.0;
    MPI_Allreduce(&energy, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    energy = 0.5 * total;
  }
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    printf("%d steps, energy %.6g\n", steps, energy);
  }
  free(x);
  free(v);
  free(f);
  MPI_Finalize();
  return 0;
}
