#include <mpi.h>

#include "halo.h"

/* The rank of the process at offset (dx, dy, dz) from this one, periodic. */
static int rankOf(const Domain *d, int dx, int dy, int dz) {
  const int *grid = d->procGrid;
  const int *coord = d->procCoord;
  int x = (coord[0] + dx + grid[0]) % grid[0];
  int y = (coord[1] + dy + grid[1]) % grid[1];
  int z = (coord[2] + dz + grid[2]) % grid[2];
  return x + grid[0] * (y + grid[1] * z);
}

void initDomain(Domain *d, const Params *p) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  d->procGrid[0] = p->px;
  d->procGrid[1] = p->py;
  d->procGrid[2] = p->pz;
  d->procCoord[0] = rank % p->px;
  rank /= p->px;
  d->procCoord[1] = rank % p->py;
  d->procCoord[2] = rank / p->py;
  static const int offset[6][3] = {{-1, 0, 0}, {1, 0, 0},  {0, -1, 0},
                                   {0, 1, 0},  {0, 0, -1}, {0, 0, 1}};
  for (int f = 0; f < 6; f++) {
    d->nbr[f] = rankOf(d, offset[f][0], offset[f][1], offset[f][2]);
  }
}

void exchangeHalos(const Domain *d, const Params *p, double *send, double *recv) {
  int face[3];
  face[0] = p->ny * p->nz * nVars;
  face[1] = p->nx * p->nz * nVars;
  face[2] = p->nx * p->ny * nVars;
  for (int dim = 0; dim < 3; dim++) {
    for (int dir = 0; dir < 2; dir++) {
      int to = d->nbr[2 * dim + dir];
      int from = d->nbr[2 * dim + 1 - dir];
      MPI_Sendrecv(send, face[dim], MPI_DOUBLE, to, dim, recv, face[dim], MPI_DOUBLE, from, dim,
                   MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }
}
