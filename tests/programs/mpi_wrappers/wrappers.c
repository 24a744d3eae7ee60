#include "wrappers.h"

#include <stdio.h>

/* An assertion that compiles to a do-while(0) block, as qs_assert does. */
#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      printf("file=%s: line=%d ERROR\n", __FILE__, __LINE__);                                      \
    }                                                                                              \
  } while (0)

void checkedRank(MPI_Comm comm, int *rank) { CHECK(MPI_Comm_rank(comm, rank) == MPI_SUCCESS); }
void checkedSize(MPI_Comm comm, int *size) { CHECK(MPI_Comm_size(comm, size) == MPI_SUCCESS); }
void checkedBarrier(MPI_Comm comm) { CHECK(MPI_Barrier(comm) == MPI_SUCCESS); }
void checkedAllreduce(double *in, double *out, int count, MPI_Comm comm) {
  CHECK(MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, comm) == MPI_SUCCESS);
}
