/* The idioms of the Parallel Research Kernels (issue 12, real programs), in a program of our
   own: rank 0 checks its arguments under `goto ENDOFTESTS`, reads them with `atoi(*++argv)` and
   broadcasts them; the grid of ranks comes from factor(), which writes through pointers, and a
   header-style helper that the program never calls passes factor() array elements; a search
   leaves two nested loops with `goto found`.
   Usage: argcheck ITERATIONS N */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void factor(int r, int *fac1, int *fac2) {
  for (*fac1 = (int)(sqrt(r + 1.0)); *fac1 > 0; (*fac1)--) {
    if (!(r % (*fac1))) {
      *fac2 = r / (*fac1);
      break;
    }
  }
}

/* Never called: its calls must not make factor()'s arguments data. */
static void optimize_split(int *r_in) {
  int fac[2][2];
  for (int i = 0; i < 2; i++) {
    factor(r_in[i], &fac[i][0], &fac[i][1]);
  }
}

static volatile double sink;

static void work(long cells) {
  double s = 0.0;
  for (long k = 0; k < cells * 40; k++) {
    s += (double)k * 1e-9;
  }
  sink += s;
}

/* The first (i, j) with i * j == target, leaving both loops at once; returns i + j. */
static int search(int n, int target) {
  int i, j;
  for (i = 1; i <= n; i++) {
    for (j = 1; j <= n; j++) {
      work(1);
      if (i * j == target) {
        goto found;
      }
    }
  }
  return -1;
found:
  return i + j;
}

int main(int argc, char **argv) {
  int my_ID, Num_procs, root = 0, error = 0;
  int iterations = 0, n = 0, npx = 1, npy = 1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &my_ID);
  MPI_Comm_size(MPI_COMM_WORLD, &Num_procs);
  if (my_ID == root) {
    if (argc != 3) {
      printf("Usage: %s <# iterations> <array dimension>\n", *argv);
      error = 1;
      goto ENDOFTESTS;
    }
    iterations = atoi(*++argv);
    if (iterations < 1) {
      printf("ERROR: iterations must be >= 1 : %d\n", iterations);
      error = 1;
      goto ENDOFTESTS;
    }
    n = atoi(*++argv);
    if (n < Num_procs) {
      error = 1;
      goto ENDOFTESTS;
    }
  ENDOFTESTS:;
  }
  MPI_Bcast(&error, 1, MPI_INT, root, MPI_COMM_WORLD);
  if (error) {
    MPI_Finalize();
    return 1;
  }
  MPI_Bcast(&n, 1, MPI_INT, root, MPI_COMM_WORLD);
  MPI_Bcast(&iterations, 1, MPI_INT, root, MPI_COMM_WORLD);
  factor(Num_procs, &npx, &npy);
  const int width = n / npx, height = n / npy;
  const int right = (my_ID + 1) % Num_procs, left = (my_ID + Num_procs - 1) % Num_procs;
  double t0 = 0.0, halo = 0.0, back = 0.0;
  int found = 0;
  for (int iter = 0; iter <= iterations; iter++) {
    if (iter == 1) {
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
    }
    for (int j = 0; j < height; j++) {
      work(width);
    }
    MPI_Sendrecv(&halo, 1, MPI_DOUBLE, right, 0, &back, 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    found += search(8, 12);
  }
  const double elapsed = MPI_Wtime() - t0;
  if (my_ID == root) {
    printf("grid %dx%d found %d elapsed %.6f\n", npx, npy, found, elapsed);
  }
  MPI_Finalize();
  return 0;
}
