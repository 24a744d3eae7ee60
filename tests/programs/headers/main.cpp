// Work in headers (tests/python/test_header_code.py): a solver template beside this file and a
// kernel in include/kern/, included by two units.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

#include "solver.hpp"

double setup_check(int n); // other.cpp

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 20000;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 40;
  Grid<double> g;
  g.x.assign(static_cast<std::size_t>(n) + 2, 1.0);
  const double check = setup_check(n);
  const double total = solve(g, n, steps, 20);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    std::printf("%g %g\n", total, check);
  }
  MPI_Finalize();
  return 0;
}
