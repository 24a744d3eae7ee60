/* The OSU micro-benchmarks' options (osu_pt2pt.c:142-179, osu_latency.c): getopt's cases hand
 * the number straight to a setter, `if (set_num_iterations(atoi(optarg))) ...`, which stores
 * it in the global options that bound the timing loop of every message size. The setter's
 * parameter is the input `-i`, named after the setter (`num_iterations`).
 *   mpirun -np 2 ./setter_options -i ITERATIONS -x WARMUP */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct options {
  int loop;
  int skip;
};
static struct options options;

static int set_num_iterations(int value) {
  if (1 > value) {
    return -1;
  }
  options.loop = value;
  return 0;
}

static int set_num_warmup(int value) {
  if (0 > value) {
    return -1;
  }
  options.skip = value;
  return 0;
}

static int process_options(int argc, char *argv[]) {
  int c;
  options.loop = 1000;
  options.skip = 100;
  while ((c = getopt(argc, argv, "+x:i:h")) != -1) {
    switch (c) {
    case 'i':
      if (set_num_iterations(atoi(optarg))) {
        return 1;
      }
      break;
    case 'x':
      if (set_num_warmup(atoi(optarg))) {
        return 1;
      }
      break;
    default:
      return 1;
    }
  }
  return 0;
}

int main(int argc, char *argv[]) {
  int rank, size;
  char buffer[4096];
  const int bad = process_options(argc, argv);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (bad || size != 2) {
    if (rank == 0) {
      fprintf(stderr, "usage: mpirun -np 2 %s -i ITERATIONS -x WARMUP\n", argv[0]);
    }
    MPI_Finalize();
    return 1;
  }
  for (int bytes = 1; bytes <= 4096; bytes *= 4) {
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < options.loop + options.skip; i++) {
      if (rank == 0) {
        MPI_Send(buffer, bytes, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
        MPI_Recv(buffer, bytes, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(buffer, bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buffer, bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
      }
    }
  }
  if (rank == 0) {
    printf("%d iterations, %d warm-up\n", options.loop, options.skip);
  }
  MPI_Finalize();
  return 0;
}
