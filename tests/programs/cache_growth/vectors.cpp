// A stencil over a grid held the C++ way: two std::vector<double> members and an array from
// new[], none allocated by a malloc the source shows. The estimation counts the heap at the
// allocator, so the sweeps' working set is known and their time is scaled across cache levels:
// estimated on a grid that fits in L2 and predicted on one that does not, the prediction
// follows the program. Before, the working set was unknown (no probed allocation) and every
// cell kept the small grid's cost. n from the command line, then the steps; a reduction every
// step keeps the step loop a loop and the sweeps nests run once per step.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

struct Grid {
  int n;
  std::vector<double> in, out;
  double *weight;
  explicit Grid(int size)
      : n(size), in(static_cast<std::size_t>(size) * size, 1.0),
        out(static_cast<std::size_t>(size) * size, 0.0),
        weight(new double[static_cast<std::size_t>(size) * size]) {
    for (int k = 0; k < size * size; ++k) {
      weight[k] = 0.25 + 1e-6 * (k % 7);
    }
  }
  ~Grid() { delete[] weight; }
  Grid(const Grid &) = delete;
  Grid &operator=(const Grid &) = delete;
};

static void sweep(Grid &g) {
  const int n = g.n;
  for (int i = 1; i < n - 1; ++i) {
    for (int j = 1; j < n - 1; ++j) {
      g.out[i * n + j] = g.weight[i * n + j] * (g.in[(i - 1) * n + j] + g.in[(i + 1) * n + j] +
                                                g.in[i * n + j - 1] + g.in[i * n + j + 1]);
    }
  }
  for (int i = 1; i < n - 1; ++i) {
    for (int j = 1; j < n - 1; ++j) {
      g.in[i * n + j] = g.out[i * n + j] + 1e-3;
    }
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? atoi(argv[1]) : 256;
  const int steps = argc > 2 ? atoi(argv[2]) : 50;
  if (n < 3) {
    fprintf(stderr, "n must be at least 3\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const double start = MPI_Wtime();
  double sum = 0.0;
  {
    Grid g(n);
    for (int step = 0; step < steps; ++step) {
      sweep(g);
      MPI_Allreduce(MPI_IN_PLACE, &g.in[n + 1], 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    sum = g.in[n + 1];
  }
  printf("sum %g time %.6f\n", sum, MPI_Wtime() - start);
  MPI_Finalize();
  return 0;
}
