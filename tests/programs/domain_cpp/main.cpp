#include <cstdio>

#include <mpi.h>

#include "domain.hpp"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int numRanks = 1;
  int rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &numRanks);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Options opts;
  opts.its = 9999999;
  opts.nx = 30;
  opts.cost = 1;
  ParseCommandLineOptions(argc, argv, &opts);
  Domain *locDom = new Domain(numRanks, rank, opts.nx);
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  while ((locDom->time() < locDom->stoptime()) && (locDom->cycle() < opts.its)) {
    Exchange(*locDom, rank);
    Advance(*locDom, opts.cost);
    double dt = locDom->time();
    double mindt = 0.0;
    MPI_Allreduce(&dt, &mindt, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const double t1 = MPI_Wtime();
  if (rank == 0) {
    std::printf("domain_cpp: %d cycles in %.6f s\n", locDom->cycle(), t1 - t0);
  }
  delete[] locDom->field;
  delete locDom;
  MPI_Finalize();
  return 0;
}
