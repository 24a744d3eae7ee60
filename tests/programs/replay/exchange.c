/* A traced run to replay (issue 14, "replay of a traced run reproduces its time"): per
 * iteration every rank computes, exchanges with its ring neighbours and joins an allreduce.
 *
 *   mpirun -np 4 ./exchange -n 50 -c 2000 -i 50 -s 1024 -b 0 -a 1
 *
 * -n iterations, -c µs of busy computation on rank 0, -i per cent more computation per rank
 * (rank r computes c * (1 + r * i / 100): the waiting the replay must rebuild), -s bytes per
 * neighbour message (small: eager; past the eager limit: rendezvous), -b 1 non-blocking
 * (Isend/Irecv/Waitall) instead of MPI_Sendrecv, -a doubles in the allreduce (0: none), -z 1
 * sleep instead of computing: a sleeping rank leaves the core to the others and ends on time,
 * where a busy loop on a loaded or oversubscribed machine overshoots by scheduler time slices
 * (tests that need the computation to be what was asked use -z 1; a trace shows both as user
 * code). */
#define _POSIX_C_SOURCE 199309L
#include <mpi.h>
#include <stdlib.h>
#include <time.h>

static long option(int argc, char **argv, const char *flag, long fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    const char *a = argv[i];
    if (a[0] == flag[0] && a[1] == flag[1] && a[2] == '\0') {
      return strtol(argv[i + 1], NULL, 10);
    }
  }
  return fallback;
}

/* Busy work (or a sleep) for `us` microseconds of wall time. */
static void compute(long us, int sleep) {
  if (sleep) {
    const struct timespec span = {us / 1000000L, (us % 1000000L) * 1000L};
    nanosleep(&span, NULL);
    return;
  }
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  volatile double x = 1.0;
  do {
    for (int k = 0; k < 256; ++k) {
      x = x * 1.0000001 + 1e-9;
    }
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while ((now.tv_sec - start.tv_sec) * 1000000L + (now.tv_nsec - start.tv_nsec) / 1000 < us);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long iterations = option(argc, argv, "-n", 50);
  const long work = option(argc, argv, "-c", 2000);
  const long imbalance = option(argc, argv, "-i", 50);
  const long bytes = option(argc, argv, "-s", 1024);
  const int nonblocking = (int)option(argc, argv, "-b", 0);
  const int reduce = (int)option(argc, argv, "-a", 1);
  const int sleep = (int)option(argc, argv, "-z", 0);
  char *out = calloc((size_t)(bytes > 0 ? bytes : 1), 2);
  char *in = out + (bytes > 0 ? bytes : 1);
  double *sum = calloc((size_t)(reduce > 0 ? reduce : 1), 2 * sizeof(double));
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (long it = 0; it < iterations; ++it) {
    compute(work * (100 + rank * imbalance) / 100, sleep);
    if (size > 1 && nonblocking) {
      MPI_Request req[2];
      MPI_Irecv(in, (int)bytes, MPI_BYTE, left, 7, MPI_COMM_WORLD, &req[0]);
      MPI_Isend(out, (int)bytes, MPI_BYTE, right, 7, MPI_COMM_WORLD, &req[1]);
      MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    } else if (size > 1) {
      MPI_Sendrecv(out, (int)bytes, MPI_BYTE, right, 7, in, (int)bytes, MPI_BYTE, left, 7,
                   MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (reduce > 0) {
      MPI_Allreduce(sum, sum + reduce, reduce, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
  }
  free(sum);
  free(out);
  MPI_Finalize();
  return 0;
}
