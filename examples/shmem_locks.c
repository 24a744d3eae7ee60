/* OpenSHMEM with a global lock and collectives (seed 001's PGAS events): every PE increments
 * a counter on PE 0 under shmem_set_lock (the lock is held -w µs, so PEs contend), tries
 * shmem_test_lock, then the PEs run the collectives: barrier_all, broadcast, fcollect, collect,
 * sum and max reductions, an active-set barrier, and a collective allocation (shmem_malloc /
 * shmem_free).
 *
 *   oshrun -np 4 ./shmem_locks -n 5 -w 200
 *
 * -n lock rounds per PE (5), -w µs the lock is held (200).
 * Lines marked "callsite:" are checked by the tracer tests (the call is on the next line). */
#include <shmem.h>
#include <stdio.h>

#include "example_args.h"

static long lock = 0;
static long counter = 0;
static long sync_bcast[SHMEM_BCAST_SYNC_SIZE];
static long sync_collect[SHMEM_COLLECT_SYNC_SIZE];
static long sync_reduce[SHMEM_REDUCE_SYNC_SIZE];
static long sync_barrier[SHMEM_BARRIER_SYNC_SIZE];
static int work_int[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long work_long[SHMEM_REDUCE_MIN_WRKDATA_SIZE];

int main(int argc, char **argv) {
  shmem_init();
  const int me = shmem_my_pe();
  const int npes = shmem_n_pes();
  const long rounds = example_option(argc, argv, "-n", 5);
  const long hold_us = example_option(argc, argv, "-w", 200);
  for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; ++i) {
    sync_bcast[i] = SHMEM_SYNC_VALUE;
  }
  for (int i = 0; i < SHMEM_COLLECT_SYNC_SIZE; ++i) {
    sync_collect[i] = SHMEM_SYNC_VALUE;
  }
  for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i) {
    sync_reduce[i] = SHMEM_SYNC_VALUE;
  }
  for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; ++i) {
    sync_barrier[i] = SHMEM_SYNC_VALUE;
  }
  /* callsite: barrier-start */
  shmem_barrier_all();

  for (long r = 0; r < rounds; ++r) {
    /* callsite: set-lock */
    shmem_set_lock(&lock);
    long value = 0;
    shmem_getmem(&value, &counter, sizeof value, 0);
    example_compute(hold_us);
    value += 1;
    shmem_putmem(&counter, &value, sizeof value, 0);
    shmem_quiet();
    /* callsite: clear-lock */
    shmem_clear_lock(&lock);
  }
  if (shmem_test_lock(&lock) == 0) { /* 0: acquired */
    shmem_clear_lock(&lock);
  }
  shmem_barrier_all();

  /* Collectives: broadcast PE 0's counter, gather every PE's id, reduce. Their buffers are
   * symmetric (static or from shmem_malloc). */
  static long total = 0;
  /* callsite: broadcast */
  shmem_broadcast64(&total, &counter, 1, 0, 0, 0, npes, sync_bcast);
  shmem_barrier_all();
  int *ids = shmem_malloc(sizeof(int) * (size_t)npes);
  int *mine = shmem_malloc(sizeof(int));
  *mine = me;
  shmem_barrier_all();
  shmem_fcollect32(ids, mine, 1, 0, 0, npes, sync_collect);
  shmem_barrier_all();
  shmem_collect32(ids, mine, 1, 0, 0, npes, sync_collect);
  static int sum_in, sum_out;
  static long max_in, max_out;
  sum_in = me;
  max_in = me;
  shmem_barrier_all();
  /* callsite: sum-to-all */
  shmem_int_sum_to_all(&sum_out, &sum_in, 1, 0, 0, npes, work_int, sync_reduce);
  shmem_barrier_all();
  shmem_long_max_to_all(&max_out, &max_in, 1, 0, 0, npes, work_long, sync_reduce);
  if (me % 2 == 0) { /* the active set of even PEs: start 0, stride 2^1 */
    shmem_barrier(0, 1, (npes + 1) / 2, sync_barrier);
  }
  shmem_fence();
  shmem_barrier_all();
  if (me == 0) {
    /* The root's broadcast target is not written (OpenSHMEM 1.x), so PE 0 reports its own
     * counter; PE 1 reports what the broadcast delivered. */
    printf("shmem_locks: counter %ld (expected %ld), sum of PEs %d, max PE %ld\n", counter,
           rounds * npes, sum_out, max_out);
  } else if (me == 1) {
    printf("shmem_locks: PE 1 received %ld from the broadcast\n", total);
    fflush(stdout);
  }
  shmem_free(mine);
  shmem_free(ids);
  shmem_finalize();
  return 0;
}
