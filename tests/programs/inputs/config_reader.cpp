// A settings file read by the program's own function into references (issue 12, program
// inputs become parameters): `read_settings(path, nx, steps)` takes its outputs by reference
// and fills them with `in >> nx` after a key, or `sscanf(line, "%d", &steps)`; the caller's
// nx and steps were data written through a reference, so the loops they bound replayed their
// estimation counts at every input. They are inputs, measured, set with params=.
#include <mpi.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

void read_settings(const char *path, int &nx, int &steps) {
  std::ifstream in(path);
  std::string key;
  while (in >> key) {
    if (key == "nx") {
      in >> nx;
    } else if (key == "steps") {
      std::string line;
      std::getline(in, line);
      std::sscanf(line.c_str(), "%d", &steps);
    }
  }
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int nx = 1000;
  int steps = 10;
  read_settings(argc > 1 ? argv[1] : "settings.txt", nx, steps);
  std::vector<double> u(static_cast<std::size_t>(nx), 1.0);
  double s = 0.0;
  for (int step = 0; step < steps; ++step) {
    for (int j = 1; j + 1 < nx; ++j) {
      u[j] = 0.5 * (u[j - 1] + u[j + 1]);
      s += u[j];
    }
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  std::printf("sum %g\n", s);
  MPI_Finalize();
  return 0;
}
