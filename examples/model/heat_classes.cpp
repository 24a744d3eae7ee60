// 2-D heat diffusion in C++17: a class template for the distributed field, a solver class that
// owns two fields and exchanges halos with MPI_Sendrecv, a lambda as the stencil kernel and a
// generic reduction helper. Rows are split across the ranks.
//
//   mpirun -np 4 ./heat_classes [N=512] [steps=100]
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

template <typename T> class Field {
public:
  Field(int rows, int cols) : rows_(rows), cols_(cols), data_((rows + 2) * cols) {}
  T &at(int i, int j) { return data_[i * cols_ + j]; }
  T at(int i, int j) const { return data_[i * cols_ + j]; }
  T *row(int i) { return &data_[i * cols_]; }
  int rows() const { return rows_; }
  int cols() const { return cols_; }
  void fill(T value) {
    for (int i = 0; i < (rows_ + 2) * cols_; ++i) {
      data_[i] = value + static_cast<T>(i % 5);
    }
  }

private:
  int rows_;
  int cols_;
  std::vector<T> data_;
};

template <typename T, typename Op> T reduce_all(T local, Op op, MPI_Datatype type) {
  T global = local;
  MPI_Allreduce(&local, &global, 1, type, op, MPI_COMM_WORLD);
  return global;
}

class HeatSolver {
public:
  HeatSolver(int n, int rank, int size)
      : n_(n), rank_(rank), size_(size), rows_(n / size), current_(n / size, n),
        next_(n / size, n) {
    current_.fill(1.0);
    next_.fill(0.0);
  }

  void exchange() {
    const int up = rank_ > 0 ? rank_ - 1 : MPI_PROC_NULL;
    const int down = rank_ < size_ - 1 ? rank_ + 1 : MPI_PROC_NULL;
    MPI_Sendrecv(current_.row(1), n_, MPI_DOUBLE, up, 0, current_.row(rows_ + 1), n_, MPI_DOUBLE,
                 down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(current_.row(rows_), n_, MPI_DOUBLE, down, 1, current_.row(0), n_, MPI_DOUBLE, up,
                 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }

  double step(double alpha) {
    auto kernel = [&](int i, int j) {
      return current_.at(i, j) +
             alpha * (current_.at(i - 1, j) + current_.at(i + 1, j) + current_.at(i, j - 1) +
                      current_.at(i, j + 1) - 4.0 * current_.at(i, j));
    };
    double change = 0.0;
    for (int i = 1; i <= rows_; ++i) {
      for (int j = 1; j < n_ - 1; ++j) {
        const double v = kernel(i, j);
        change += (v - current_.at(i, j)) * (v - current_.at(i, j));
        next_.at(i, j) = v;
      }
    }
    std::swap(current_, next_);
    return change;
  }

private:
  int n_;
  int rank_;
  int size_;
  int rows_;
  Field<double> current_;
  Field<double> next_;
};

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = argc > 1 ? std::atoi(argv[1]) : 512;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 100;
  HeatSolver solver(n, rank, size);

  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  double change = 0.0;
  for (int s = 0; s < steps; ++s) {
    solver.exchange();
    change = reduce_all(solver.step(0.1), MPI_SUM, MPI_DOUBLE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const double elapsed = MPI_Wtime() - start;
  if (rank == 0) {
    std::printf("change %g\n", change);
    std::printf("time %.6f\n", elapsed);
  }
  MPI_Finalize();
  return 0;
}
