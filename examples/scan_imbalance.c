/* Known load imbalance for the pattern scanner's real-run tests: one rank computes `-d` ms
 * longer than the others before a communication step, `-n` times, so the waiting the scanner
 * must report is known in advance (n * d ms on the waiting side).
 *
 *   mpirun -np 4 ./scan_imbalance -p barrier -n 10 -d 20
 *
 * -p which step follows the extra computation:
 *   sendrecv   rank 0 (late) MPI_Send -> rank 1 MPI_Recv           Late Sender, B2 (receiver)
 *   isend      rank 0 (late) MPI_Isend -> rank 1 MPI_Irecv/MPI_Wait  N2, Late Sender (receiver)
 *   barrier    the late rank reaches MPI_Barrier last              Wait at Barrier (others)
 *   allreduce  the late rank reaches MPI_Allreduce last            Wait at N x N (others)
 *   bcast      the root (the late rank) enters MPI_Bcast last       Late Broadcast (others)
 * -r the late rank for barrier/allreduce/bcast (default 0), -d 0 gives the balanced variant.
 * Lines marked "callsite:" are where the waiting happens (the call is on the next line). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "example_args.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *pattern = example_text(argc, argv, "-p", "sendrecv");
  const long iterations = example_option(argc, argv, "-n", 10);
  const long delay_ms = example_option(argc, argv, "-d", 20);
  const int late = (int)example_option(argc, argv, "-r", 0);
  const MPI_Comm w = MPI_COMM_WORLD;
  double buffer[64] = {0};
  double sum[64] = {0};

  for (long i = 0; i < iterations; ++i) {
    /* Everyone starts the step together; the late rank computes longer. */
    MPI_Barrier(w);
    example_compute(1000);
    if (rank == late) {
      example_compute(delay_ms * 1000);
    }
    if (strcmp(pattern, "sendrecv") == 0) {
      if (rank == 0 && size > 1) {
        MPI_Send(buffer, 64, MPI_DOUBLE, 1, 0, w);
      } else if (rank == 1) {
        /* callsite: recv */
        MPI_Recv(buffer, 64, MPI_DOUBLE, 0, 0, w, MPI_STATUS_IGNORE);
      }
    } else if (strcmp(pattern, "isend") == 0) {
      MPI_Request request;
      if (rank == 0 && size > 1) {
        MPI_Isend(buffer, 64, MPI_DOUBLE, 1, 0, w, &request);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
      } else if (rank == 1) {
        MPI_Irecv(buffer, 64, MPI_DOUBLE, 0, 0, w, &request);
        /* callsite: wait */
        MPI_Wait(&request, MPI_STATUS_IGNORE);
      }
    } else if (strcmp(pattern, "barrier") == 0) {
      /* callsite: barrier */
      MPI_Barrier(w);
    } else if (strcmp(pattern, "allreduce") == 0) {
      /* callsite: allreduce */
      MPI_Allreduce(buffer, sum, 64, MPI_DOUBLE, MPI_SUM, w);
    } else if (strcmp(pattern, "bcast") == 0) {
      /* callsite: bcast */
      MPI_Bcast(buffer, 64, MPI_DOUBLE, late, w);
    } else {
      if (rank == 0) {
        fprintf(stderr, "scan_imbalance: unknown -p %s\n", pattern);
      }
      MPI_Abort(w, 2);
    }
  }
  MPI_Barrier(w);
  if (rank == 0) {
    printf("scan_imbalance: %s, %ld iterations, %ld ms late on rank %d of %d\n", pattern,
           iterations, delay_ms, late, size);
  }
  MPI_Finalize();
  return 0;
}
