// Scalars passed by reference (issue 12, state through calls): C++ mini-apps return the
// neighbours of a rank and the size of its share through `int &` parameters (UoB-HPC/CloverLeaf's
// decomposition, tried in the twenty-second and twenty-third sessions), and pass bounds on as
// `const int &`. The model followed pointers (`int *left`) but not references: every peer was
// rank 0 / ANY_SOURCE, and loops bounded by a reference were timed as constants.
//
//   mpirun -np 4 ./halo_refs [cells=200000] [steps=40]
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

// The chunk grid: the first divisor c of ranks with (ranks / c) / c <= 1, as CloverLeaf splits.
void chunk_grid(int ranks, int &across, int &down) {
  across = ranks;
  down = 1;
  for (int c = 1; c <= ranks; ++c) {
    if (ranks % c == 0 && (ranks / c) / c <= 1) {
      across = ranks / c;
      down = c;
      return;
    }
  }
}

// Four neighbours through references; MPI_PROC_NULL at the edges of the grid.
void neighbours(int rank, int across, int down, int &left, int &right, int &bottom, int &top) {
  const int x = rank % across;
  const int y = rank / across;
  left = x > 0 ? rank - 1 : MPI_PROC_NULL;
  right = x + 1 < across ? rank + 1 : MPI_PROC_NULL;
  bottom = y > 0 ? rank - across : MPI_PROC_NULL;
  top = y + 1 < down ? rank + across : MPI_PROC_NULL;
}

// A helper that passes its own reference on.
void share_of(int cells, int ranks, int &mine) { mine = cells / ranks; }
void local_cells(int cells, int ranks, int &mine) { share_of(cells, ranks, mine); }

// A bound through a const reference.
double relax(std::vector<double> &u, const int &n, const double &weight) {
  double s = 0.0;
  for (int i = 1; i < n - 1; ++i) {
    u[i] = (1.0 - weight) * u[i] + 0.5 * weight * (u[i - 1] + u[i + 1]);
    s += u[i];
  }
  return s;
}

void exchange(double *edge, double *halo, int count, int to, int from) {
  MPI_Sendrecv(edge, count, MPI_DOUBLE, to, 0, halo, count, MPI_DOUBLE, from, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int cells = argc > 1 ? std::atoi(argv[1]) : 200000;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 40;
  int across = 1;
  int down = 1;
  chunk_grid(size, across, down);
  int left = MPI_PROC_NULL;
  int right = MPI_PROC_NULL;
  int bottom = MPI_PROC_NULL;
  int top = MPI_PROC_NULL;
  neighbours(rank, across, down, left, right, bottom, top);
  int mine = 0;
  local_cells(cells, size, mine);
  const int edge = static_cast<int>(std::sqrt(static_cast<double>(mine)));
  std::vector<double> u(static_cast<std::size_t>(mine), 1.0);
  std::vector<double> out(static_cast<std::size_t>(edge), 0.5);
  std::vector<double> in(static_cast<std::size_t>(edge), 0.0);
  const double weight = 0.8;
  double sum = 0.0;
  const double start = MPI_Wtime();
  for (int step = 0; step < steps; ++step) {
    sum += relax(u, mine, weight);
    exchange(out.data(), in.data(), edge, right, left);
    exchange(out.data(), in.data(), edge, left, right);
    exchange(out.data(), in.data(), edge, top, bottom);
    exchange(out.data(), in.data(), edge, bottom, top);
    sum += in[0];
  }
  double total = 0.0;
  MPI_Allreduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  const double elapsed = MPI_Wtime() - start;
  if (rank == 0) {
    std::printf("total %g\ntime %.6f\n", total, elapsed);
  }
  MPI_Finalize();
  return 0;
}
