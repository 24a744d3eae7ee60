/* A communication package as hypre keeps one (LLNL/AMG's hypre_ParCSRCommPkg): a record whose
 * `comm` field is set from a function's communicator parameter in several functions, and used
 * later, in other functions, for the exchange. The field is one model variable for every
 * package; the function defined first (`extract_pkg`, called only after the solve) must not give
 * the field a name that does not exist yet when the exchange runs. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  MPI_Comm comm;
  int num_neighbours;
  int neighbours[2];
} comm_pkg;

#define PkgComm(pkg) ((pkg)->comm)

static double work(double *x, int n, int sweeps) {
  double s = 0.0;
  for (int k = 0; k < sweeps; ++k) {
    for (int i = 1; i < n - 1; ++i) {
      x[i] = 0.5 * x[i] + 0.25 * (x[i - 1] + x[i + 1]);
    }
    s += x[n / 2];
  }
  return s;
}

/* Defined first, called last: the first assignment of the field in source order. */
static void extract_pkg(comm_pkg *pkg, MPI_Comm comm) {
  int rank = 0;
  PkgComm(pkg) = comm;
  MPI_Comm_rank(comm, &rank);
  pkg->num_neighbours = 0;
}

static void create_pkg(comm_pkg *pkg, MPI_Comm comm) {
  int rank = 0;
  int size = 1;
  PkgComm(pkg) = comm;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  pkg->num_neighbours = size > 1 ? 2 : 0;
  pkg->neighbours[0] = (rank + size - 1) % size;
  pkg->neighbours[1] = (rank + 1) % size;
}

static void exchange(const comm_pkg *pkg, double *send, double *recv, int count) {
  MPI_Request requests[4];
  int k = 0;
  for (int j = 0; j < pkg->num_neighbours; ++j) {
    MPI_Irecv(recv + j * count, count, MPI_DOUBLE, pkg->neighbours[j], 7, PkgComm(pkg),
              &requests[k++]);
  }
  for (int j = 0; j < pkg->num_neighbours; ++j) {
    MPI_Isend(send, count, MPI_DOUBLE, pkg->neighbours[j], 7, PkgComm(pkg), &requests[k++]);
  }
  MPI_Waitall(k, requests, MPI_STATUSES_IGNORE);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? atoi(argv[1]) : 100000;
  const int steps = argc > 2 ? atoi(argv[2]) : 20;
  double *x = calloc((size_t)n, sizeof(double));
  double *recv = calloc(2 * 1024, sizeof(double));
  comm_pkg pkg;
  comm_pkg coarse;
  create_pkg(&pkg, MPI_COMM_WORLD);
  double s = 0.0;
  for (int step = 0; step < steps; ++step) {
    s += work(x, n, 4);
    exchange(&pkg, x, recv, 1024);
    double total = 0.0;
    MPI_Allreduce(&s, &total, 1, MPI_DOUBLE, MPI_SUM, PkgComm(&pkg));
    s = total * 1e-9;
  }
  extract_pkg(&coarse, MPI_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    printf("%g %d\n", s, coarse.num_neighbours);
  }
  free(x);
  free(recv);
  MPI_Finalize();
  return 0;
}
