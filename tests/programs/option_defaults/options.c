/* Options parsed by comparing argv[i] with each spelling, into locals whose declarations hold
 * the defaults (miniMD's main: `int halfneigh = 1;` ... `if (strcmp(argv[i], "--half_neigh")
 * == 0) halfneigh = atoi(argv[++i]);`). An option absent from the command line leaves its
 * default: `./options -n 7` runs 7 x 3 barriers, `./options` 5 x 3.
 *   ./options [-n STEPS] [-m SUBSTEPS] */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  int steps = 5;
  int substeps = 3;
  MPI_Init(&argc, &argv);
  for (int i = 0; i < argc; i++) {
    if ((strcmp(argv[i], "-n") == 0) || (strcmp(argv[i], "--steps") == 0)) {
      steps = atoi(argv[++i]);
      continue;
    }
    if (strcmp(argv[i], "-m") == 0) {
      substeps = atoi(argv[++i]);
      continue;
    }
  }
  for (int k = 0; k < steps * substeps; k++) {
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
