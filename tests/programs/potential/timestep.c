#include <mpi.h>

#include "sim.h"

/* Knows neither ljForce nor morseForce: it calls whatever the potential holds. */
void timestep(Sim *s, int nSteps) {
  for (int step = 0; step < nSteps; step++) {
    s->pot->force(s);
    double local = s->work[0];
    double global = 0.0;
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
}
