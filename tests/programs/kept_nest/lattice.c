/* Atoms created on a lattice by a loop that walks its cells with counters it carries from one
 * iteration to the next (miniMD's create_atoms): the loop sets what the code after it reads,
 * so the model keeps it, and with it the function it calls per atom, whose growth test is
 * true only when the array is full (miniMD's addatom: `if (nlocal == nmax) growarray();`).
 *   ./lattice CELLS STEPS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double *pos;
static int nlocal, nmax;

static void grow(void) {
  nmax += 20000;
  double *bigger = (double *)malloc((size_t)nmax * sizeof(double));
  for (int i = 0; i < nlocal; i++) {
    bigger[i] = pos[i];
  }
  free(pos);
  pos = bigger;
}

static void add_atom(double x) {
  if (nlocal == nmax) {
    grow();
  }
  pos[nlocal++] = x;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int cells = argc > 1 ? atoi(argv[1]) : 40;
  const int steps = argc > 2 ? atoi(argv[2]) : 10;
  /* What a process holds to begin with comes from its data (none here). */
  int *held = (int *)calloc((size_t)cells, sizeof(int));
  nlocal = held[0];
  free(held);
  int cx = 0, cy = 0, cz = 0;
  while (cz < cells) {
    const double x = 0.5 * cx + 0.25 * cy + 0.125 * cz;
    if (((cx + cy + cz) % 2) == 0) {
      add_atom(x);
    }
    cx++;
    if (cx == cells) {
      cx = 0;
      cy++;
    }
    if (cy == cells) {
      cy = 0;
      cz++;
    }
  }
  double total = 0.0;
  for (int s = 0; s < steps; s++) {
    for (int i = 0; i < nlocal; i++) {
      pos[i] = pos[i] * 0.999 + 0.001;
      total += pos[i];
    }
    MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  printf("%d atoms, %d cells, %g\n", nlocal, cells, total);
  free(pos);
  MPI_Finalize();
  return 0;
}
