/* Every PE increments counters on one hot PE (the last), a GUPS-like pattern of OpenSHMEM
 * atomics under contention. Our own program, written for parjava's tests: the model builder
 * models MPI, so these calls must be named as unmodelled, never predicted silently. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

static long counters[64];

int main(int argc, char **argv) {
  shmem_init();
  const int me = shmem_my_pe();
  const int npes = shmem_n_pes();
  const int updates = argc > 1 ? atoi(argv[1]) : 1000;
  const int hot = npes - 1;
  shmem_barrier_all();
  for (int i = 0; i < updates; i++) {
    shmem_long_atomic_inc(&counters[i % 64], hot);
  }
  shmem_barrier_all();
  if (me == hot) {
    long total = 0;
    for (int i = 0; i < 64; i++) {
      total += counters[i];
    }
    printf("total %ld of %d\n", total, updates * npes);
  }
  shmem_finalize();
  return 0;
}
