/* Options parsed in a loop over argv, each with the program's own default (issue 12): the
 * default must hold when a command line omits the option, and an option the estimation run did
 * not give must still set its variable. Reversed strcmp arguments and a loop from argv[0], as
 * some programs write it, and a local read uninitialised. Our own program, written for parjava's tests. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int rounds = 12;
  int block = 4;
  int width = size; /* a default computed from the run */
  int stride;       /* never assigned: a leftover a condition still reads */
  for (int i = 0; i < argc; ++i) {
    if (strcmp("-rounds", argv[i]) == 0) {
      rounds = atoi(argv[i + 1]);
      i++;
    } else if (strcmp("-block", argv[i]) == 0) {
      block = atoi(argv[i + 1]);
      i++;
    } else if (strcmp("-width", argv[i]) == 0) {
      width = atoi(argv[i + 1]);
      i++;
    }
  }
  if (rounds % block != 0) { /* divides by block: 0 here is a crash, not a default */
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (stride) {
    /* was: stride = width / 2 */
  }
  int buf[64] = {0};
  for (int r = 0; r < rounds / block; r++) {
    if (rank == 0) {
      MPI_Send(buf, width, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
      MPI_Recv(buf, width, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }
  MPI_Finalize();
  return 0;
}
