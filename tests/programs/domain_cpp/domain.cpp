#include <cmath>
#include <cstdlib>
#include <cstring>

#include <mpi.h>

#include "domain.hpp"

int StrToInt(const char *token, int *value) {
  char *end = nullptr;
  if (token == nullptr) {
    return 0;
  }
  *value = static_cast<int>(std::strtol(token, &end, 10));
  return end != token;
}

void ParseCommandLineOptions(int argc, char **argv, Options *opts) {
  int i = 1;
  while (i < argc) {
    if (std::strcmp(argv[i], "-i") == 0) {
      StrToInt(argv[i + 1], &(opts->its));
      i += 2;
    } else if (std::strcmp(argv[i], "-s") == 0) {
      StrToInt(argv[i + 1], &(opts->nx));
      i += 2;
    } else if (std::strcmp(argv[i], "-c") == 0) {
      StrToInt(argv[i + 1], &(opts->cost));
      i += 2;
    } else {
      i++;
    }
  }
}

Domain::Domain(int numRanks, int rank, int nx) : m_sizeX(nx) {
  m_tp = static_cast<int>(std::cbrt(numRanks) + 0.5);
  m_colLoc = rank % m_tp;
  m_rowLoc = (rank / m_tp) % m_tp;
  m_planeLoc = rank / (m_tp * m_tp);
  field = new double[static_cast<std::size_t>(nx) * nx * nx + 2]();
}

void Exchange(Domain &domain, int rank) {
  const int plane = domain.sizeX() * domain.sizeX();
  MPI_Request req[6];
  int n = 0;
  double *buf = domain.field;
  if (domain.planeLoc() > 0) {
    MPI_Irecv(buf, plane, MPI_DOUBLE, rank - domain.tp() * domain.tp(), 0, MPI_COMM_WORLD,
              &req[n++]);
  }
  if (domain.planeLoc() < domain.tp() - 1) {
    MPI_Isend(buf, plane, MPI_DOUBLE, rank + domain.tp() * domain.tp(), 0, MPI_COMM_WORLD,
              &req[n++]);
  }
  if (domain.rowLoc() > 0) {
    MPI_Irecv(buf, plane, MPI_DOUBLE, rank - domain.tp(), 1, MPI_COMM_WORLD, &req[n++]);
  }
  if (domain.rowLoc() < domain.tp() - 1) {
    MPI_Isend(buf, plane, MPI_DOUBLE, rank + domain.tp(), 1, MPI_COMM_WORLD, &req[n++]);
  }
  if (domain.colLoc() > 0) {
    MPI_Irecv(buf, plane, MPI_DOUBLE, rank - 1, 2, MPI_COMM_WORLD, &req[n++]);
  }
  if (domain.colLoc() < domain.tp() - 1) {
    MPI_Isend(buf, plane, MPI_DOUBLE, rank + 1, 2, MPI_COMM_WORLD, &req[n++]);
  }
  MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
}

void Advance(Domain &domain, int cost) {
  const int n = domain.sizeX();
  double *f = domain.field;
  for (int c = 0; c < cost; c++) {
    for (int k = 1; k < n * n * n; k++) {
      f[k] = 0.5 * f[k] + 0.25 * f[k - 1] + 1.0e-9;
    }
  }
  domain.time() += 1.0e-3;
  domain.cycle() += 1;
}
