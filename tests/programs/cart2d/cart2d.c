/* cart2d: a 2-D stencil on an MPI Cartesian topology (MPI_Dims_create, MPI_Cart_create,
 * MPI_Cart_coords, MPI_Cart_shift, MPI_Cart_rank), as textbook and many production stencil codes
 * decompose their grids. Arguments: global grid side, steps. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size, rank;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = argc > 1 ? atoi(argv[1]) : 512;
  int steps = argc > 2 ? atoi(argv[2]) : 20;
  int dims[2] = {0, 0};
  int periods[2] = {1, 0};
  MPI_Dims_create(size, 2, dims);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  MPI_Comm_rank(cart, &rank);
  int coords[2];
  MPI_Cart_coords(cart, rank, 2, coords);
  int up, down, left, right;
  MPI_Cart_shift(cart, 0, 1, &up, &down);
  MPI_Cart_shift(cart, 1, 1, &left, &right);
  int corner;
  int diagonal[2] = {coords[0] + 1, coords[1]};
  MPI_Cart_rank(cart, diagonal, &corner);
  const int rows = n / dims[0];
  const int cols = n / dims[1];
  double *u = calloc((size_t)(rows + 2) * (cols + 2), sizeof(double));
  double *v = calloc((size_t)(rows + 2) * (cols + 2), sizeof(double));
  double *col = calloc((size_t)rows, sizeof(double));
  MPI_Barrier(cart);
  double t0 = MPI_Wtime();
  for (int s = 0; s < steps; s++) {
    MPI_Sendrecv(&u[1 * (cols + 2) + 1], cols, MPI_DOUBLE, up, 0, &u[(rows + 1) * (cols + 2) + 1],
                 cols, MPI_DOUBLE, down, 0, cart, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[rows * (cols + 2) + 1], cols, MPI_DOUBLE, down, 1, &u[1], cols, MPI_DOUBLE, up,
                 1, cart, MPI_STATUS_IGNORE);
    MPI_Sendrecv(col, rows, MPI_DOUBLE, left, 2, col, rows, MPI_DOUBLE, right, 2, cart,
                 MPI_STATUS_IGNORE);
    for (int i = 1; i <= rows; i++) {
      for (int j = 1; j <= cols; j++) {
        v[i * (cols + 2) + j] = 0.25 * (u[(i - 1) * (cols + 2) + j] + u[(i + 1) * (cols + 2) + j] +
                                        u[i * (cols + 2) + j - 1] + u[i * (cols + 2) + j + 1]);
      }
    }
    double *t = u;
    u = v;
    v = t;
  }
  MPI_Barrier(cart);
  double t1 = MPI_Wtime();
  if (rank == 0) {
    printf("cart2d: %d x %d grid on %d x %d processes, %d steps in %.6f s (corner %d)\n", n, n,
           dims[0], dims[1], steps, t1 - t0, corner);
  }
  free(u);
  free(v);
  free(col);
  MPI_Comm_free(&cart);
  MPI_Finalize();
  return 0;
}
