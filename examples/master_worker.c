/* Master-worker: rank 0 hands out tasks and collects results with MPI_Recv from
 * MPI_ANY_SOURCE (whichever worker finishes first), workers compute and reply.
 *
 *   mpirun -np 4 ./master_worker -t 24 -w 500
 *
 * -t tasks (24), -w µs of work per task unit (500); task i costs (1 + i % 3) units, so workers
 * finish in varying order. A task id 0 with tag 2 stops a worker.
 * Lines marked "callsite:" are checked by the tracer tests (the call is on the next line). */
#include <mpi.h>
#include <stdio.h>

#include "example_args.h"

enum { TAG_TASK = 1, TAG_STOP = 2, TAG_RESULT = 3 };

static void master(int size, long tasks) {
  long next = 0, done = 0, sum = 0;
  /* Prime every worker with one task (or stop it if there are none left). */
  for (int w = 1; w < size; ++w) {
    long task = next < tasks ? ++next : 0;
    MPI_Send(&task, 1, MPI_LONG, w, task ? TAG_TASK : TAG_STOP, MPI_COMM_WORLD);
  }
  while (done < next) {
    long result = 0;
    MPI_Status status;
    /* callsite: master-recv-any */
    MPI_Recv(&result, 1, MPI_LONG, MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &status);
    ++done;
    sum += result;
    long task = next < tasks ? ++next : 0;
    /* callsite: master-send */
    MPI_Send(&task, 1, MPI_LONG, status.MPI_SOURCE, task ? TAG_TASK : TAG_STOP, MPI_COMM_WORLD);
  }
  printf("master_worker: %ld tasks, checksum %ld\n", done, sum);
}

static void worker(long work_us) {
  for (;;) {
    long task = 0;
    MPI_Status status;
    /* callsite: worker-recv */
    MPI_Recv(&task, 1, MPI_LONG, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
    if (status.MPI_TAG == TAG_STOP) {
      return;
    }
    example_compute(work_us * (1 + task % 3));
    long result = task * task;
    /* callsite: worker-send */
    MPI_Send(&result, 1, MPI_LONG, 0, TAG_RESULT, MPI_COMM_WORLD);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long tasks = example_option(argc, argv, "-t", 24);
  const long work_us = example_option(argc, argv, "-w", 500);
  if (size < 2) {
    fprintf(stderr, "master_worker: needs at least 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (rank == 0) {
    master(size, tasks);
  } else {
    worker(work_us);
  }
  MPI_Finalize();
  return 0;
}
