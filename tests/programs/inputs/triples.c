/* Options that take several values, as LLNL/AMG's driver parses them: `-n nx ny nz` by stepping
 * the index before each read (`arg_index++; nx = atoi(argv[arg_index++]); ...`), and `-P px py
 * pz` by offsets from the option (`atoi(argv[i + 1])`, `argv[i + 2]`, ...). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double relax(double *u, long n, int sweeps) {
  double s = 0.0;
  for (int k = 0; k < sweeps; ++k) {
    for (long i = 1; i < n - 1; ++i) {
      u[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]);
    }
    s += u[n / 2];
  }
  return s;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int nx = 10;
  int ny = 10;
  int nz = 10;
  int px = 1;
  int py = 1;
  int pz = 1;
  int sweeps = 4;
  int arg_index = 1;
  while (arg_index < argc) {
    if (strcmp(argv[arg_index], "-n") == 0) {
      arg_index++;
      nx = atoi(argv[arg_index++]);
      ny = atoi(argv[arg_index++]);
      nz = atoi(argv[arg_index++]);
    } else if (strcmp(argv[arg_index], "-P") == 0) {
      px = atoi(argv[arg_index + 1]);
      py = atoi(argv[arg_index + 2]);
      pz = atoi(argv[arg_index + 3]);
      arg_index += 4;
    } else if (strcmp(argv[arg_index], "-s") == 0) {
      sweeps = atoi(argv[++arg_index]);
      arg_index++;
    } else {
      arg_index++;
    }
  }
  int size = 1;
  int rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (px * py * pz != size) {
    if (rank == 0) {
      fprintf(stderr, "-P %d %d %d needs %d processes\n", px, py, pz, px * py * pz);
    }
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const long n = (long)nx * ny * nz / size;
  double *u = calloc((size_t)n, sizeof(double));
  double t0 = MPI_Wtime();
  double s = relax(u, n, sweeps);
  double total = 0.0;
  MPI_Allreduce(&s, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("time %.6f sum %g\n", MPI_Wtime() - t0, total);
  }
  free(u);
  MPI_Finalize();
  return 0;
}
