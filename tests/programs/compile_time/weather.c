/* Sizes and times from the compile line (issue 12; mrnorman/miniWeather's idiom): the grid, the
 * simulated time and the output interval are -D flags (-DNX=256 -DNZ=64 -DT_END=20
 * -DOUT_FREQ=-1 -DSCALE="(1)"), held in constants computed from them; the time step loop adds a
 * floating step to the time until it reaches T_END, and every rank swaps HALO columns with its
 * left and right neighbours (periodic) each half step. Our own program, written for parjava's
 * tests; prints `time X` (rank 0, seconds between the first and the last step). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define LEN 2.0e4 /* defined here: a constant of the program, not an input */

#if NX >= 4096 /* a wide grid takes a wider stencil: a choice the build makes */
enum { HALO = 3 };
#else
enum { HALO = 2 };
#endif
static const int nx_glob = NX;
static const int nz = NZ;
static const double t_end = T_END;
static const double out_freq = OUT_FREQ;
static const double dx = LEN / nx_glob;
static const double dz = LEN / 2 / NZ;

static double step_min(double a, double b) { return a < b ? a : b; }

static void relax(double *q, const double *r, int nx, double c) {
  for (int k = 0; k < nz; k++) {
    for (int i = HALO; i < nx + HALO; i++) {
      const int at = k * (nx + 2 * HALO) + i;
      q[at] = r[at] + c * (r[at - 1] - 2.0 * r[at] + r[at + 1] + sqrt(fabs(r[at]) + 1.0));
    }
  }
}

static void exchange(double *q, int nx, int left, int right, double *buf) {
  MPI_Request req[4];
  const int count = HALO * nz;
  for (int k = 0; k < nz; k++) {
    for (int s = 0; s < HALO; s++) {
      buf[2 * count + k * HALO + s] = q[k * (nx + 2 * HALO) + HALO + s];
      buf[3 * count + k * HALO + s] = q[k * (nx + 2 * HALO) + nx + s];
    }
  }
  MPI_Irecv(buf, count, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &req[0]);
  MPI_Irecv(buf + count, count, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[1]);
  MPI_Isend(buf + 2 * count, count, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[2]);
  MPI_Isend(buf + 3 * count, count, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &req[3]);
  MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const double nper = (double)nx_glob / size;
  const int i_beg = (int)round(nper * rank);
  const int nx = (int)round(nper * (rank + 1)) - i_beg;
  const int left = (rank + size - 1) % size;
  const int right = (rank + 1) % size;
  const size_t cells = (size_t)(nx + 2 * HALO) * nz;
  double *q = calloc(cells, sizeof(double));
  double *r = calloc(cells, sizeof(double));
  double *buf = calloc(4 * (size_t)HALO * nz, sizeof(double));
  for (size_t c = 0; c < cells; c++) {
    r[c] = (double)(c % 17);
  }
  double dt = step_min(dx, dz) / 450.0 * 1.5;
  double etime = 0.0;
  double counter = 0.0;
  int outputs = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  while (etime < t_end) {
    if (etime + dt > t_end) {
      dt = t_end - etime;
    }
    for (int half = 0; half < 2 * SCALE; half++) {
      exchange(r, nx, left, right, buf);
      relax(q, r, nx, 1e-3 * dt);
      double *t = q;
      q = r;
      r = t;
    }
    etime += dt;
    counter += dt;
    if (out_freq >= 0 && counter >= out_freq) {
      counter -= out_freq;
      outputs++;
    }
  }
  const double t1 = MPI_Wtime();
  if (rank == 0) {
    printf("outputs %d sum %g\ntime %.6f\n", outputs, r[cells / 2], t1 - t0);
  }
  free(q);
  free(r);
  free(buf);
  MPI_Finalize();
  return 0;
}
