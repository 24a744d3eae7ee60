/* Multigrid V-cycles for the 1D Poisson equation -u'' = f on N points split in blocks across
 * the ranks. The V-cycle recurses over the levels (vcycle calls itself on the grid of half the
 * points until the coarsest level), every smoothing sweep and every transfer between levels
 * exchanges the halo points with the neighbours (MPI_Sendrecv with rank - 1 and rank + 1), and
 * every cycle ends with the residual norm (MPI_Allreduce).
 *
 *   mpirun -np 4 ./multigrid [N=1048576] [cycles=10] [levels=12]
 * N / size must be divisible by 2^(levels - 1). Prints "time <seconds>" measured between the
 * barriers around the cycles.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_LEVELS 30

static double *u[MAX_LEVELS];
static double *f[MAX_LEVELS];
static double *r[MAX_LEVELS];
static int up, down;

/* The halo points v[0] and v[n + 1] from the neighbours (PROC_NULL at the ends keeps 0). */
static void exchange(double *v, int n) {
  MPI_Sendrecv(&v[n], 1, MPI_DOUBLE, down, 0, &v[0], 1, MPI_DOUBLE, up, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(&v[1], 1, MPI_DOUBLE, up, 1, &v[n + 1], 1, MPI_DOUBLE, down, 1, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
}

/* Weighted Jacobi (omega = 2/3) on level `level` of n local points, mesh width squared h2. */
static void smooth(int level, int n, double h2, int sweeps) {
  double *v = u[level];
  double *rhs = f[level];
  double *t = r[level];
  for (int s = 0; s < sweeps; s++) {
    exchange(v, n);
    for (int i = 1; i <= n; i++) {
      t[i] = v[i] + (2.0 / 3.0) * (0.5 * (v[i - 1] + v[i + 1] + h2 * rhs[i]) - v[i]);
    }
    for (int i = 1; i <= n; i++) {
      v[i] = t[i];
    }
  }
}

static void residual(int level, int n, double h2) {
  double *v = u[level];
  double *rhs = f[level];
  double *res = r[level];
  exchange(v, n);
  for (int i = 1; i <= n; i++) {
    res[i] = rhs[i] - (2.0 * v[i] - v[i - 1] - v[i + 1]) / h2;
  }
}

/* Full weighting of the residual onto the coarse right-hand side; the coarse guess is 0. */
static void restrict_residual(int level, int n) {
  double *res = r[level];
  double *coarse = f[level - 1];
  double *guess = u[level - 1];
  exchange(res, n);
  for (int i = 1; i <= n / 2; i++) {
    coarse[i] = 0.25 * (res[2 * i - 1] + 2.0 * res[2 * i] + res[2 * i + 1]);
    guess[i] = 0.0;
  }
  guess[0] = 0.0;
  guess[n / 2 + 1] = 0.0;
}

/* Linear interpolation of the coarse correction, added to the fine solution. */
static void prolong(int level, int n) {
  double *v = u[level];
  double *coarse = u[level - 1];
  exchange(coarse, n / 2);
  for (int i = 1; i <= n / 2; i++) {
    v[2 * i] += coarse[i];
    v[2 * i - 1] += 0.5 * (coarse[i - 1] + coarse[i]);
  }
}

static void vcycle(int level, int n, double h2) {
  smooth(level, n, h2, 2);
  if (level == 0) {
    smooth(level, n, h2, 8);
    return;
  }
  residual(level, n, h2);
  restrict_residual(level, n);
  vcycle(level - 1, n / 2, 4.0 * h2);
  prolong(level, n);
  smooth(level, n, h2, 2);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int N = argc > 1 ? atoi(argv[1]) : 1048576;
  int cycles = argc > 2 ? atoi(argv[2]) : 10;
  int levels = argc > 3 ? atoi(argv[3]) : 12;
  int n = N / size;
  if (levels < 1 || levels > MAX_LEVELS || n % (1 << (levels - 1)) != 0) {
    if (rank == 0) {
      fprintf(stderr, "N / size must be divisible by 2^(levels - 1)\n");
    }
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  /* Every level's arrays, written once here so that first-touch page faults stay out of the
   * timed cycles. */
  for (int l = 0; l < levels; l++) {
    int m = n >> (levels - 1 - l);
    u[l] = malloc(((size_t)m + 2) * sizeof(double));
    f[l] = malloc(((size_t)m + 2) * sizeof(double));
    r[l] = malloc(((size_t)m + 2) * sizeof(double));
    for (int i = 0; i < m + 2; i++) {
      u[l][i] = 0.0;
      f[l][i] = 0.0;
      r[l][i] = 0.0;
    }
  }
  double h = 1.0 / (N + 1);
  double h2 = h * h;
  double *rhs = f[levels - 1];
  for (int i = 1; i <= n; i++) {
    rhs[i] = (double)((rank * n + i) % 17) - 8.0;
  }
  double norm = 0.0;

  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (int c = 0; c < cycles; c++) {
    vcycle(levels - 1, n, h2);
    residual(levels - 1, n, h2);
    double *res = r[levels - 1];
    double local = 0.0;
    for (int i = 1; i <= n; i++) {
      local += res[i] * res[i];
    }
    MPI_Allreduce(&local, &norm, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double elapsed = MPI_Wtime() - start;
  if (rank == 0) {
    printf("residual %g\n", norm);
    printf("time %.6f\n", elapsed);
  }
  for (int l = 0; l < levels; l++) {
    free(u[l]);
    free(f[l]);
    free(r[l]);
  }
  MPI_Finalize();
  return 0;
}
