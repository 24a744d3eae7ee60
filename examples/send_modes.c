/* The four send modes between pairs of ranks (0->1, 2->3, ...): standard MPI_Send,
 * synchronous MPI_Ssend, buffered MPI_Bsend (with MPI_Buffer_attach) and ready MPI_Rsend
 * (the receiver posts MPI_Irecv first and says so with a zero-byte message).
 *
 *   mpirun -np 2 ./send_modes -n 5 -s 1024 -d 20
 *
 * -n iterations (5), -s message bytes (64), -d ms the sender computes before sending while
 * the receiver waits (20 gives "the sender computes 20 ms longer than the receiver": late
 * sender). With an odd number of ranks the last one only joins the final barrier.
 * Per iteration a sender calls Send, Ssend, Bsend, Recv (ready), Rsend once each; a receiver
 * calls Irecv, Send (ready), Recv three times and Wait once.
 * Lines marked "callsite:" are checked by the tracer tests (the call is on the next line). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "example_args.h"

enum { TAG_STANDARD = 0, TAG_SYNCHRONOUS = 1, TAG_BUFFERED = 2, TAG_READY = 3, TAG_POSTED = 4 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long iterations = example_option(argc, argv, "-n", 5);
  const int n = (int)example_option(argc, argv, "-s", 64);
  const long delay_ms = example_option(argc, argv, "-d", 0);
  const MPI_Comm w = MPI_COMM_WORLD;
  char *data = calloc((size_t)n + 1, 1);
  const int sender = rank % 2 == 0 && rank + 1 < size;
  const int receiver = rank % 2 == 1;
  const int partner = sender ? rank + 1 : rank - 1;

  int attached_size = n + MPI_BSEND_OVERHEAD;
  char *attached = malloc((size_t)attached_size);
  MPI_Buffer_attach(attached, attached_size);

  for (long i = 0; i < iterations; ++i) {
    if (sender) {
      example_compute(delay_ms * 1000);
      /* callsite: send-standard */
      MPI_Send(data, n, MPI_CHAR, partner, TAG_STANDARD, w);
      /* callsite: send-synchronous */
      MPI_Ssend(data, n, MPI_CHAR, partner, TAG_SYNCHRONOUS, w);
      /* callsite: send-buffered */
      MPI_Bsend(data, n, MPI_CHAR, partner, TAG_BUFFERED, w);
      MPI_Recv(NULL, 0, MPI_CHAR, partner, TAG_POSTED, w, MPI_STATUS_IGNORE);
      /* callsite: send-ready */
      MPI_Rsend(data, n, MPI_CHAR, partner, TAG_READY, w);
    } else if (receiver) {
      MPI_Request ready;
      MPI_Irecv(data, n, MPI_CHAR, partner, TAG_READY, w, &ready);
      MPI_Send(NULL, 0, MPI_CHAR, partner, TAG_POSTED, w);
      /* callsite: recv-standard */
      MPI_Recv(data, n, MPI_CHAR, partner, TAG_STANDARD, w, MPI_STATUS_IGNORE);
      MPI_Recv(data, n, MPI_CHAR, partner, TAG_SYNCHRONOUS, w, MPI_STATUS_IGNORE);
      MPI_Recv(data, n, MPI_CHAR, partner, TAG_BUFFERED, w, MPI_STATUS_IGNORE);
      MPI_Wait(&ready, MPI_STATUS_IGNORE);
    }
  }
  MPI_Buffer_detach(&attached, &attached_size);
  MPI_Barrier(w);
  if (rank == 0) {
    printf("send_modes: %ld iterations of %d bytes on %d ranks\n", iterations, n, size);
  }
  free(attached);
  free(data);
  MPI_Finalize();
  return 0;
}
