/* A 2-D FFT of an N x N complex matrix distributed by rows: FFT of the local rows, a global
 * transpose with MPI_Alltoall (each rank sends every other rank a (N/size) x (N/size) block),
 * a local re-ordering of the received blocks, and FFT of the rows again -- the communication
 * pattern of NPB FT (seed 000 §7.4).
 *
 *   mpirun -np 4 ./fft_transpose [N=256] [repetitions=4]     (N a power of two, divisible by size)
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* In-place radix-2 FFT of one row of n = 2^logn complex values (re, im). */
static void fft_row(double *re, double *im, int n, int logn) {
  for (int i = 1, j = 0; i < n; i++) {
    int bit = n >> 1;
    for (; j & bit; bit >>= 1) {
      j ^= bit;
    }
    j ^= bit;
    if (i < j) {
      double t = re[i];
      re[i] = re[j];
      re[j] = t;
      t = im[i];
      im[i] = im[j];
      im[j] = t;
    }
  }
  for (int s = 0; s < logn; s++) {
    int half = 1 << s;
    double angle = -3.14159265358979323846 / half;
    for (int k = 0; k < n; k += 2 * half) {
      for (int j = 0; j < half; j++) {
        double wr = cos(angle * j), wi = sin(angle * j);
        double xr = re[k + j + half] * wr - im[k + j + half] * wi;
        double xi = re[k + j + half] * wi + im[k + j + half] * wr;
        re[k + j + half] = re[k + j] - xr;
        im[k + j + half] = im[k + j] - xi;
        re[k + j] += xr;
        im[k + j] += xi;
      }
    }
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = argc > 1 ? atoi(argv[1]) : 256;
  int repetitions = argc > 2 ? atoi(argv[2]) : 4;
  int logn = 0;
  while ((1 << logn) < n) {
    logn++;
  }
  int rows = n / size;
  int block = rows * rows;
  double *re = malloc((size_t)rows * n * sizeof(double));
  double *im = malloc((size_t)rows * n * sizeof(double));
  double *send = malloc((size_t)2 * rows * n * sizeof(double));
  double *recv = malloc((size_t)2 * rows * n * sizeof(double));
  for (int i = 0; i < rows * n; i++) {
    re[i] = (double)((rank * rows * n + i) % 17);
    im[i] = 0.0;
  }

  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (int r = 0; r < repetitions; r++) {
    for (int i = 0; i < rows; i++) {
      fft_row(&re[i * n], &im[i * n], n, logn);
    }
    /* Pack: the block for rank p holds columns p*rows .. p*rows+rows-1 of the local rows. */
    for (int p = 0; p < size; p++) {
      for (int i = 0; i < rows; i++) {
        for (int j = 0; j < rows; j++) {
          send[2 * (p * block + i * rows + j)] = re[i * n + p * rows + j];
          send[2 * (p * block + i * rows + j) + 1] = im[i * n + p * rows + j];
        }
      }
    }
    MPI_Alltoall(send, 2 * block, MPI_DOUBLE, recv, 2 * block, MPI_DOUBLE, MPI_COMM_WORLD);
    /* Unpack transposed: element (i, j) of the block from rank p goes to (j, p*rows + i). */
    for (int p = 0; p < size; p++) {
      for (int i = 0; i < rows; i++) {
        for (int j = 0; j < rows; j++) {
          re[j * n + p * rows + i] = recv[2 * (p * block + i * rows + j)];
          im[j * n + p * rows + i] = recv[2 * (p * block + i * rows + j) + 1];
        }
      }
    }
    for (int i = 0; i < rows; i++) {
      fft_row(&re[i * n], &im[i * n], n, logn);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double elapsed = MPI_Wtime() - start;
  double local = 0.0, norm = 0.0;
  for (int i = 0; i < rows * n; i++) {
    local += re[i] * re[i] + im[i] * im[i];
  }
  MPI_Reduce(&local, &norm, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("norm %g\n", norm);
    printf("time %.6f\n", elapsed);
  }
  free(re);
  free(im);
  free(send);
  free(recv);
  MPI_Finalize();
  return 0;
}
