/* Communication patterns for benchmarks/vs_smpi.py, compiled with smpicc and run by smpirun on
 * a SimGrid platform; parjava interprets models of the same loops (vs_smpi.py builds them).
 *
 *   patterns PATTERN ROUNDS BYTES FLOPS
 *
 * PATTERN: incast   workers compute, send BYTES to rank 0, which has a receive posted for every
 *                   worker (MPI_Irecv + MPI_Waitall), then sends 8 B back to each (master-worker);
 *          alltoall every rank MPI_Isend / MPI_Irecv BYTES to and from every other rank, shifted
 *                   by rank (pairwise order), then MPI_Waitall;
 *          ring     MPI_Sendrecv of BYTES to rank + 1 from rank - 1;
 *          stencil  2-D periodic halo exchange on a sqrt(P) x sqrt(P) grid, BYTES to each of the
 *                   four neighbours (MPI_Irecv / MPI_Isend / MPI_Waitall).
 * Every round starts with a computation of FLOPS floating-point operations, executed by SimGrid
 * at the host's speed (smpi_execute_flops), so the platform's speed sets its duration.
 * Each rank prints "END <rank> <MPI_Wtime at the end>" and rank 0 "MESSAGES <count>". */
#include <math.h>
#include <mpi.h>
#include <smpi/smpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 5) {
    if (rank == 0) {
      fprintf(stderr, "usage: patterns incast|alltoall|ring|stencil ROUNDS BYTES FLOPS\n");
    }
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *pattern = argv[1];
  const int rounds = atoi(argv[2]);
  const int bytes = atoi(argv[3]);
  const double flops = atof(argv[4]);
  const int peers = size > 1 ? size - 1 : 1;
  char *out = calloc((size_t)bytes * (size_t)(peers > 4 ? peers : 4), 1);
  char *in = calloc((size_t)bytes * (size_t)(peers > 4 ? peers : 4), 1);
  MPI_Request *req = malloc(sizeof(MPI_Request) * 2 * (size_t)(peers > 4 ? peers : 4));
  long messages = 0;
  int side = (int)(sqrt((double)size) + 0.5);
  for (int round = 0; round < rounds; ++round) {
    smpi_execute_flops(flops);
    if (strcmp(pattern, "incast") == 0) {
      if (rank == 0) {
        for (int w = 1; w < size; ++w) {
          MPI_Irecv(in + (size_t)(w - 1) * bytes, bytes, MPI_CHAR, w, 1, MPI_COMM_WORLD,
                    &req[w - 1]);
        }
        MPI_Waitall(size - 1, req, MPI_STATUSES_IGNORE);
        for (int w = 1; w < size; ++w) {
          MPI_Send(out, 8, MPI_CHAR, w, 2, MPI_COMM_WORLD);
        }
        messages += 2 * (size - 1);
      } else {
        MPI_Send(out, bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
        MPI_Recv(in, 8, MPI_CHAR, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
    } else if (strcmp(pattern, "alltoall") == 0) {
      int n = 0;
      for (int i = 1; i < size; ++i) {
        const int from = (rank - i + size) % size;
        MPI_Irecv(in + (size_t)(i - 1) * bytes, bytes, MPI_CHAR, from, 3, MPI_COMM_WORLD,
                  &req[n++]);
      }
      for (int i = 1; i < size; ++i) {
        const int to = (rank + i) % size;
        MPI_Isend(out + (size_t)(i - 1) * bytes, bytes, MPI_CHAR, to, 3, MPI_COMM_WORLD,
                  &req[n++]);
      }
      MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
      messages += (long)size * (size - 1);
    } else if (strcmp(pattern, "ring") == 0) {
      MPI_Sendrecv(out, bytes, MPI_CHAR, (rank + 1) % size, 4, in, bytes, MPI_CHAR,
                   (rank - 1 + size) % size, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      messages += size;
    } else if (strcmp(pattern, "stencil") == 0) {
      const int x = rank % side, y = rank / side;
      const int nb[4] = {y * side + (x + 1) % side, y * side + (x - 1 + side) % side,
                         ((y + 1) % side) * side + x, ((y - 1 + side) % side) * side + x};
      for (int d = 0; d < 4; ++d) {
        MPI_Irecv(in + (size_t)d * bytes, bytes, MPI_CHAR, nb[d], 5 + (d ^ 1), MPI_COMM_WORLD,
                  &req[d]);
      }
      for (int d = 0; d < 4; ++d) {
        MPI_Isend(out + (size_t)d * bytes, bytes, MPI_CHAR, nb[d], 5 + d, MPI_COMM_WORLD,
                  &req[4 + d]);
      }
      MPI_Waitall(8, req, MPI_STATUSES_IGNORE);
      messages += 4L * size;
    } else {
      if (rank == 0) {
        fprintf(stderr, "unknown pattern %s\n", pattern);
      }
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  printf("END %d %.9f\n", rank, MPI_Wtime());
  if (rank == 0) {
    printf("MESSAGES %ld\n", messages);
  }
  free(out);
  free(in);
  free(req);
  MPI_Finalize();
  return 0;
}
