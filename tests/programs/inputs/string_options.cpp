// C++ option parsers (issue 12, program inputs become parameters): each argument is held in a
// std::string and compared with `==`, and its value converted by std::stoi / std::stod of the
// next argument, or by atoi of a string's c_str(). These conversions were external calls: the
// step count and the grid size were data, measured once, and a prediction for `--steps 40`
// kept the estimation run's 10 steps.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

double relax(std::vector<double> &u, double weight) {
  double s = 0.0;
  for (std::size_t j = 1; j + 1 < u.size(); ++j) {
    u[j] = (1.0 - weight) * u[j] + 0.5 * weight * (u[j - 1] + u[j + 1]);
    s += u[j];
  }
  return s;
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = 1000;
  int steps = 10;
  int sweeps = 1;
  double weight = 0.8;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-n" || arg == "--size") {
      n = std::stoi(argv[++i]);
    } else if (arg == "--steps") {
      steps = std::stoi(std::string(argv[++i]));
    } else if (arg == "--sweeps") {
      const std::string value = argv[++i];
      sweeps = std::atoi(value.c_str());
    } else if (arg == "--weight") {
      weight = std::stod(argv[++i]);
    }
  }
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<double> u(static_cast<std::size_t>(n / size), 1.0);
  double sum = 0.0;
  for (int step = 0; step < steps; ++step) {
    for (int sweep = 0; sweep < sweeps; ++sweep) {
      sum += relax(u, weight);
    }
    MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    std::printf("sum %g\n", sum);
  }
  MPI_Finalize();
  return 0;
}
