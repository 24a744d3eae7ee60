// The command line copied into a vector of strings first (`std::vector<std::string>
// args(argv + 1, argv + argc)`), then parsed by index: `args[i] == "-n"` and `std::stoi(args[++i])`
// in a loop up to `args.size()`, and a positional `std::stoi(args[0])`. The copy's elements
// are argv's positions shifted by one, and its size is argc - 1.
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const std::vector<std::string> args(argv + 1, argv + argc);
  const int steps = std::stoi(args[0]);
  int n = 1000;
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "-n") {
      n = std::stoi(args[++i]);
    }
  }
  std::vector<double> u(static_cast<std::size_t>(n), 1.0);
  double sum = 0.0;
  for (int step = 0; step < steps; ++step) {
    for (int j = 1; j + 1 < n; ++j) {
      u[j] = 0.5 * (u[j - 1] + u[j + 1]);
      sum += u[j];
    }
    MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  std::printf("sum %g\n", sum);
  MPI_Finalize();
  return 0;
}
