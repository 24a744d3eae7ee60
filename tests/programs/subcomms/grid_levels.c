// Communicators held in arrays (issue 12, the idiom of miniAMR's RCB): the row and column
// communicators of a 2-D process grid in `MPI_Comm grid[2]`, and per-level communicators split
// in a loop, each from the one above, in `MPI_Comm levels[]` with `levels[0] = MPI_COMM_WORLD`.
// Each step works on a local array, reduces along the rows and the columns, passes a block
// around its row (ranks relative to the row communicator) and reduces over every level.
//
//   grid_levels [n] [steps] [count]: n doubles of work per rank, count doubles per message.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_LEVELS 8

static double work(double *a, int n, int step) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    a[i] = a[i] * 0.999 + (double)((i + step) % 7);
    s += a[i];
  }
  return s;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = argc > 1 ? atoi(argv[1]) : 1 << 19;
  int steps = argc > 2 ? atoi(argv[2]) : 20;
  int count = argc > 3 ? atoi(argv[3]) : 1 << 15;
  int px = size % 2 == 0 ? 2 : 1;
  int row = rank / px;
  int col = rank % px;

  MPI_Comm grid[2];
  MPI_Comm_split(MPI_COMM_WORLD, row, col, &grid[0]); // my row: px ranks, my rank in it is col
  MPI_Comm_split(MPI_COMM_WORLD, col, row, &grid[1]); // my column: size / px ranks

  // Level l holds size / 2^l ranks while that halves evenly.
  MPI_Comm levels[MAX_LEVELS];
  levels[0] = MPI_COMM_WORLD;
  int nlev = 0;
  int group = size;
  while (nlev + 1 < MAX_LEVELS && group % 2 == 0) {
    group = group / 2;
    MPI_Comm_split(levels[nlev], rank / group, rank, &levels[nlev + 1]);
    nlev++;
  }

  double *a = calloc((size_t)n, sizeof(double));
  double *buf = calloc((size_t)count, sizeof(double));
  double *out = calloc((size_t)count, sizeof(double));
  double check = 0.0;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int s = 0; s < steps; s++) {
    buf[0] = work(a, n, s);
    for (int d = 0; d < 2; d++) {
      MPI_Allreduce(buf, out, count, MPI_DOUBLE, MPI_SUM, grid[d]);
    }
    int right = (col + 1) % px;
    int left = (col + px - 1) % px;
    MPI_Sendrecv(buf, count, MPI_DOUBLE, right, 1, out, count, MPI_DOUBLE, left, 1, grid[0],
                 MPI_STATUS_IGNORE);
    for (int l = 0; l <= nlev; l++) {
      MPI_Allreduce(buf, out, count, MPI_DOUBLE, MPI_SUM, levels[l]);
    }
    MPI_Bcast(out, count, MPI_DOUBLE, 0, levels[nlev / 2]);
    check += out[0];
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime() - t0;
  if (rank == 0) {
    printf("time %.6f\n", t);
    printf("check %g levels %d\n", check, nlev);
  }
  free(a);
  free(buf);
  free(out);
  MPI_Finalize();
  return 0;
}
