/* A KBA-like wavefront over a 1-D chain of processes, scheduled as ORNL minisweep schedules its
 * sweeps: which block a process works on at a step, and whether a face goes to a neighbour, come
 * from small structs returned by value -- the step's info for this process and for the
 * neighbour, two objects of one struct compared field by field (record_copies.hpp).
 *
 * usage: wavefront ITERATIONS CELLS [NBLOCK]
 * Each rank prints how many faces it sent and received; rank 0 prints the slowest rank's time of
 * the sweeps ("time S"). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  int block;
  int octant;
  int active;
} StepInfo;

typedef struct {
  int nblock;
  int nproc;
} Schedule;

/* The block `proc` works on at `step`: the up sweep (octant 0) then the down sweep. */
static StepInfo stepinfo(const Schedule *sched, int step, int proc) {
  StepInfo info;
  const int per_octant = sched->nblock + sched->nproc - 1;
  info.octant = step / per_octant;
  const int wave = step - info.octant * per_octant;
  const int position = info.octant == 0 ? proc : sched->nproc - 1 - proc;
  info.block = wave - position;
  info.active = info.block >= 0 && info.block < sched->nblock && proc >= 0 && proc < sched->nproc &&
                info.octant < 2;
  return info;
}

/* A face computed at `step` goes to proc + dir when the neighbour works on the same block of
 * the same octant at step + 1. */
static int must_send(const Schedule *sched, int step, int proc, int dir) {
  const StepInfo source = stepinfo(sched, step, proc);
  const StepInfo target = stepinfo(sched, step + 1, proc + dir);
  return source.active && target.active && source.octant == target.octant &&
         source.block == target.block && (source.octant == 0 ? 1 : -1) == dir;
}

static int must_recv(const Schedule *sched, int step, int proc, int dir) {
  const StepInfo source = stepinfo(sched, step, proc - dir);
  const StepInfo target = stepinfo(sched, step + 1, proc);
  return source.active && target.active && source.octant == target.octant &&
         source.block == target.block && (source.octant == 0 ? 1 : -1) == dir;
}

/* The block's work, from a copy of the step's info passed by value. */
static double sweep_block(StepInfo info, const double *face, int cells) {
  double s = 0.0;
  for (int i = 0; i < cells * (info.block + 1); ++i) {
    s += face[i % cells] * 0.5 + (double)(i & 7);
  }
  return s;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iterations = argc > 1 ? atoi(argv[1]) : 4;
  const int cells = argc > 2 ? atoi(argv[2]) : 100000;
  Schedule sched;
  sched.nblock = argc > 3 ? atoi(argv[3]) : 4;
  sched.nproc = size;
  double *face = calloc((size_t)cells, sizeof(double));
  /* A face is a block's boundary: small beside the block's work. */
  const int face_size = cells < 1000 ? cells : 1000;
  const int nstep = 2 * (sched.nblock + size - 1);
  int sent = 0, received = 0;
  double sum = 0.0;
  const double start = MPI_Wtime();
  for (int it = 0; it < iterations; ++it) {
    for (int step = 0; step < nstep; ++step) {
      const StepInfo mine = stepinfo(&sched, step, rank);
      if (mine.active) {
        sum += sweep_block(mine, face, cells);
      }
      for (int dir = 1; dir >= -1; dir -= 2) {
        if (must_send(&sched, step, rank, dir)) {
          MPI_Send(face, face_size, MPI_DOUBLE, rank + dir, step, MPI_COMM_WORLD);
          ++sent;
        }
        if (must_recv(&sched, step, rank, dir)) {
          MPI_Recv(face, face_size, MPI_DOUBLE, rank - dir, step, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
          ++received;
        }
      }
    }
  }
  double elapsed = MPI_Wtime() - start, slowest = 0.0;
  MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  printf("rank %d sent %d received %d (%g)\n", rank, sent, received, sum);
  if (rank == 0) {
    printf("time %.6f\n", slowest);
  }
  free(face);
  MPI_Finalize();
  return 0;
}
