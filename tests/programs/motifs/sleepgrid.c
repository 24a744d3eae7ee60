/* A communication skeleton (issues 12/13): the work of a time step is a sleep whose return
 * value is tested in an `if` condition, and each rank swaps faces with the neighbours of a
 * 2-D grid of ranks given on the command line (-gx, -gy), neighbours outside the grid being -1.
 * Our own program, written for parjava's tests: the idiom of communication motifs that stand
 * for computation by sleeping, with peers from a process grid. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int grid_rank(int gx, int gy, int x, int y) {
  if (x < 0 || y < 0 || x >= gx || y >= gy) {
    return -1;
  }
  return y * gx + x;
}

int main(int argc, char **argv) {
  int rank = 0;
  int size = 1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int gx = size;
  int gy = 1;
  int steps = 100;
  int cells = 64;
  /* A millisecond: a loaded machine wakes a sleeper tens of microseconds late, a quarter of a
     200-us nap (CI saw +25 % at np 2), a few percent of this one. */
  long pause_ns = 1000000;
  for (int a = 1; a + 1 < argc; a += 2) {
    if (strcmp(argv[a], "-gx") == 0) {
      gx = atoi(argv[a + 1]);
    } else if (strcmp(argv[a], "-gy") == 0) {
      gy = atoi(argv[a + 1]);
    } else if (strcmp(argv[a], "-steps") == 0) {
      steps = atoi(argv[a + 1]);
    } else if (strcmp(argv[a], "-cells") == 0) {
      cells = atoi(argv[a + 1]);
    }
  }
  if (gx * gy != size) {
    if (rank == 0) {
      fprintf(stderr, "grid %d x %d does not hold %d ranks\n", gx, gy, size);
    }
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const int x = rank % gx;
  const int y = rank / gx;
  int peer[4];
  peer[0] = grid_rank(gx, gy, x - 1, y);
  peer[1] = grid_rank(gx, gy, x + 1, y);
  peer[2] = grid_rank(gx, gy, x, y - 1);
  peer[3] = grid_rank(gx, gy, x, y + 1);
  double *out = calloc((size_t)cells * 4, sizeof(double));
  double *in = calloc((size_t)cells * 4, sizeof(double));
  MPI_Request req[8];
  struct timespec nap = {0, pause_ns};
  struct timespec left;
  double t0 = MPI_Wtime();
  for (int s = 0; s < steps; s++) {
    if (nanosleep(&nap, &left) != 0) {
      fprintf(stderr, "interrupted with %ld ns left\n", left.tv_nsec);
    }
    int n = 0;
    for (int d = 0; d < 4; d++) {
      if (peer[d] >= 0) {
        MPI_Irecv(in + d * cells, cells, MPI_DOUBLE, peer[d], 7, MPI_COMM_WORLD, &req[n++]);
        MPI_Isend(out + d * cells, cells, MPI_DOUBLE, peer[d], 7, MPI_COMM_WORLD, &req[n++]);
      }
    }
    MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
  }
  double t = MPI_Wtime() - t0;
  if (rank == 0) {
    printf("grid %dx%d steps %d elapsed %.6f\n", gx, gy, steps, t);
  }
  free(out);
  free(in);
  MPI_Finalize();
  return 0;
}
