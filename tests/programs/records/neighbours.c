/* Two objects of one struct, each filled through a pointer by one helper (issue 12 item 2):
   `set_link(&left, ...)` and `set_link(&right, ...)` name the rank to receive from and the rank
   to send to, and how many exchanges each direction makes. With one variable per field for
   every object, both links were the last one set: each rank sent to and received from the same
   side, and the model deadlocked where the program does not.

   usage: neighbours N STEPS (prints what each rank sent and received) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

struct link {
  int peer;   /* the rank this side exchanges with */
  int rounds; /* exchanges per step on this side */
  int active; /* whether this side exchanges at all */
};

static void set_link(struct link *l, int rank, int size, int dir, int rounds) {
  l->peer = (rank + dir + size) % size;
  l->rounds = rounds;
  l->active = size > 1;
}

static double relax(double *u, int n) {
  double sum = 0.0;
  int i;
  for (i = 1; i < n - 1; ++i) {
    u[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]);
    sum += u[i];
  }
  return sum;
}

int main(int argc, char **argv) {
  int rank, size, n, steps, s, r, sent = 0;
  struct link left, right;
  double *u, sum = 0.0, t0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  n = argc > 1 ? atoi(argv[1]) : 100000;
  steps = argc > 2 ? atoi(argv[2]) : 20;
  set_link(&left, rank, size, -1, 1);
  set_link(&right, rank, size, +1, 2);
  u = malloc((size_t)n * sizeof(double));
  for (s = 0; s < n; ++s) {
    u[s] = (double)(s % 17);
  }
  t0 = MPI_Wtime();
  for (s = 0; s < steps; ++s) {
    sum += relax(u, n);
    if (right.active) {
      for (r = 0; r < right.rounds; ++r) {
        MPI_Sendrecv(&u[n - 2], 1, MPI_DOUBLE, right.peer, 1, &u[0], 1, MPI_DOUBLE, left.peer, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        ++sent;
      }
    }
    if (left.active) {
      for (r = 0; r < left.rounds; ++r) {
        MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left.peer, 2, &u[n - 1], 1, MPI_DOUBLE, right.peer, 2,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        ++sent;
      }
    }
  }
  printf("rank %d sent %d received %d\n", rank, sent, sent);
  if (rank == 0) {
    printf("sum %g time %f\n", sum, MPI_Wtime() - t0);
  }
  free(u);
  MPI_Finalize();
  return 0;
}
