// The C file of the estimation runtime (probe_runtime.hpp; the probes and their sampling are
// described in probe_runtime.cpp): slot storage per thread, calibration of the probes' cost,
// the program's time between MPI_Init and MPI_Finalize, and the estimates file written at exit.
#include "probe_runtime.hpp"

namespace parjava::frontend {

std::string_view probe_runtime_source() {
  return R"PJ(/* parjava estimation runtime (generated; do not edit) */
#define _GNU_SOURCE
#include "parjava_probes.h"
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#ifndef PJ_SLOTS
#error "PJ_SLOTS must give the number of probe slots"
#endif
#define PJ_CALIBRATION_SELF PJ_SLOTS
#define PJ_CALIBRATION_PAIR (PJ_SLOTS + 1)
#define PJ_CALIBRATION_SCRATCH (PJ_SLOTS + 3)
#define PJ_CALIBRATION_UNTIMED (PJ_SLOTS + 5)
#define PJ_CALIBRATION_UNCOUNTED (PJ_SLOTS + 6)
#define PJ_CALIBRATION_ITERATION (PJ_SLOTS + 7)
#define PJ_ALL_SLOTS (PJ_SLOTS + 8)

__thread pj_slot *pj_slots;
static pj_u64 pj_no_lefts[PJ_ALL_SLOTS]; /* a thread's until it registers (pj_lefts) */
__thread pj_u64 *pj_lefts = pj_no_lefts;
__thread pj_watch *pj_watches;
static __thread int pj_schedstat_fd = -2; /* -2: not opened yet, -1: none */
static __thread pj_u64 pj_last_wait;      /* the thread's wait when the runtime last looked */
__thread pj_u64 pj_events;
__thread pj_u64 pj_counter_events;
__thread pj_u64 pj_skips;
__thread pj_u64 pj_counter_skips;
__thread unsigned pj_quiet;
__thread pj_mark_state pj_marked;
__thread pj_open *pj_opens;
__thread unsigned pj_nopen, pj_capopen;
__thread double pj_size = 1.0;
long long pj_live;
__thread long long pj_live_pending;
pj_u64 pj_generation;
pj_u64 pj_largest_team;

/* The runtime's own memory, around the count of the program's heap (the end of this file). */
void *pj_raw_malloc(size_t size);
void *pj_raw_calloc(size_t n, size_t size);
void *pj_raw_realloc(void *block, size_t size);
void pj_raw_free(void *block);
long long pj_heap_mark(void);
void pj_heap_forget_since(long long mark);

typedef struct pj_thread_entry {
  pj_slot *slots;
  pj_u64 *lefts;
  struct pj_thread_entry *next;
} pj_thread_entry;
static pj_thread_entry *pj_threads;
static pj_u64 pj_start_ticks;
static struct timespec pj_start_time;

pj_slot *pj_thread_slots(void) {
  pj_thread_entry *entry;
  pj_slots = (pj_slot *)pj_raw_calloc(PJ_ALL_SLOTS, sizeof(pj_slot));
  pj_lefts = (pj_u64 *)pj_raw_calloc(PJ_ALL_SLOTS, sizeof(pj_u64));
  pj_watches = (pj_watch *)pj_raw_calloc(PJ_ALL_SLOTS, sizeof(pj_watch));
  entry = (pj_thread_entry *)pj_raw_malloc(sizeof(pj_thread_entry));
  if (pj_slots == 0 || pj_lefts == 0 || pj_watches == 0 || entry == 0) {
    fprintf(stderr, "parjava estimation: out of memory for probe slots\n");
    abort();
  }
  entry->slots = pj_slots;
  entry->lefts = pj_lefts;
  entry->next = __atomic_load_n(&pj_threads, __ATOMIC_ACQUIRE);
  while (!__atomic_compare_exchange_n(&pj_threads, &entry->next, entry, 0, __ATOMIC_ACQ_REL,
                                      __ATOMIC_ACQUIRE)) {
  }
  return pj_slots;
}

/* The stack of timed executions in progress grows by doubling; its depth is the nesting of
   timed probes, which recursion can make deep. */
pj_open *pj_open_grow(void) {
  unsigned cap = pj_capopen == 0 ? 64 : 2 * pj_capopen;
  pj_open *opens = (pj_open *)pj_raw_realloc(pj_opens, cap * sizeof(pj_open));
  if (opens == 0) {
    fprintf(stderr, "parjava estimation: out of memory for the timed probes' stack\n");
    abort();
  }
  pj_opens = opens;
  pj_capopen = cap;
  return opens;
}

/* After a counted execution: past the first PJ_COUNT_DENSE, once the slot's statistics are
   stable, the next ones go uncounted (probe_runtime.cpp: sampled counters). Stable: a trip
   count's squared coefficient of variation is at most PJ_STABLE_CV2 (no heavy tail a sample
   would miss), a selector has seen each of its values PJ_STABLE times (no rare case); a branch
   counts its true outcomes always (pj_branch) and is sampled at once. Values are counted. */
#define PJ_STABLE 64
#define PJ_STABLE_CV2 100.0
static void pj_count_next(pj_slot *s, unsigned k, int stable) {
  pj_lefts[k] = 0;
  if (s->count >= PJ_COUNT_DENSE && (stable || s->granted > 0)) {
    pj_u64 stride = pj_stride(s->count);
    pj_lefts[k] = stride;
    s->granted += stride;
    pj_counter_skips += stride;
  }
}

static int pj_trips_stable(const pj_slot *s) {
  const double sum = (double)s->sum;
  return s->sumsq * (double)s->count <= (1.0 + PJ_STABLE_CV2) * sum * sum;
}

void pj_trips_count(unsigned k, pj_u64 n) {
  pj_slot *s = pj_slot_of(k);
  /* With count, sum and sumsq, the least-squares slope of the count over the run: whether it
     drifted while the estimation ran (a refining mesh), which extrapolation must not hide. */
  s->trend += (double)s->count * (double)n;
  s->count++;
  s->sum += n;
  s->sumsq += (double)n * (double)n;
  pj_histogram(s, n);
  pj_counter_events++;
  pj_count_next(s, k, pj_trips_stable(s));
}

void pj_trips_seq_count(unsigned k, pj_u64 n) {
  pj_slot *s = pj_slot_of(k);
  if (s->kept < PJ_SEQUENCE) pj_keep_value(s, (double)n);
  pj_trips_count(k, n);
}

void pj_trips_sum_count(unsigned k, pj_u64 n) {
  pj_slot *s = pj_slot_of(k);
  s->count++;
  s->sum += n;
  s->sumsq += (double)n * (double)n;
  pj_count_next(s, k, pj_trips_stable(s));
}

void pj_branch_count(unsigned k, int taken) {
  pj_slot *s = pj_slot_of(k);
  s->count++;
  s->sum += taken ? 1u : 0u;
  pj_count_next(s, k, 1);
}

void pj_branch_seq_count(unsigned k, int taken) {
  pj_slot *s = pj_slot_of(k);
  if (s->kept < PJ_SEQUENCE) pj_keep_value(s, taken ? 1.0 : 0.0);
  pj_branch_count(k, taken);
}

void pj_switch_count(unsigned k, long value) {
  pj_slot *s = pj_slot_of(k);
  s->count++;
  pj_histogram(s, (pj_u64)value);
  pj_counter_events++;
  if (s->count >= PJ_COUNT_DENSE && s->granted == 0) {
    int i, stable = s->overflow == 0;
    for (i = 0; i < PJ_HISTOGRAM && s->counts[i] != 0 && stable; ++i) {
      stable = s->counts[i] >= PJ_STABLE;
    }
    pj_count_next(s, k, stable);
  } else {
    pj_count_next(s, k, 1);
  }
}

void pj_value_count(unsigned k, double value) {
  pj_slot *s = pj_slot_of(k);
  s->count++;
  s->dsum += value;
  if (s->kept < PJ_SEQUENCE) pj_keep_value(s, value);
  pj_count_next(s, k, 0);
}

/* The calling thread's run-queue wait so far, in nanoseconds; ~0ull when the kernel does not
   say. The file stays open per thread: reading it again costs a pread and a short parse. */
static pj_u64 pj_wait_ns(void) {
  char text[96];
  ssize_t n;
  int i = 0, field = 0;
  pj_u64 v = 0;
  if (pj_schedstat_fd == -2) {
    pj_schedstat_fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
  }
  if (pj_schedstat_fd < 0) return ~0ull;
  n = pread(pj_schedstat_fd, text, sizeof(text) - 1, 0);
  if (n <= 0) return ~0ull;
  text[n] = 0;
  for (; i < n && field < 2; ++i) { /* "run wait slices": the second number */
    if (text[i] >= '0' && text[i] <= '9') {
      v = v * 10 + (pj_u64)(text[i] - '0');
    } else if (text[i] == ' ') {
      if (++field == 1) v = 0;
    }
  }
  return field >= 1 ? v : ~0ull;
}

pj_u64 pj_begin_watched(unsigned k) {
  pj_u64 wait = pj_wait_ns(), t0 = pj_now();
  if (wait != ~0ull) {
    pj_watches[k].t0 = t0;
    pj_watches[k].wait = wait;
    pj_last_wait = wait;
  }
  return t0;
}

pj_u64 pj_suspect(unsigned k, pj_u64 dt) {
  pj_u64 wait = pj_wait_ns(), mean;
  pj_slot *s = pj_slot_of(k);
  if (wait == ~0ull || wait <= pj_last_wait) {
    if (wait != ~0ull) pj_last_wait = wait;
    return dt;
  }
  pj_last_wait = wait;
  mean = s->sum / s->count;
  s->watched++;
  s->wticks += mean;
  s->wremoved += dt - mean;
  return mean;
}

/* Ticks per nanosecond since the runtime started (a sample ends at least 100 us after it, so
   the rate is good to a few parts in 10^4 here; pj_write measures it again over the run). */
static double pj_ticks_per_ns(void) {
  struct timespec t;
  double ns;
  clock_gettime(CLOCK_MONOTONIC, &t);
  ns = 1e9 * (double)(t.tv_sec - pj_start_time.tv_sec) +
       (double)(t.tv_nsec - pj_start_time.tv_nsec);
  return ns > 0 ? (double)(pj_now() - pj_start_ticks) / ns : 0.0;
}

pj_u64 pj_end_watched(unsigned k, pj_u64 dt) {
  pj_u64 wait = pj_wait_ns(), removed = 0;
  pj_slot *s = pj_slot_of(k);
  if (wait != ~0ull && wait > pj_watches[k].wait) {
    double ticks = (double)(wait - pj_watches[k].wait) * pj_ticks_per_ns();
    removed = ticks >= (double)dt ? dt : (pj_u64)ticks;
  }
  pj_watches[k].t0 = 0;
  if (wait != ~0ull) pj_last_wait = wait;
  s->watched++;
  s->wticks += dt - removed;
  s->wremoved += removed;
  return dt - removed;
}

void pj_value_counts(unsigned k, const int *counts, int fcomm) {
  int n = 0, i;
  double sum = 0.0;
  if (MPI_Comm_size(MPI_Comm_f2c(fcomm), &n) != MPI_SUCCESS || n <= 0 || counts == 0) return;
  for (i = 0; i < n; ++i) sum += (double)counts[i];
  pj_value(k, sum / (double)n);
}

static double pj_usable(void *block) {
#ifdef __GLIBC__
  return block != 0 ? (double)malloc_usable_size(block) : 0.0;
#else
  (void)block;
  return 0.0;
#endif
}

void pj_size_free(void *block) { pj_size = pj_usable(block); }

void pj_sized_sample(unsigned k, double bytes, pj_u64 dt) {
  pj_slot *s = pj_slot_of(k);
  int bin = bytes >= 1.0 ? (int)log2(bytes) : 0;
  if (s->bins == 0) {
    s->bins = (double *)pj_raw_calloc(3 * PJ_SIZE_BINS, sizeof(double));
    if (s->bins == 0) return;
  }
  if (bin >= PJ_SIZE_BINS) bin = PJ_SIZE_BINS - 1;
  s->count++;
  s->bins[3 * bin] += 1.0;
  s->bins[3 * bin + 1] += bytes;
  s->bins[3 * bin + 2] += (double)dt;
}

void pj_keep_value(pj_slot *s, double value) {
  if (s->sequence == 0) {
    s->sequence = (double *)pj_raw_malloc(PJ_SEQUENCE * sizeof(double));
    if (s->sequence == 0) {
      s->kept = PJ_SEQUENCE; /* keep the mean only */
      return;
    }
  }
  s->sequence[s->kept++] = value;
}

/* The program's own time, between the end of MPI_Init and the start of MPI_Finalize (what the
   self-check compares the model with), the CPU time it used, and the machine's state around it:
   the 1-minute load average and the steal time of a virtual machine (noise-aware estimation);
   and the main thread's scheduler times (/proc/thread-self/schedstat: on a CPU, and runnable
   but waiting for one), from which the loader takes what neighbours cost every block. */
typedef struct pj_moment {
  int valid;
  struct timespec wall;
  double cpu, load, steal, busy, run, wait;
} pj_moment;
static pj_moment pj_init_moment, pj_finalize_moment;

static double pj_cpu_seconds(void) {
  struct rusage u;
  if (getrusage(RUSAGE_SELF, &u) != 0) return 0.0;
  return (double)u.ru_utime.tv_sec + 1e-6 * (double)u.ru_utime.tv_usec +
         (double)u.ru_stime.tv_sec + 1e-6 * (double)u.ru_stime.tv_usec;
}

/* /proc/stat's cpu line: steal and busy (user+nice+system+irq+softirq) seconds, machine-wide. */
static void pj_cpu_times(double *steal, double *busy) {
  unsigned long long v[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  double hz = (double)sysconf(_SC_CLK_TCK);
  FILE *f = fopen("/proc/stat", "r");
  *steal = -1.0;
  *busy = -1.0;
  if (f == 0) return;
  if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
             &v[5], &v[6], &v[7]) == 8 && hz > 0) {
    *steal = (double)v[7] / hz;
    *busy = (double)(v[0] + v[1] + v[2] + v[5] + v[6]) / hz;
  }
  fclose(f);
}

/* The calling thread's time on a CPU and time runnable on a run queue, in seconds (-1: the
   kernel does not say; CONFIG_SCHED_INFO). */
static void pj_sched_times(double *run, double *wait) {
  unsigned long long r = 0, w = 0;
  FILE *f = fopen("/proc/thread-self/schedstat", "r");
  *run = -1.0;
  *wait = -1.0;
  if (f == 0) return;
  if (fscanf(f, "%llu %llu", &r, &w) == 2) {
    *run = 1e-9 * (double)r;
    *wait = 1e-9 * (double)w;
  }
  fclose(f);
}

/* The scheduler times are read next to the wall clock, before it at MPI_Init and after it at
   MPI_Finalize, so that a preemption while the other files are read (a load of 10 makes that
   likely) stays out of both intervals instead of counting as waiting the program did not do. */
static void pj_take(pj_moment *m, int at_start) {
  FILE *f;
  if (at_start) pj_sched_times(&m->run, &m->wait);
  clock_gettime(CLOCK_MONOTONIC, &m->wall);
  if (!at_start) pj_sched_times(&m->run, &m->wait);
  f = fopen("/proc/loadavg", "r");
  m->cpu = pj_cpu_seconds();
  m->load = -1.0;
  if (f != 0) {
    if (fscanf(f, "%lf", &m->load) != 1) m->load = -1.0;
    fclose(f);
  }
  pj_cpu_times(&m->steal, &m->busy);
  m->valid = 1;
}

/* A program that returns from main without MPI_Finalize (UoB-HPC/flow) writes no `program`
   line, and mpirun reports the job as failed. On a successful exit the estimation code
   finalizes for it, through the wrapper below, which records the moment; the line tells the
   estimation to say so. Not on a failing one: a rank that exit(1)s while the others still
   compute would wait in MPI_Finalize's fence for ranks that wait for it. */
static void pj_finalize_at_exit(int status, void *arg) {
  int initialized = 0, finalized = 0;
  (void)arg;
  if (status != 0 || PMPI_Initialized(&initialized) != MPI_SUCCESS || !initialized ||
      PMPI_Finalized(&finalized) != MPI_SUCCESS || finalized) {
    return;
  }
  printf("\nparjava-unfinalized: the program ended without MPI_Finalize\n");
  fflush(stdout);
  MPI_Finalize();
}

/* What MPI_Init allocates is MPI's, not the working set of the program's loops. */
int MPI_Init(int *argc, char ***argv) {
  long long mark = pj_heap_mark();
  int r = PMPI_Init(argc, argv);
  pj_heap_forget_since(mark);
  pj_take(&pj_init_moment, 1);
  on_exit(pj_finalize_at_exit, 0);
  return r;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  long long mark = pj_heap_mark();
  int r = PMPI_Init_thread(argc, argv, required, provided);
  pj_heap_forget_since(mark);
  pj_take(&pj_init_moment, 1);
  on_exit(pj_finalize_at_exit, 0);
  return r;
}

static void pj_write_file(int calibrate);

/* The measurements are written here as well as at exit: when one rank returns a non-zero status
   after MPI_Finalize (XSBench without a known checksum), mpirun aborts the job and can kill the
   other ranks before their exit handlers run. PMPI_Finalize's fence keeps every rank from
   returning before all of them have written; the file written at exit then replaces this one
   with what ran after MPI_Finalize, and with the probes' calibration, measured at exit only, as
   always: calibrated here, the OpenMP program tests/programs/openmp_loops/forces.c failed its
   self-check one estimation in three (-18 % to +26 %), and never with the exit-time figures.
   A rank killed after MPI_Finalize keeps this file, with no calibration (its costs read 0). */
int MPI_Finalize(void) {
  pj_take(&pj_finalize_moment, 0);
  pj_write_file(0);
  return PMPI_Finalize();
}

static double pj_seconds_since(const struct timespec *t0) {
  struct timespec t1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

static const char *pj_world_size(void) {
  const char *names[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE"};
  unsigned i;
  for (i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
    const char *v = getenv(names[i]);
    if (v != 0 && *v != 0) return v;
  }
  return "1";
}

static const char *pj_rank(void) {
  const char *names[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "MV2_COMM_WORLD_RANK"};
  unsigned i;
  for (i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
    const char *v = getenv(names[i]);
    if (v != 0 && *v != 0) return v;
  }
  return "0";
}

/* The ticks from t0 to now, less what the thread waited for a CPU since wait0: a calibration
   loop is timed whole, and one preemption inside it (a load of 3 suffices) made a counter cost
   535 ticks instead of 8, and the program's own time, less the probes, negative. */
static pj_u64 pj_ticks_since(pj_u64 t0, pj_u64 wait0) {
  pj_u64 t1 = pj_now(), wait = pj_wait_ns(), dt = t1 - t0;
  if (wait0 != ~0ull && wait != ~0ull && wait > wait0) {
    double waited = (double)(wait - wait0) * pj_ticks_per_ns();
    dt = waited >= (double)dt ? 0 : dt - (pj_u64)waited;
  }
  return dt;
}

/* What a probe costs in a program: a small function with a data-dependent test, called from a
   loop with independent work of its own (three random streams), against the same function
   without the probe; the fastest of PJ_CAL_ROUNDS rounds of each, so that an interruption does
   not count. A loop of probes alone measures their chain of dependent memory updates instead:
   a countdown took 4-5 ticks there, a trip counter 8, while in graph500 and in
   tests/programs/counted/kronecker.c a probe execution cost 1.5-2.5 (the processor overlaps it
   with the program's work; the call and the registers it saves stay), and graph500's probes
   were estimated to cost more than its whole run. With the draw alone as work (a chain of
   dependent operations) the probes hid in it entirely: 0.7 ticks, and 0 for an untimed timed
   probe, half to a tenth of what they cost. The trip counts drawn are random, not a period the
   branch predictor learns: a data-dependent count's histogram search mispredicts in the
   program as it does here. */
#define PJ_CAL_N 4096
#define PJ_CAL_ROUNDS 9
enum { PJ_CAL_NONE, PJ_CAL_TRIPS, PJ_CAL_BRANCH, PJ_CAL_UNCOUNTED, PJ_CAL_PLAIN, PJ_CAL_UNTIMED,
       PJ_CAL_KINDS };
static volatile pj_u64 pj_cal_sink;
static double pj_cal_costs[PJ_CAL_KINDS]; /* ticks per probe execution (0: none measured) */

#define PJ_CAL_TEST(v) (((v) & 0xFFFF) < 30000)
static pj_u64 __attribute__((noinline)) pj_cal_none(pj_u64 v) {
  if (PJ_CAL_TEST(v)) return v >> 3;
  return v * 3;
}
static pj_u64 __attribute__((noinline)) pj_cal_trips(pj_u64 v) {
  pj_trips_count(PJ_CALIBRATION_SCRATCH, v & 3);
  if (PJ_CAL_TEST(v)) return v >> 3;
  return v * 3;
}
static pj_u64 __attribute__((noinline)) pj_cal_branch(pj_u64 v) {
  pj_branch_count(PJ_CALIBRATION_SCRATCH, PJ_CAL_TEST(v));
  if (PJ_CAL_TEST(v)) return v >> 3;
  return v * 3;
}
static pj_u64 __attribute__((noinline)) pj_cal_uncounted(pj_u64 v) {
  if (pj_branch(PJ_CALIBRATION_UNCOUNTED, PJ_CAL_TEST(v))) return v >> 3;
  return v * 3;
}
static pj_u64 __attribute__((noinline)) pj_cal_plain(pj_u64 v) {
  pj_u64 r = v * 5;
  r ^= r >> 9;
  return r;
}
static pj_u64 __attribute__((noinline)) pj_cal_untimed(pj_u64 v) {
  pj_u64 r;
  PJ_BEGIN(PJ_CALIBRATION_UNTIMED)
  r = v * 5;
  r ^= r >> 9;
  PJ_END(PJ_CALIBRATION_UNTIMED)
  return r;
}
static pj_u64 (*const pj_cal_functions[PJ_CAL_KINDS])(pj_u64) = {
    pj_cal_none, pj_cal_trips, pj_cal_branch, pj_cal_uncounted, pj_cal_plain, pj_cal_untimed};

static pj_u64 pj_cal_loop(int kind) {
  pj_u64 (*f)(pj_u64) = pj_cal_functions[kind];
  pj_u64 x = 0x9E3779B97F4A7C15ull, y = 0x1234567890ABCDEFull, z = 0xDEADBEEFCAFEF00Dull;
  pj_u64 acc = 0, t0, w0;
  int i;
  w0 = pj_wait_ns();
  t0 = pj_now();
  for (i = 0; i < PJ_CAL_N; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    y = y * 6364136223846793005ull + 1;
    z ^= z >> 11;
    z *= 0x9E3779B97F4A7C15ull;
    acc += f(x) + (y ^ z);
  }
  pj_cal_sink = acc;
  return pj_ticks_since(t0, w0);
}

static void pj_calibrate_counters(void) {
  pj_u64 best[PJ_CAL_KINDS];
  int r, kind;
  for (kind = 0; kind < PJ_CAL_KINDS; ++kind) best[kind] = ~0ull;
  for (r = 0; r < PJ_CAL_ROUNDS; ++r) {
    for (kind = 0; kind < PJ_CAL_KINDS; ++kind) {
      pj_u64 t;
      pj_lefts[PJ_CALIBRATION_UNCOUNTED] = 4 * PJ_CAL_N;
      pj_lefts[PJ_CALIBRATION_UNTIMED] = 4 * PJ_CAL_N;
      t = pj_cal_loop(kind);
      if (t < best[kind]) best[kind] = t;
    }
  }
  for (kind = 1; kind < PJ_CAL_KINDS; ++kind) {
    const pj_u64 base = kind == PJ_CAL_UNTIMED ? best[PJ_CAL_PLAIN] : best[PJ_CAL_NONE];
    pj_cal_costs[kind] = best[kind] > base ? (double)(best[kind] - base) / PJ_CAL_N : 0.0;
  }
}

/* Probe overhead: what an empty probe pair reports, and what it adds to an enclosing
   interval. Measured on this thread, after the program, many times. */
static double pj_iteration_cost; /* ticks an OpenMP iteration sample carries (pj_calibrate) */

static void pj_calibrate(void) {
  enum { N = 20000 };
  int i;
  pj_u64 t0, w0;
  for (i = 0; i < N; ++i) { /* what an empty timed interval reports */
    pj_u64 t;
    pj_lefts[PJ_CALIBRATION_SELF] = 0;
    t = pj_begin(PJ_CALIBRATION_SELF);
    pj_end(PJ_CALIBRATION_SELF, t);
  }
  w0 = pj_wait_ns();
  t0 = pj_now();
  for (i = 0; i < N; ++i) { /* what a timed probe costs an enclosing interval */
    pj_u64 t;
    pj_lefts[PJ_CALIBRATION_SCRATCH] = 0;
    t = pj_begin(PJ_CALIBRATION_SCRATCH);
    pj_end(PJ_CALIBRATION_SCRATCH, t);
  }
  (void)pj_sample(PJ_CALIBRATION_PAIR, pj_ticks_since(t0, w0) / N, 0, 0);
  /* What an untimed execution and the counters cost it: in context (pj_calibrate_counters). */
  pj_calibrate_counters();
  /* An OpenMP loop's iteration probes back to back, with an empty body: what each of its
     samples carries besides the body (a short body measured with a pair's cost taken off came
     out at 0 s: the probe costs it less than a pair). */
  /* The fastest of five rounds: a preemption inside one sample is not the probe's cost. */
  {
    pj_u64 best = ~0ull;
    int r;
    for (r = 0; r < 5; ++r) {
      pj_u64 t;
      t0 = pj_now();
      for (i = 0; i < N; ++i) {
        pj_iteration_tls(PJ_CALIBRATION_ITERATION);
        pj_omp_iteration(PJ_CALIBRATION_SCRATCH);
        __asm__ volatile("" ::: "memory");
      }
      t = pj_now() - t0;
      if (t < best) best = t;
    }
    pj_iteration_cost = (double)best / N;
  }
  pj_slot_of(PJ_CALIBRATION_SCRATCH)->left = 0;
}

static void pj_merge(pj_slot *into, const pj_slot *from) {
  int i, j;
  if (from->count == 0) return;
  if (into->count == 0 || from->min < into->min) into->min = from->min;
  if (from->max > into->max) into->max = from->max;
  into->count += from->count;
  into->sum += from->sum;
  into->sumsq += from->sumsq;
  into->nested += from->nested;
  into->counters += from->counters;
  into->executions += from->executions;
  into->skips += from->skips;
  into->cskips += from->cskips;
  into->live += from->live;
  into->trend += from->trend;
  into->team += from->team;
  into->watched += from->watched;
  into->wticks += from->wticks;
  into->wremoved += from->wremoved;
  if (from->bins != 0) {
    if (into->bins == 0) into->bins = (double *)pj_raw_calloc(3 * PJ_SIZE_BINS, sizeof(double));
    if (into->bins != 0) {
      for (i = 0; i < 3 * PJ_SIZE_BINS; ++i) into->bins[i] += from->bins[i];
    }
  }
  into->dsum += from->dsum;
  into->overflow += from->overflow;
  for (i = 0; i < (int)from->kept && from->sequence != 0 && into->kept < PJ_SEQUENCE; ++i) {
    pj_keep_value(into, from->sequence[i]);
  }
  for (i = 0; i < PJ_HISTOGRAM && from->counts[i] != 0; ++i) {
    for (j = 0; j < PJ_HISTOGRAM; ++j) {
      if (into->counts[j] != 0 && into->values[j] == from->values[i]) {
        into->counts[j] += from->counts[i];
        break;
      }
      if (into->counts[j] == 0) {
        into->values[j] = from->values[i];
        into->counts[j] = from->counts[i];
        break;
      }
    }
    if (j == PJ_HISTOGRAM) into->overflow += from->counts[i];
  }
}

static int pj_calibrated;

static void pj_write_file(int calibrate) {
  pj_slot *total;
  pj_thread_entry *t;
  double seconds, rate;
  pj_u64 ticks;
  const char *dir = getenv("PARJAVA_ESTIMATES_DIR");
  char path[4096], partial[4200];
  FILE *out;
  int k, i;
  seconds = pj_seconds_since(&pj_start_time);
  ticks = pj_now() - pj_start_ticks;
#if defined(__x86_64__) || defined(__i386__)
  if (seconds < 0.05) { /* too short to measure the TSC rate: wait a little */
    struct timespec t0;
    pj_u64 c0 = pj_now();
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (pj_seconds_since(&t0) < 0.05) {
    }
    rate = (double)(pj_now() - c0) / pj_seconds_since(&t0);
  } else {
    rate = (double)ticks / seconds;
  }
#else
  rate = (double)ticks / seconds;
#endif
  if (calibrate && !pj_calibrated) { /* its samples add up: calibrate once */
    pj_calibrate();
    pj_calibrated = 1;
  }
  total = (pj_slot *)pj_raw_calloc(PJ_ALL_SLOTS, sizeof(pj_slot));
  if (total == 0) return;
  for (t = __atomic_load_n(&pj_threads, __ATOMIC_ACQUIRE); t != 0; t = t->next) {
    for (k = 0; k < PJ_ALL_SLOTS; ++k) {
      pj_slot *s = &t->slots[k];
      s->executions = s->count + s->granted - t->lefts[k];
      pj_merge(&total[k], s);
    }
  }
  snprintf(path, sizeof(path), "%s/parjava-estimates.%s.%ld.txt", dir && *dir ? dir : ".",
           pj_rank(), (long)getpid());
  /* Written aside and renamed: a reader (or a rank killed while writing) never sees half a
     file, and the file written at exit replaces the one written at MPI_Finalize whole. */
  snprintf(partial, sizeof(partial), "%s.partial", path);
  out = fopen(partial, "w");
  if (out == 0) {
    fprintf(stderr, "parjava estimation: cannot write %s\n", partial);
    pj_raw_free(total);
    return;
  }
  fprintf(out, "parjava-estimates 4\n");
#if defined(__x86_64__) || defined(__i386__)
  fprintf(out, "clock rdtsc\n");
#else
  fprintf(out, "clock cntvct\n");
#endif
  fprintf(out, "ticks_per_second %.10g\n", rate);
  fprintf(out, "slots %d\n", PJ_SLOTS);
  fprintf(out, "run_seconds %.9g\n", seconds);
  fprintf(out, "rank %s %s\n", pj_rank(), pj_world_size());
  fprintf(out, "cpus %ld\n", sysconf(_SC_NPROCESSORS_ONLN));
  /* An MPI process (the loader ignores the line): without a program line it stopped before
     MPI_Finalize; a process that never called MPI_Init (RSBench, OpenMP only) ran to its exit. */
  if (pj_init_moment.valid) fprintf(out, "mpi_init\n");
  if (pj_largest_team > 0) fprintf(out, "omp_team %llu\n", (unsigned long long)pj_largest_team);
  fprintf(out, "mpi_constants %d %d %d\n", MPI_ANY_SOURCE, MPI_PROC_NULL, MPI_ANY_TAG);
  if (pj_init_moment.valid && pj_finalize_moment.valid) {
    const pj_moment *a = &pj_init_moment, *b = &pj_finalize_moment;
    const int sched = a->run >= 0 && b->run >= a->run && b->wait >= a->wait;
    fprintf(out, "program %.9g %.9g %.4g %.4g %.6g %.6g %.9g %.9g\n",
            pj_seconds_since(&a->wall) - pj_seconds_since(&b->wall), b->cpu - a->cpu, a->load,
            b->load, a->steal >= 0 && b->steal >= 0 ? b->steal - a->steal : -1.0,
            a->busy >= 0 && b->busy >= 0 ? b->busy - a->busy : -1.0,
            sched ? b->run - a->run : -1.0, sched ? b->wait - a->wait : -1.0);
  }
  /* self, pair, a counted trip count or selector, an untimed timed probe, a counted branch
     outcome or value, an uncounted execution of any counter, an OpenMP iteration sample's probe */
  fprintf(out, "calibration %.6g %.6g %.6g %.6g %.6g %.6g %.6g\n",
          total[PJ_CALIBRATION_SELF].count ? (double)total[PJ_CALIBRATION_SELF].sum /
                                                 (double)total[PJ_CALIBRATION_SELF].count
                                           : 0.0,
          (double)total[PJ_CALIBRATION_PAIR].sum, pj_cal_costs[PJ_CAL_TRIPS],
          pj_cal_costs[PJ_CAL_UNTIMED], pj_cal_costs[PJ_CAL_BRANCH],
          pj_cal_costs[PJ_CAL_UNCOUNTED],
          pj_iteration_cost);
  for (k = 0; k < PJ_SLOTS; ++k) {
    const pj_slot *s = &total[k];
    if (s->count == 0) continue;
    fprintf(out, "slot %d %llu %llu %.17g %llu %llu %llu %.17g %llu %llu %llu %llu %llu", k,
            (unsigned long long)s->count, (unsigned long long)s->sum, s->sumsq,
            (unsigned long long)s->min, (unsigned long long)s->max,
            (unsigned long long)s->nested, s->dsum, (unsigned long long)s->overflow,
            (unsigned long long)s->counters, (unsigned long long)s->executions,
            (unsigned long long)s->skips, (unsigned long long)s->cskips);
    for (i = 0; i < PJ_HISTOGRAM && s->counts[i] != 0; ++i) {
      fprintf(out, " %lld:%llu", (long long)s->values[i], (unsigned long long)s->counts[i]);
    }
    fprintf(out, "\n");
    if (s->live > 0) fprintf(out, "live %d %.17g\n", k, s->live);
    if (s->trend > 0) fprintf(out, "trend %d %.17g\n", k, s->trend);
    if (s->team > 0) fprintf(out, "team %d %.17g\n", k, s->team);
    if (s->watched > 0) {
      fprintf(out, "waited %d %llu %llu %llu\n", k, (unsigned long long)s->watched,
              (unsigned long long)s->wticks, (unsigned long long)s->wremoved);
    }
    if (s->bins != 0) {
      fprintf(out, "sizes %d", k);
      for (i = 0; i < PJ_SIZE_BINS; ++i) {
        if (s->bins[3 * i] > 0) {
          fprintf(out, " %.17g:%.17g:%.17g", s->bins[3 * i], s->bins[3 * i + 1],
                  s->bins[3 * i + 2]);
        }
      }
      fprintf(out, "\n");
    }
    if (s->kept > 0 && s->sequence != 0) {
      fprintf(out, "values %d %llu", k, (unsigned long long)s->kept);
      for (i = 0; i < (int)s->kept; ++i) fprintf(out, " %.17g", s->sequence[i]);
      fprintf(out, "\n");
    }
  }
  fprintf(out, "end\n");
  if (fclose(out) != 0 || rename(partial, path) != 0) {
    fprintf(stderr, "parjava estimation: cannot write %s\n", path);
  }
  pj_raw_free(total);
}

static void pj_write(void) { pj_write_file(1); }

__attribute__((constructor)) static void pj_start(void) {
  clock_gettime(CLOCK_MONOTONIC, &pj_start_time);
  pj_start_ticks = pj_now();
  atexit(pj_write);
}
)PJ";
}

} // namespace parjava::frontend
