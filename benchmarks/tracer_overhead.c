/* Cost of MPI_Iprobe and MPI_Test in a tight loop, for the tracer-overhead benchmark
 * (tracer_overhead.py runs it with and without libparjava_tracer.so preloaded).
 *
 *   mpirun -np 1 ./tracer_overhead BATCHES CALLS
 *
 * A receive from self that nobody has sent yet stays pending, so every MPI_Test fails (the
 * tracer then also records an MpiRequestTest) and every MPI_Iprobe finds nothing. Prints one
 * line per batch: "batch <i> iprobe_ns <ns per call> test_ns <ns per call>". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int batches = argc > 1 ? atoi(argv[1]) : 21;
  const int calls = argc > 2 ? atoi(argv[2]) : 20000;
  int rank = 0, value = 0, flag = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Request pending;
  MPI_Irecv(&value, 1, MPI_INT, rank, 99, MPI_COMM_WORLD, &pending);
  MPI_Status status;
  for (int b = 0; b < batches; ++b) {
    double t0 = now_ns();
    for (int i = 0; i < calls; ++i) {
      MPI_Iprobe(MPI_ANY_SOURCE, 98, MPI_COMM_WORLD, &flag, &status);
    }
    double t1 = now_ns();
    for (int i = 0; i < calls; ++i) {
      MPI_Test(&pending, &flag, &status);
    }
    double t2 = now_ns();
    if (rank == 0) {
      printf("batch %d iprobe_ns %.2f test_ns %.2f\n", b, (t1 - t0) / calls, (t2 - t1) / calls);
    }
  }
  const int one = 1;
  MPI_Send(&one, 1, MPI_INT, rank, 99, MPI_COMM_WORLD);
  MPI_Wait(&pending, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return value == 1 ? 0 : 1;
}
