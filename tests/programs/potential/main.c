#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int nx = 20;
  int nSteps = 10;
  int morse = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-x") == 0 && i + 1 < argc) {
      nx = atoi(argv[++i]);
    } else if (strcmp(argv[i], "-N") == 0 && i + 1 < argc) {
      nSteps = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--morse") == 0) {
      morse = 1;
    }
  }
  Sim sim;
  sim.pot = morse ? initMorsePot() : initLjPot();
  sim.work = calloc(16, sizeof(double));
  real3 globalExtent;
  globalExtent[0] = nx * sim.pot->lat;
  globalExtent[1] = nx * sim.pot->lat;
  globalExtent[2] = nx * sim.pot->lat;
  initDecomposition(&sim, size, globalExtent);
  timestep(&sim, nSteps);
  free(sim.work);
  MPI_Finalize();
  return 0;
}
