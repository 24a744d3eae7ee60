/* A compute-bound time-step loop (with "sleep", one that sleeps as long; with "short", the same
 * work in 20000 short calls between cheap MPI calls, so that the model keeps the loop and times
 * every call): estimated while other processes take the CPUs, its block times must be those of
 * the program, not of the neighbours (tests/python/test_estimation_noise.py). */
#define _POSIX_C_SOURCE 199309L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double work(long n, double x) {
  for (long i = 0; i < n; ++i) {
    x = x * 0.999999 + 1e-9;
  }
  return x;
}

static void pause_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int steps = argc > 1 ? atoi(argv[1]) : 20;
  const int sleeping = argc > 2 && strcmp(argv[2], "sleep") == 0;
  const int shortcalls = argc > 2 && strcmp(argv[2], "short") == 0;
  int rank;
  double x = 1.0;
  for (int step = 0; step < steps; ++step) {
    if (sleeping) {
      pause_ms(20);
    } else if (shortcalls) {
      for (int c = 0; c < 20000; ++c) {
        x = work(600, x);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      }
    } else {
      x = work(12000000, x);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  printf("%g\n", x);
  MPI_Finalize();
  return 0;
}
