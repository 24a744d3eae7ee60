/* Master-worker: rank 0 hands out `tasks` task numbers, one at a time, to whichever worker asks
 * (MPI_ANY_SOURCE, the worker's rank read from status.MPI_SOURCE); workers compute and send a
 * result back; a message with tag STOP ends a worker. With one process the master does the work
 * itself.
 *
 *   mpirun -np 4 ./master_worker [tasks=200] [work=20000]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define WORK 1
#define STOP 2

static double compute(int task, int work) {
  double x = task;
  for (int i = 0; i < work; i++) {
    x = x * 0.999 + 1.0 / (1.0 + (double)i);
  }
  return x;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int tasks = argc > 1 ? atoi(argv[1]) : 200;
  int work = argc > 2 ? atoi(argv[2]) : 20000;
  double total = 0.0;

  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  if (size == 1) {
    for (int t = 0; t < tasks; t++) {
      total += compute(t, work);
    }
  } else if (rank == 0) {
    int next = 0;
    // Prime every worker, then hand out the rest as results come back.
    for (int w = 1; w < size; w++) {
      if (next < tasks) {
        MPI_Send(&next, 1, MPI_INT, w, WORK, MPI_COMM_WORLD);
        next++;
      } else {
        MPI_Send(&next, 1, MPI_INT, w, STOP, MPI_COMM_WORLD);
      }
    }
    for (int done = 0; done < tasks; done++) {
      double result;
      MPI_Status status;
      MPI_Recv(&result, 1, MPI_DOUBLE, MPI_ANY_SOURCE, WORK, MPI_COMM_WORLD, &status);
      total += result;
      if (next < tasks) {
        MPI_Send(&next, 1, MPI_INT, status.MPI_SOURCE, WORK, MPI_COMM_WORLD);
        next++;
      } else {
        MPI_Send(&next, 1, MPI_INT, status.MPI_SOURCE, STOP, MPI_COMM_WORLD);
      }
    }
  } else {
    while (1) {
      int task;
      MPI_Status status;
      MPI_Recv(&task, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
      if (status.MPI_TAG == STOP) {
        break;
      }
      double result = compute(task, work);
      MPI_Send(&result, 1, MPI_DOUBLE, 0, WORK, MPI_COMM_WORLD);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double elapsed = MPI_Wtime() - start;
  if (rank == 0) {
    printf("total %g\n", total);
    printf("time %.6f\n", elapsed);
  }
  MPI_Finalize();
  return 0;
}
