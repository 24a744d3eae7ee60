/* Two marked phases for the interval analysis (seed 004 §2.2): "balanced", where every rank
 * computes the same time, and "imbalanced", where even ranks compute twice as long as odd ones
 * (2:1). A barrier separates the phases and is outside both, so the imbalance shows as idle
 * time and load imbalance of the "imbalanced" interval, and not of the "balanced" one.
 *
 *   mpicc -O2 -g -I$(python3 -c "import parjava; print(parjava.include_dir())") phases.c
 *   parjava trace -np 4 ./a.out -n 3 -w 40000      then: parjava intervals <archive>
 *
 * -n iterations (3), -w microseconds of work of the light ranks per phase (40000), -s 1 to
 * sleep instead of computing. The work is a busy loop on the wall clock; on an oversubscribed
 * machine a busy loop overshoots by whole scheduler time slices, while a sleep ends on time,
 * so tests that need exact durations on a loaded machine use -s 1 (a trace shows both as
 * user code). */
#define _POSIX_C_SOURCE 199309L
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <parjava/interval.h>

static long option(int argc, char **argv, const char *flag, long fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (strcmp(argv[i], flag) == 0) {
      return strtol(argv[i + 1], NULL, 10);
    }
  }
  return fallback;
}

static void sleep_for(long us) {
  struct timespec left = {us / 1000000L, (us % 1000000L) * 1000L};
  while (nanosleep(&left, &left) != 0) {
  }
}

static void compute(long us) {
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  volatile double x = 1.0;
  do {
    for (int i = 0; i < 200; ++i) {
      x = x * 1.0000001 + 1e-9;
    }
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while ((now.tv_sec - start.tv_sec) * 1000000L + (now.tv_nsec - start.tv_nsec) / 1000L < us);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const long iterations = option(argc, argv, "-n", 3);
  const long work = option(argc, argv, "-w", 40000);
  void (*work_for)(long) = option(argc, argv, "-s", 0) ? sleep_for : compute;
  for (long it = 0; it < iterations; ++it) {
    MPI_Barrier(MPI_COMM_WORLD);
    parjava_interval_begin(1, "balanced");
    work_for(work);
    parjava_interval_end(1);
    MPI_Barrier(MPI_COMM_WORLD);
    parjava_interval_begin(2, "imbalanced");
    work_for(rank % 2 == 0 ? 2 * work : work);
    parjava_interval_end(2);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
