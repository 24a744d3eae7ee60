// A 2-D Jacobi stencil on a Cartesian process grid: each iteration exchanges halos with the
// four neighbours (MPI_Irecv/MPI_Isend/MPI_Waitall), updates the local block, and every -r
// iterations computes the global residual with MPI_Allreduce. Iterations are marked as
// intervals (parjava/interval.h) for interval analysis.
//
//   mpirun -np 4 ./stencil2d -n 64 -i 20 -r 5 -d 0
//
// -n local block edge (64), -i iterations (20), -r residual period (5), -d ms of extra
// computation on rank 0 per iteration (0; > 0 makes rank 0 late and its neighbours wait).
// Lines marked "callsite:" are checked by the tracer tests (the call is on the next line).
#include <mpi.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <vector>

#include "example_args.h"
#include "parjava/interval.h"

namespace {

constexpr int kIterationInterval = 1;
constexpr int kHaloInterval = 2;

class Block {
public:
  explicit Block(int n) : n_(n), a_(cells(), 0.0), b_(cells(), 0.0) {}
  double &at(int i, int j) { return a_[index(i, j)]; }
  // Row i or column j of the interior (1..n), or of the halo (0 and n+1), as a strided view.
  std::vector<double> row(int i) const {
    return {a_.begin() + index(i, 1), a_.begin() + index(i, 1) + n_};
  }
  std::vector<double> column(int j) const {
    std::vector<double> c(static_cast<std::size_t>(n_));
    for (int i = 1; i <= n_; ++i) {
      c[static_cast<std::size_t>(i - 1)] = a_[index(i, j)];
    }
    return c;
  }
  void set_row(int i, const std::vector<double> &v) {
    for (int j = 1; j <= n_; ++j) {
      a_[index(i, j)] = v[static_cast<std::size_t>(j - 1)];
    }
  }
  void set_column(int j, const std::vector<double> &v) {
    for (int i = 1; i <= n_; ++i) {
      a_[index(i, j)] = v[static_cast<std::size_t>(i - 1)];
    }
  }
  // One Jacobi sweep; returns the local sum of squared changes.
  double sweep() {
    double change = 0.0;
    for (int i = 1; i <= n_; ++i) {
      for (int j = 1; j <= n_; ++j) {
        const double v = 0.25 * (a_[index(i - 1, j)] + a_[index(i + 1, j)] + a_[index(i, j - 1)] +
                                 a_[index(i, j + 1)]);
        change += (v - a_[index(i, j)]) * (v - a_[index(i, j)]);
        b_[index(i, j)] = v;
      }
    }
    for (int i = 1; i <= n_; ++i) {
      for (int j = 1; j <= n_; ++j) {
        a_[index(i, j)] = b_[index(i, j)];
      }
    }
    return change;
  }

private:
  [[nodiscard]] std::size_t cells() const { return static_cast<std::size_t>((n_ + 2) * (n_ + 2)); }
  [[nodiscard]] std::size_t index(int i, int j) const {
    return static_cast<std::size_t>(i * (n_ + 2) + j);
  }
  int n_;
  std::vector<double> a_;
  std::vector<double> b_;
};

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = static_cast<int>(example_option(argc, argv, "-n", 64));
  const long iterations = example_option(argc, argv, "-i", 20);
  const long residual_every = example_option(argc, argv, "-r", 5);
  const long delay_ms = example_option(argc, argv, "-d", 0);

  std::array<int, 2> dims = {0, 0};
  MPI_Dims_create(size, 2, dims.data());
  const std::array<int, 2> periods = {0, 0};
  MPI_Comm grid = MPI_COMM_NULL;
  // callsite: cart-create
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims.data(), periods.data(), 1, &grid);
  int rank = 0;
  MPI_Comm_rank(grid, &rank);
  int up = 0, down = 0, left = 0, right = 0;
  MPI_Cart_shift(grid, 0, 1, &up, &down);
  MPI_Cart_shift(grid, 1, 1, &left, &right);

  Block block(n);
  if (up == MPI_PROC_NULL) { // a hot top edge drives the iteration
    for (int j = 1; j <= n; ++j) {
      block.at(0, j) = 1.0;
    }
  }
  std::array<std::vector<double>, 4> in;
  std::array<std::vector<double>, 4> out;
  for (auto &v : in) {
    v.assign(static_cast<std::size_t>(n), 0.0);
  }
  const std::array<int, 4> peers = {up, down, left, right};
  double residual = 0.0;

  for (long it = 0; it < iterations; ++it) {
    parjava_interval_begin(kIterationInterval, "iteration");
    if (rank == 0) {
      example_compute(delay_ms * 1000);
    }
    parjava_interval_begin(kHaloInterval, "halo exchange");
    out = {block.row(1), block.row(n), block.column(1), block.column(n)};
    std::array<MPI_Request, 8> requests{};
    // Direction k: 0 up, 1 down, 2 left, 3 right. What a neighbour sends down (tag 1) arrives
    // from up (k = 0), hence the tag k ^ 1 on receives.
    for (std::size_t k = 0; k < 4; ++k) {
      const int tag = static_cast<int>(k);
      // callsite: halo-irecv
      MPI_Irecv(in[k].data(), n, MPI_DOUBLE, peers[k], tag ^ 1, grid, &requests[k]);
    }
    for (std::size_t k = 0; k < 4; ++k) {
      const int tag = static_cast<int>(k);
      // callsite: halo-isend
      MPI_Isend(out[k].data(), n, MPI_DOUBLE, peers[k], tag, grid, &requests[4 + k]);
    }
    // callsite: halo-waitall
    MPI_Waitall(8, requests.data(), MPI_STATUSES_IGNORE);
    parjava_interval_end(kHaloInterval);
    if (up != MPI_PROC_NULL) {
      block.set_row(0, in[0]);
    }
    if (down != MPI_PROC_NULL) {
      block.set_row(n + 1, in[1]);
    }
    if (left != MPI_PROC_NULL) {
      block.set_column(0, in[2]);
    }
    if (right != MPI_PROC_NULL) {
      block.set_column(n + 1, in[3]);
    }
    const double change = block.sweep();
    if (residual_every > 0 && (it + 1) % residual_every == 0) {
      // callsite: residual-allreduce
      MPI_Allreduce(&change, &residual, 1, MPI_DOUBLE, MPI_SUM, grid);
    }
    parjava_interval_end(kIterationInterval);
  }
  if (rank == 0) {
    std::printf("stencil2d: %d x %d blocks of %d^2, %ld iterations, residual %.3e\n", dims[0],
                dims[1], n, iterations, std::sqrt(residual));
  }
  // callsite: comm-free
  MPI_Comm_free(&grid);
  MPI_Finalize();
  return 0;
}
