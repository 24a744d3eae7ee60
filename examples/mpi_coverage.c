/* Calls every MPI function the tracer wraps (the 46 of seed 004 App. 2 plus communicator
 * management) and prints how often each rank called each one, so a test can compare the
 * trace with the truth: lines "coverage <rank> <function> <calls>".
 *
 *   mpirun -np 4 ./mpi_coverage
 *
 * Needs an even number of ranks (partners are rank ^ 1). Test loops run until completion, so
 * their counts vary from run to run; the printed counts are exact. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *names[] = {"MPI_Send",
                              "MPI_Bsend",
                              "MPI_Ssend",
                              "MPI_Rsend",
                              "MPI_Recv",
                              "MPI_Sendrecv",
                              "MPI_Sendrecv_replace",
                              "MPI_Probe",
                              "MPI_Isend",
                              "MPI_Ibsend",
                              "MPI_Issend",
                              "MPI_Irsend",
                              "MPI_Irecv",
                              "MPI_Iprobe",
                              "MPI_Wait",
                              "MPI_Waitany",
                              "MPI_Waitall",
                              "MPI_Waitsome",
                              "MPI_Test",
                              "MPI_Testany",
                              "MPI_Testall",
                              "MPI_Testsome",
                              "MPI_Request_free",
                              "MPI_Cancel",
                              "MPI_Test_cancelled",
                              "MPI_Send_init",
                              "MPI_Bsend_init",
                              "MPI_Ssend_init",
                              "MPI_Rsend_init",
                              "MPI_Recv_init",
                              "MPI_Start",
                              "MPI_Startall",
                              "MPI_Buffer_attach",
                              "MPI_Buffer_detach",
                              "MPI_Barrier",
                              "MPI_Bcast",
                              "MPI_Gather",
                              "MPI_Gatherv",
                              "MPI_Scatter",
                              "MPI_Scatterv",
                              "MPI_Allgather",
                              "MPI_Allgatherv",
                              "MPI_Alltoall",
                              "MPI_Alltoallv",
                              "MPI_Alltoallw",
                              "MPI_Reduce",
                              "MPI_Allreduce",
                              "MPI_Reduce_scatter",
                              "MPI_Reduce_scatter_block",
                              "MPI_Scan",
                              "MPI_Exscan",
                              "MPI_Comm_split",
                              "MPI_Comm_dup",
                              "MPI_Comm_create",
                              "MPI_Cart_create",
                              "MPI_Comm_free"};
enum { NAMES = sizeof names / sizeof names[0] };
static long counts[NAMES];

/* Count one call of `fn`, then make it. */
#define CALL(fn, ...) (count(#fn), fn(__VA_ARGS__))

