// UoB-HPC/CloverLeaf's decomposition, reproduced (the twenty-second session tried CloverLeaf
// unmodified): the chunk neighbours are a std::array<int, 4> that a function fills per rank
// (chunk numbers from 1, external_face at the mesh's edges) and returns by value; the caller
// keeps a copy and exchanges halos with neighbour - 1. A std::array handed to a library call
// as a whole is data.
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mpi.h>

enum { chunk_left = 0, chunk_right = 1, chunk_bottom = 2, chunk_top = 3 };
constexpr int external_face = -1;

// The 2-D split closest to the mesh's ratio (CloverLeaf's clover_decompose): chunks in x, in y.
static std::array<int, 2> chunk_grid(int chunks, int x_cells, int y_cells) {
  const double mesh_ratio = static_cast<double>(x_cells) / y_cells;
  std::array<int, 2> grid = {chunks, 1};
  for (int c = 1; c <= chunks; ++c) {
    if (chunks % c == 0 && (chunks / static_cast<double>(c)) / c <= mesh_ratio) {
      grid[0] = chunks / c;
      grid[1] = c;
      break;
    }
  }
  return grid;
}

// The task's neighbours on that grid.
static std::array<int, 4> decompose(int chunks, int task, int x_cells, int y_cells) {
  std::array<int, 4> neighbours{};
  const std::array<int, 2> grid = chunk_grid(chunks, x_cells, y_cells);
  const int chunk_x = grid[0];
  const int chunk_y = grid.at(1);
  const int cx = task % chunk_x + 1;
  const int cy = task / chunk_x + 1;
  neighbours[chunk_left] = chunk_x * (cy - 1) + cx - 1;
  neighbours[chunk_right] = chunk_x * (cy - 1) + cx + 1;
  neighbours[chunk_bottom] = chunk_x * (cy - 2) + cx;
  neighbours.at(chunk_top) = chunk_x * cy + cx;
  if (cx == 1) neighbours[chunk_left] = external_face;
  if (cx == chunk_x) neighbours[chunk_right] = external_face;
  if (cy == 1) neighbours[chunk_bottom] = external_face;
  if (cy == chunk_y) neighbours[chunk_top] = external_face;
  return neighbours;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int cells = argc > 1 ? atoi(argv[1]) : 400;
  const int steps = argc > 2 ? atoi(argv[2]) : 20;
  const std::array<int, 4> chunk_neighbours = decompose(size, rank, cells, cells);
  std::array<int, 2> grid{};
  grid = chunk_grid(size, cells, cells);
  const int nx = cells / grid[0];
  const int ny = cells / grid[1];
  std::array<int, 4> tasks{};
  tasks = chunk_neighbours;
  std::array<int, 4> scratch{};
  memset(scratch.data(), 0, sizeof scratch); // a whole array handed to a library call

  double *field = static_cast<double *>(calloc(static_cast<size_t>(nx) * ny, sizeof(double)));
  const int edge = nx > ny ? nx : ny;
  double *send = static_cast<double *>(calloc(4 * static_cast<size_t>(edge), sizeof(double)));
  double *recv = static_cast<double *>(calloc(4 * static_cast<size_t>(edge), sizeof(double)));
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int step = 0; step < steps; ++step) {
    MPI_Request requests[8];
    int pending = 0;
    for (int face = 0; face < 4; ++face) {
      if (tasks[face] == external_face) continue;
      const int count = face < 2 ? ny : nx;
      MPI_Irecv(recv + face * edge, count, MPI_DOUBLE, tasks[face] - 1, 1 - face % 2 + face / 2 * 2,
                MPI_COMM_WORLD, &requests[pending++]);
      MPI_Isend(send + face * edge, count, MPI_DOUBLE, chunk_neighbours[face] - 1, face,
                MPI_COMM_WORLD, &requests[pending++]);
    }
    for (int j = 0; j < ny; ++j) {
      for (int i = 0; i < nx; ++i) {
        double &v = field[static_cast<size_t>(j) * nx + i];
        for (int k = 0; k < 20; ++k) v = 0.5 * v + 0.25 * (i + j + k);
      }
    }
    MPI_Waitall(pending, requests, MPI_STATUSES_IGNORE);
  }
  double local = field[0] + scratch[0];
  double total = 0.0;
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  const double elapsed = MPI_Wtime() - start;
  if (rank == 0) printf("sum %g time %.6f\n", total, elapsed);
  free(field);
  free(send);
  free(recv);
  MPI_Finalize();
  return 0;
}
