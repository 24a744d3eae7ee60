/* A ring exchange that fails on purpose, to check that a trace survives the failure.
 *
 *   mpirun -np 4 ./ring_faults -m segv -k 2 -a 5
 *
 * -m what happens: "segv" (rank -k writes through a null pointer), "abort" (rank -k calls
 * MPI_Abort), "exit" (rank -k calls exit(3) without MPI_Finalize; the others wait in a
 * barrier and are then killed by mpirun), "_exit" (the same with _exit(4), which skips exit
 * handlers, as MPI runtimes do when they give up), "hang" (every rank keeps exchanging until
 * killed, e.g. by SIGTERM or SIGINT to mpirun), "none" (finishes normally); -k the failing rank
 * (1), -a the iteration it fails at (5), -n iterations (10). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "example_args.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *mode = example_text(argc, argv, "-m", "none");
  const int victim = (int)example_option(argc, argv, "-k", 1);
  const long fail_at = example_option(argc, argv, "-a", 5);
  const long iterations = example_option(argc, argv, "-n", 10);
  const int hang = strcmp(mode, "hang") == 0;
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int token = 0;

  for (long i = 0; hang || i < iterations; ++i) {
    if (i == fail_at && rank == victim) {
      if (strcmp(mode, "segv") == 0) {
        fprintf(stderr, "ring_faults: rank %d dereferences a null pointer\n", rank);
        volatile int *null_pointer = NULL;
        *null_pointer = 1;
      } else if (strcmp(mode, "abort") == 0) {
        /* callsite: abort */
        MPI_Abort(MPI_COMM_WORLD, 7);
      } else if (strcmp(mode, "exit") == 0) {
        exit(3);
      } else if (strcmp(mode, "_exit") == 0) {
        _exit(4);
      }
    }
    if (rank == 0) {
      MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
      MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      token += 1;
      MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
    }
    if (hang) {
      if (i == 3 && rank == 0) {
        /* Tell a watching test that the ring runs. */
        printf("ring_faults: running\n");
        fflush(stdout);
      }
      usleep(2000);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    printf("ring_faults: token %d\n", token);
  }
  MPI_Finalize();
  return 0;
}