static void count(const char *name) {
  for (int i = 0; i < NAMES; ++i) {
    if (strcmp(names[i], name) == 0) {
      ++counts[i];
      return;
    }
  }
  fprintf(stderr, "mpi_coverage: %s is not in the list\n", name);
  abort();
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size % 2 != 0) {
    if (rank == 0) {
      fprintf(stderr, "mpi_coverage: needs an even number of ranks\n");
    }
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const MPI_Comm world = MPI_COMM_WORLD;
  const int partner = rank ^ 1;
  int a = rank, b = -1, flag = 0, index = 0, outcount = 0;
  int indices[4];
  MPI_Request r[4];
  MPI_Status status;

  /* Communicators. */
  MPI_Comm dup, split, created, cart;
  CALL(MPI_Comm_dup, world, &dup);
  CALL(MPI_Comm_split, world, rank % 2, rank, &split);
  MPI_Group world_group, even_group;
  MPI_Comm_group(world, &world_group);
  int evens[64], n_evens = 0;
  for (int i = 0; i < size && n_evens < 64; i += 2) {
    evens[n_evens++] = i;
  }
  MPI_Group_incl(world_group, n_evens, evens, &even_group);
  CALL(MPI_Comm_create, world, even_group, &created);
  const int periodic = 1;
  CALL(MPI_Cart_create, world, 1, &size, &periodic, 0, &cart);

  /* Blocking point-to-point, probes. */
  CALL(MPI_Sendrecv, &a, 1, MPI_INT, partner, 10, &b, 1, MPI_INT, partner, 10, dup, &status);
  CALL(MPI_Sendrecv_replace, &a, 1, MPI_INT, partner, 11, partner, 11, world, &status);
  CALL(MPI_Send, &a, 1, MPI_INT, partner, 12, world);
  CALL(MPI_Probe, partner, 12, world, &status);
  CALL(MPI_Recv, &b, 1, MPI_INT, partner, 12, world, &status);
  CALL(MPI_Send, &a, 1, MPI_INT, partner, 13, world);
  do {
    CALL(MPI_Iprobe, partner, 13, world, &flag, &status);
  } while (!flag);
  CALL(MPI_Recv, &b, 1, MPI_INT, partner, 13, world, &status);

  /* Buffered and synchronous sends, blocking. */
  int attached_size = 4 * (int)(sizeof(int) + MPI_BSEND_OVERHEAD) + 64;
  char *attached = malloc((size_t)attached_size);
  CALL(MPI_Buffer_attach, attached, attached_size);
  if (rank % 2 == 0) {
    CALL(MPI_Bsend, &a, 1, MPI_INT, partner, 14, world);
    CALL(MPI_Ssend, &a, 1, MPI_INT, partner, 15, world);
  } else {
    CALL(MPI_Recv, &b, 1, MPI_INT, partner, 14, world, &status);
    CALL(MPI_Recv, &b, 1, MPI_INT, partner, 15, world, &status);
  }
  /* Ready mode: the receive is posted (and a barrier says so) before MPI_Rsend starts. */
  if (rank % 2 == 1) {
    CALL(MPI_Irecv, &b, 1, MPI_INT, partner, 16, world, &r[0]);
  }
  CALL(MPI_Barrier, world);
  if (rank % 2 == 0) {
    CALL(MPI_Rsend, &a, 1, MPI_INT, partner, 16, world);
  } else {
    CALL(MPI_Wait, &r[0], &status);
  }

  /* Non-blocking sends of every mode, completed by every Wait variant. */
  CALL(MPI_Irecv, &b, 1, MPI_INT, partner, 20, world, &r[0]);
  CALL(MPI_Isend, &a, 1, MPI_INT, partner, 20, world, &r[1]);
  CALL(MPI_Waitall, 2, r, MPI_STATUSES_IGNORE);
  CALL(MPI_Irecv, &b, 1, MPI_INT, partner, 21, world, &r[0]);
  CALL(MPI_Issend, &a, 1, MPI_INT, partner, 21, world, &r[1]);
  for (int done = 0; done < 2; ++done) {
    CALL(MPI_Waitany, 2, r, &index, &status);
  }
  CALL(MPI_Irecv, &b, 1, MPI_INT, partner, 22, world, &r[0]);
  CALL(MPI_Ibsend, &a, 1, MPI_INT, partner, 22, world, &r[1]);
  for (int done = 0; done < 2; done += outcount) {
    CALL(MPI_Waitsome, 2, r, &outcount, indices, MPI_STATUSES_IGNORE);
  }
  CALL(MPI_Irecv, &b, 1, MPI_INT, partner, 23, world, &r[0]);
  CALL(MPI_Barrier, world); /* both receives are posted before the ready sends */
  CALL(MPI_Irsend, &a, 1, MPI_INT, partner, 23, world, &r[1]);
  CALL(MPI_Wait, &r[1], &status);
  CALL(MPI_Wait, &r[0], &status);

  /* Every Test variant, looping until completion. */
  CALL(MPI_Irecv, &b, 1, MPI_INT, partner, 24, world, &r[0]);
  CALL(MPI_Send, &a, 1, MPI_INT, partner, 24, world);
  do {
    CALL(MPI_Test, &r[0], &flag, &status);
  } while (!flag);
  CALL(MPI_Irecv, &b, 1, MPI_INT, partner, 25, world, &r[0]);
  CALL(MPI_Send, &a, 1, MPI_INT, partner, 25, world);
  do {
    CALL(MPI_Testany, 1, r, &index, &flag, &status);
  } while (!flag);
  CALL(MPI_Irecv, &b, 1, MPI_INT, partner, 26, world, &r[0]);
  CALL(MPI_Send, &a, 1, MPI_INT, partner, 26, world);
  do {
    CALL(MPI_Testall, 1, r, &flag, MPI_STATUSES_IGNORE);
  } while (!flag);
  CALL(MPI_Irecv, &b, 1, MPI_INT, partner, 27, world, &r[0]);
  CALL(MPI_Send, &a, 1, MPI_INT, partner, 27, world);
  do {
    CALL(MPI_Testsome, 1, r, &outcount, indices, MPI_STATUSES_IGNORE);
  } while (outcount == 0);

  /* Cancel a receive nobody will match; free a send request. */
  CALL(MPI_Irecv, &b, 1, MPI_INT, partner, 99, world, &r[0]);
  CALL(MPI_Cancel, &r[0]);
  CALL(MPI_Wait, &r[0], &status);
  CALL(MPI_Test_cancelled, &status, &flag);
  if (!flag) {
    fprintf(stderr, "mpi_coverage: rank %d: the receive was not cancelled\n", rank);
  }
  CALL(MPI_Isend, &a, 1, MPI_INT, partner, 28, world, &r[1]);
  CALL(MPI_Request_free, &r[1]);
  CALL(MPI_Recv, &b, 1, MPI_INT, partner, 28, world, &status);

  /* Persistent requests. */
  int p[4] = {0, 0, 0, 0};
  CALL(MPI_Recv_init, &p[0], 1, MPI_INT, partner, 30, world, &r[0]);
  CALL(MPI_Send_init, &a, 1, MPI_INT, partner, 30, world, &r[1]);
  CALL(MPI_Start, &r[0]);
  CALL(MPI_Start, &r[1]);
  CALL(MPI_Waitall, 2, r, MPI_STATUSES_IGNORE);
  CALL(MPI_Request_free, &r[0]);
  CALL(MPI_Request_free, &r[1]);
  MPI_Request q[6];
  CALL(MPI_Recv_init, &p[1], 1, MPI_INT, partner, 31, world, &q[0]);
  CALL(MPI_Recv_init, &p[2], 1, MPI_INT, partner, 32, world, &q[1]);
  CALL(MPI_Recv_init, &p[3], 1, MPI_INT, partner, 33, world, &q[2]);
  CALL(MPI_Bsend_init, &a, 1, MPI_INT, partner, 31, world, &q[3]);
  CALL(MPI_Ssend_init, &a, 1, MPI_INT, partner, 32, world, &q[4]);
  CALL(MPI_Rsend_init, &a, 1, MPI_INT, partner, 33, world, &q[5]);
  CALL(MPI_Startall, 3, q);
  CALL(MPI_Barrier, world); /* receives are active before the ready send starts */
  CALL(MPI_Startall, 3, q + 3);
  CALL(MPI_Waitall, 6, q, MPI_STATUSES_IGNORE);
  for (int i = 0; i < 6; ++i) {
    CALL(MPI_Request_free, &q[i]);
  }
  void *detached = NULL;
  CALL(MPI_Buffer_detach, &detached, &attached_size);
  free(attached);

  /* Collectives. */
  int v = rank + 1, sum = 0, root_value = 7;
  int *gathered = calloc((size_t)size, sizeof(int));
  int *all = calloc((size_t)size, sizeof(int));
  int *ones = calloc((size_t)size, sizeof(int));
  int *displs = calloc((size_t)size, sizeof(int));
  MPI_Datatype *types = calloc((size_t)size, sizeof(MPI_Datatype));
  int *bytes_displs = calloc((size_t)size, sizeof(int));
  for (int i = 0; i < size; ++i) {
    ones[i] = 1;
    displs[i] = i;
    types[i] = MPI_INT;
    bytes_displs[i] = i * (int)sizeof(int);
  }
  CALL(MPI_Barrier, world);
  CALL(MPI_Bcast, &root_value, 1, MPI_INT, 0, world);
  CALL(MPI_Gather, &v, 1, MPI_INT, gathered, 1, MPI_INT, 0, world);
  CALL(MPI_Gatherv, &v, 1, MPI_INT, gathered, ones, displs, MPI_INT, 0, world);
  CALL(MPI_Scatter, gathered, 1, MPI_INT, &v, 1, MPI_INT, 0, world);
  CALL(MPI_Scatterv, gathered, ones, displs, MPI_INT, &v, 1, MPI_INT, 0, world);
  CALL(MPI_Allgather, &v, 1, MPI_INT, all, 1, MPI_INT, world);
  CALL(MPI_Allgatherv, &v, 1, MPI_INT, all, ones, displs, MPI_INT, world);
  CALL(MPI_Alltoall, all, 1, MPI_INT, gathered, 1, MPI_INT, world);
  CALL(MPI_Alltoallv, all, ones, displs, MPI_INT, gathered, ones, displs, MPI_INT, world);
  CALL(MPI_Alltoallw, all, ones, bytes_displs, types, gathered, ones, bytes_displs, types, world);
  CALL(MPI_Reduce, &v, &sum, 1, MPI_INT, MPI_SUM, 0, world);
  CALL(MPI_Allreduce, &v, &sum, 1, MPI_INT, MPI_SUM, world);
  CALL(MPI_Reduce_scatter, all, &sum, ones, MPI_INT, MPI_SUM, world);
  CALL(MPI_Reduce_scatter_block, all, &sum, 1, MPI_INT, MPI_SUM, world);
  CALL(MPI_Scan, &v, &sum, 1, MPI_INT, MPI_SUM, world);
  CALL(MPI_Exscan, &v, &sum, 1, MPI_INT, MPI_SUM, world);

  CALL(MPI_Comm_free, &dup);
  CALL(MPI_Comm_free, &split);
  if (created != MPI_COMM_NULL) {
    CALL(MPI_Comm_free, &created);
  }
  CALL(MPI_Comm_free, &cart);
  MPI_Group_free(&even_group);
  MPI_Group_free(&world_group);

  for (int i = 0; i < NAMES; ++i) {
    printf("coverage %d %s %ld\n", rank, names[i], counts[i]);
  }
  fflush(stdout);
  free(gathered);
  free(all);
  free(ones);
  free(displs);
  free(types);
  free(bytes_displs);
  MPI_Finalize();
  return 0;
}
