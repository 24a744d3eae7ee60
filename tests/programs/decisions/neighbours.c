/* Neighbours found from block data, the way adaptive-mesh codes find them (miniAMR's
   add_comm_list): each rank owns a run of blocks of a line, looks at the owners of the blocks
   up to two away, and lists an owner as a partner, on its left or right, the first time it
   sees it. The counts of partners are kept in an array indexed by direction, and the
   exchange sends one message per partner. Rank 0 reads the number of steps, fixes it up when
   it is 0 and broadcasts its parameters; the other ranks copy them out of the array. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PER_RANK 4
static int num_partners[2]; /* left, right */
static int partners[2][8];
static int *owner;

static void add_partner(int dir, int pe) {
  int i, found = 0;
  for (i = 0; i < num_partners[dir]; i++)
    if (partners[dir][i] == pe)
      found = 1;
  if (!found) {
    partners[dir][num_partners[dir]] = pe;
    num_partners[dir]++;
  }
}

int main(int argc, char **argv) {
  int rank, size, b, k, s, dir, i, steps = 0, cells = 200000;
  int params[2];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    for (i = 1; i < argc; i++)
      if (!strcmp(argv[i], "--steps"))
        steps = atoi(argv[++i]);
    if (steps == 0)
      steps = 6;
    params[0] = steps;
    params[1] = cells;
    MPI_Bcast(params, 2, MPI_INT, 0, MPI_COMM_WORLD);
  } else {
    MPI_Bcast(params, 2, MPI_INT, 0, MPI_COMM_WORLD);
    steps = params[0];
    cells = params[1];
  }
  owner = malloc(sizeof(int) * PER_RANK * size);
  for (b = 0; b < PER_RANK * size; b++)
    owner[b] = b / PER_RANK;
  for (b = rank * PER_RANK; b < (rank + 1) * PER_RANK; b++)
    for (k = -2; k <= 2; k++)
      if (b + k >= 0 && b + k < PER_RANK * size && owner[b + k] != rank)
        add_partner(k < 0 ? 0 : 1, owner[b + k]);
  double *buf = malloc(sizeof(double) * cells * 4);
  MPI_Request req[16];
  for (s = 0; s < steps; s++) {
    for (i = 0; i < cells; i++)
      buf[i] = buf[i] * 0.5 + s;
    for (dir = 0; dir < 2; dir++) {
      int n = 0;
      for (i = 0; i < num_partners[dir]; i++)
        MPI_Irecv(buf + cells * (1 + i), cells, MPI_DOUBLE, partners[dir][i], dir,
                  MPI_COMM_WORLD, &req[n++]);
      for (i = 0; i < num_partners[dir]; i++)
        MPI_Send(buf, cells, MPI_DOUBLE, partners[dir][i], 1 - dir, MPI_COMM_WORLD);
      MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    }
  }
  if (rank == 0)
    printf("steps %d partners %d %d\n", steps, num_partners[0], num_partners[1]);
  free(buf);
  free(owner);
  MPI_Finalize();
  return 0;
}
