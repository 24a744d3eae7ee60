// A hierarchy of levels set up by one function for every level (HPCG's GenerateProblem for the
// fine matrix and, through GenerateCoarseProblem, each coarser one): the fields it sets hold a
// value per object, which a model keeping one value per field cannot. The size is an option.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

struct Level {
  int rows = 0;
  std::vector<double> x;
  Level *coarse = nullptr;
};

static void generate(Level &level, int n) {
  level.rows = n * n * n;
  level.x.assign(static_cast<std::size_t>(level.rows), 1.0);
}

static void generate_coarse(Level &fine, int n) {
  fine.coarse = new Level;
  generate(*fine.coarse, n / 2);
}

static double smooth(Level &level) {
  double sum = 0;
  for (int i = 0; i < level.rows; ++i) {
    level.x[i] = 0.5 * level.x[i] + 0.25;
    sum += level.x[i];
  }
  return sum;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = 16;
  int sweeps = 20;
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "-n")) {
      n = std::atoi(argv[i + 1]);
    } else if (!std::strcmp(argv[i], "-s")) {
      sweeps = std::atoi(argv[i + 1]);
    }
  }
  Level fine;
  generate(fine, n);
  generate_coarse(fine, n);
  // A message sized by n: n is a parameter the model computes with.
  std::vector<double> plane(static_cast<std::size_t>(n) * n, 1.0);
  MPI_Allreduce(MPI_IN_PLACE, plane.data(), n * n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double total = 0;
  for (int s = 0; s < sweeps; ++s) {
    double local = smooth(fine) + smooth(*fine.coarse);
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  std::printf("%g\n", total);
  MPI_Finalize();
  return 0;
}
