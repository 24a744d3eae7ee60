/* Ping-pong between ranks 0 and 1, or a ring over all ranks (-r 1).
 *
 *   mpirun -np 2 ./pingpong -n 10 -s 1024 -d 20
 *
 * -n iterations (10), -s message bytes (8), -d ms the sender computes before each send while
 * the receiver already waits in MPI_Recv (> 0 gives the "late sender" pattern, seed 000 §5.5),
 * -p 1 pauses the measurement (MPI_Pcontrol(0)) for the middle third of the iterations,
 * -r 1 passes a token around a ring of all ranks instead. In ping-pong mode ranks beyond the
 * two players only take part in the final barrier.
 * Lines marked "callsite:" are checked by the tracer tests (the call is on the next line). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "example_args.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long iterations = example_option(argc, argv, "-n", 10);
  const int n = (int)example_option(argc, argv, "-s", 8);
  const long delay_ms = example_option(argc, argv, "-d", 0);
  const int pause = (int)example_option(argc, argv, "-p", 0);
  const int ring = (int)example_option(argc, argv, "-r", 0);
  char *buf = calloc((size_t)(n > 0 ? n : 1), 1);
  const MPI_Comm w = MPI_COMM_WORLD;

  for (long i = 0; i < iterations; ++i) {
    if (pause && i == iterations / 3) {
      /* callsite: pcontrol-off */
      MPI_Pcontrol(0);
    }
    if (pause && i == 2 * iterations / 3) {
      /* callsite: pcontrol-on */
      MPI_Pcontrol(1);
    }
    if (ring) {
      const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
      if (rank == 0) {
        example_compute(delay_ms * 1000);
        /* callsite: ring-send-first */
        MPI_Send(buf, n, MPI_BYTE, next, 1, w);
        /* callsite: ring-recv-last */
        MPI_Recv(buf, n, MPI_BYTE, prev, 1, w, MPI_STATUS_IGNORE);
      } else {
        /* callsite: ring-recv */
        MPI_Recv(buf, n, MPI_BYTE, prev, 1, w, MPI_STATUS_IGNORE);
        /* callsite: ring-send */
        MPI_Send(buf, n, MPI_BYTE, next, 1, w);
      }
    } else if (rank == 0 && size > 1) {
      example_compute(delay_ms * 1000);
      /* callsite: ping-send */
      MPI_Send(buf, n, MPI_BYTE, 1, 0, w);
      /* callsite: ping-recv */
      MPI_Recv(buf, n, MPI_BYTE, 1, 0, w, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      /* callsite: pong-recv */
      MPI_Recv(buf, n, MPI_BYTE, 0, 0, w, MPI_STATUS_IGNORE);
      /* callsite: pong-send */
      MPI_Send(buf, n, MPI_BYTE, 0, 0, w);
    }
  }
  /* callsite: final-barrier */
  MPI_Barrier(w);
  if (rank == 0) {
    printf("pingpong: %ld iterations of %d bytes on %d ranks\n", iterations, n, size);
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
