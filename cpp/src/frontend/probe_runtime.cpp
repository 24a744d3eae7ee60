// The run-time side of the estimation code (seed 000 notes §3.7.1, §6; seed 003 notes §6.5):
// a C header included first by every instrumented source, and a C file linked into the
// instrumented program. Probes read the cycle counter (rdtsc on x86, cntvct_el0 on AArch64),
// converted to seconds with the rate measured against CLOCK_MONOTONIC over the whole run
// (seed 000 notes §3.7.1: a TSC because blocks take less than the clock's resolution); they
// accumulate per slot and per thread (count, sum, sum of squares, min, max, timed probe events
// and counter events nested inside), and at exit every thread's slots are merged and written to
// $PARJAVA_ESTIMATES_DIR/parjava-estimates.<rank>.<pid>.txt. The probe overhead is measured at
// exit (an empty probe pair, what a pair costs an enclosing measurement, what a trip counter
// costs it) so the loader can subtract it (seed 003 notes §6.5: "correction").
//
// Timed probes (blocks, fragments, functions) are sampled the same way: the first
// PJ_SAMPLE_DENSE executions are timed, then one in 8..23 (a stride hashed from the sample
// count, so a periodic program does not alias with it), and past PJ_SAMPLE_SPARSE samples the
// stride doubles with each doubling of the samples, up to 64x. An untimed execution costs one
// countdown in a per-thread array of a word per slot (eight slots a cache line, apart from the
// statistics) and a per-thread skip counter: no clock read, no call. The executions are the
// samples plus the skips granted minus the countdown left at exit. The untimed ones nested in a
// timed interval are counted (`skips`) and charged their own calibrated cost. A probe in a
// function called millions of times (a qsort comparator; miniAMR's one-block ma_malloc, 8.9
// million calls from its allocation loops) otherwise made the estimation code, and the times
// the model took from it, up to twice as slow as the program.
//
// Iterations of a fragment are timed densely for a slot's first PJ_ITERATION_DENSE samples and
// then one in PJ_ITERATION_STRIDE (sparser past PJ_SAMPLE_SPARSE samples): a timestamp per
// iteration costs about as much as a short body (an FFT butterfly), so timing every iteration made
// the fragment's corrected time the small difference of two large numbers, and its error followed
// the machine's noise.
#include "probe_runtime.hpp"

namespace parjava::frontend {

std::string_view probe_runtime_header() {
  return R"PJ(/* parjava estimation probes (generated; do not edit) */
#ifndef PARJAVA_PROBES_H
#define PARJAVA_PROBES_H
#ifdef __cplusplus
extern "C" {
#endif

/* No system header here: the including file may still define feature macros. */
typedef unsigned long long pj_u64;
#define PJ_HISTOGRAM 16
typedef struct pj_slot {
  pj_u64 count;  /* samples (timed probes), executions (trips), evaluations (branch) */
  pj_u64 sum;    /* ticks (timed probes), iterations (trips), trues (branch) */
  double sumsq;    /* ticks^2 (timed probes), iterations^2 (trips) */
  pj_u64 min, max;
  pj_u64 nested; /* timed probe events inside the measured intervals */
  pj_u64 counters; /* counter events (opaque trip counts, selectors) inside them */
  pj_u64 executions; /* timed probes: executions, timed or not (count: the timed ones) */
  pj_u64 granted;    /* timed probes: untimed executions granted to the countdown */
  pj_u64 skips;      /* untimed probe executions inside the measured intervals */
  pj_u64 last, generation; /* iterations timed per thread (OpenMP loops) */
  pj_u64 left;     /* iterations until the next timed one (sampled iteration timing) */
  double dsum;     /* values (value probes) */
  pj_u64 values[PJ_HISTOGRAM], counts[PJ_HISTOGRAM], overflow;
  double *sequence; /* value probes: the first PJ_SEQUENCE values, in call order */
  pj_u64 kept;
  double live;   /* timed probes: the probed heap's live bytes, summed over the samples */
  double trend;  /* trips: sum over executions of (execution index x iterations) */
  double team;   /* OpenMP trips: sum over records of the recording thread's team size */
  double *bins;  /* sized probes: per power of two of the bytes, count, bytes and ticks */
  pj_u64 watched, wticks, wremoved; /* samples whose run-queue wait was read, their ticks after
                                       the wait was taken out, and the ticks taken out */
} pj_slot;

#define PJ_SEQUENCE 4096
void pj_keep_value(pj_slot *s, double value);

extern __thread pj_slot *pj_slots;
extern __thread pj_u64 *pj_lefts; /* timed probes: untimed executions before the next timed one */
extern __thread pj_u64 pj_events;
extern __thread pj_u64 pj_counter_events;
extern __thread pj_u64 pj_skips;
extern __thread double pj_size;
extern long long pj_live;
extern __thread long long pj_live_pending;

/* The probed heap's live bytes move through a per-thread balance that reaches the shared
   counter once it passes PJ_LIVE_BATCH either way: a locked add per allocation cost more than
   the rest of a sampled probe (miniAMR's 8.9 million small allocations), and the working set
   the samples read is off by at most PJ_LIVE_BATCH per thread. */
#define PJ_LIVE_BATCH 65536
static inline void pj_live_add(long long bytes) {
  long long pending = pj_live_pending + bytes;
  if (__builtin_expect(pending > PJ_LIVE_BATCH || pending < -PJ_LIVE_BATCH, 0)) {
    __atomic_add_fetch(&pj_live, pending, __ATOMIC_RELAXED);
    pending = 0;
  }
  pj_live_pending = pending;
}
extern pj_u64 pj_generation;
pj_slot *pj_thread_slots(void);

/* Samples of long intervals (the slot's first, and those of slots whose mean is PJ_LONG_TICKS
   or more) read the thread's run-queue wait (/proc/thread-self/schedstat) around them, and the
   time the thread was runnable but waited for a CPU while other processes ran is taken out of
   the sample: the cycle counter counts it, the program did not spend it. Two reads cost about
   4 us, outside the interval but inside what encloses it, uncorrected there: a mean of
   PJ_LONG_TICKS (~400 us at 2.6 GHz) keeps that under 1 %. Shorter samples are left as
   measured (estimates_waiting.cpp). */
#define PJ_LONG_TICKS 1048576ull
typedef struct pj_watch { pj_u64 t0, wait; } pj_watch;
extern __thread pj_watch *pj_watches;
pj_u64 pj_begin_watched(unsigned k);
pj_u64 pj_end_watched(unsigned k, pj_u64 dt);

/* A sample of a short interval that took PJ_SUSPECT times its slot's mean and at least
   PJ_SUSPECT_TICKS (~20 us) is looked at once more: when the thread waited for a CPU since the
   runtime last looked (one read of schedstat, for these rare samples only), it was most likely
   preempted inside this sample, which then counts as the slot's mean; otherwise it stays (a
   real heavy execution). At load 10 a few such samples per thousand doubled the mean of a
   1-us call and the model of the run with it. */
#define PJ_SUSPECT 8.0
#define PJ_SUSPECT_TICKS 52000ull
pj_u64 pj_suspect(unsigned k, pj_u64 dt);

static inline pj_u64 pj_now(void) {
#if defined(__x86_64__) || defined(__i386__)
  unsigned lo, hi;
  __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
  return ((pj_u64)hi << 32) | lo;
#elif defined(__aarch64__)
  pj_u64 v;
  __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
  return v;
#else
#error "parjava estimation probes need an x86 or AArch64 cycle counter"
#endif
}

static inline pj_slot *pj_slot_of(unsigned k) {
  pj_slot *s = pj_slots;
  if (__builtin_expect(s == 0, 0)) {
    s = pj_thread_slots();
  }
  return s + k;
}

static inline pj_slot *pj_sample(unsigned k, pj_u64 dt, pj_u64 nested, pj_u64 counters) {
  pj_slot *s = pj_slot_of(k);
  s->live += (double)__atomic_load_n(&pj_live, __ATOMIC_RELAXED);
  if (s->count == 0 || dt < s->min) s->min = dt;
  if (dt > s->max) s->max = dt;
  s->count++;
  s->sum += dt;
  s->sumsq += (double)dt * (double)dt;
  s->nested += nested;
  s->counters += counters;
  pj_events++;
  return s;
}

#define PJ_SAMPLE_DENSE 256
#define PJ_SAMPLE_SPARSE 4096

/* The start of a timed probe: its timestamp, or 0 when this execution is not timed. */
static inline pj_u64 pj_begin(unsigned k) {
  pj_u64 *left = pj_lefts;
  if (__builtin_expect(left == 0, 0)) {
    (void)pj_thread_slots();
    left = pj_lefts;
  }
  if (__builtin_expect(left[k] != 0, 1)) {
    left[k]--;
    pj_skips++;
    return 0;
  }
  {
    const pj_slot *s = pj_slots + k;
    if (__builtin_expect(s->count == 0 || s->sum >= s->count * PJ_LONG_TICKS, 0)) {
      return pj_begin_watched(k);
    }
  }
  return pj_now();
}

/* Untimed executions after a timed one: 7..22 (1 in 8..23), doubled with each doubling of the
   samples past PJ_SAMPLE_SPARSE, up to 64x (1 in 512..1472). A probe entered millions of times
   then costs its countdown alone, and its tens of thousands of samples still give its mean
   (the sum is scaled by executions / samples when loaded). */
static inline pj_u64 pj_stride(pj_u64 count) {
  pj_u64 base = 8 + ((count * 0x9E3779B97F4A7C15ull) >> 60);
  unsigned shift = 0;
  if (count >= PJ_SAMPLE_SPARSE) {
    shift = 64u - (unsigned)__builtin_clzll(count / PJ_SAMPLE_SPARSE);
    if (shift > 6) shift = 6;
  }
  return (base << shift) - 1;
}

/* The end of a timed execution that ended at t1. */
static inline void pj_end_at(unsigned k, pj_u64 t0, pj_u64 t1, pj_u64 e0, pj_u64 c0, pj_u64 k0) {
  pj_u64 dt = t1 - t0;
  pj_slot *s;
  if (__builtin_expect(pj_watches[k].t0 == t0, 0)) {
    dt = pj_end_watched(k, dt);
  } else if (__builtin_expect(dt > PJ_SUSPECT_TICKS, 0)) {
    const pj_slot *w = pj_slots + k;
    if (w->count > 0 && (double)dt * (double)w->count > PJ_SUSPECT * (double)w->sum) {
      dt = pj_suspect(k, dt);
    }
  }
  s = pj_sample(k, dt, pj_events - e0, pj_counter_events - c0);
  s->skips += pj_skips - k0;
  if (s->count >= PJ_SAMPLE_DENSE) {
    pj_u64 stride = pj_stride(s->count);
    pj_lefts[k] = stride;
    s->granted += stride;
  }
}

static inline void pj_end(unsigned k, pj_u64 t0, pj_u64 e0, pj_u64 c0, pj_u64 k0) {
  if (t0 == 0) return;
  pj_end_at(k, t0, pj_now(), e0, c0, k0);
}

static inline void pj_histogram(pj_slot *s, pj_u64 v) {
  int i;
  for (i = 0; i < PJ_HISTOGRAM; ++i) {
    if (s->counts[i] != 0 && s->values[i] == v) { s->counts[i]++; return; }
    if (s->counts[i] == 0) { s->values[i] = v; s->counts[i] = 1; return; }
  }
  s->overflow++;
}

/* Trip count of an opaque loop: the model needs its distribution. */
static inline void pj_trips(unsigned k, pj_u64 n) {
  pj_slot *s = pj_slot_of(k);
  /* With count, sum and sumsq, the least-squares slope of the count over the run: whether it
     drifted while the estimation ran (a refining mesh), which extrapolation must not hide. */
  s->trend += (double)s->count * (double)n;
  s->count++;
  s->sum += n;
  s->sumsq += (double)n * (double)n;
  pj_histogram(s, n);
  pj_counter_events++;
}

/* Trip count of an OpenMP work-sharing loop, which its probes cannot enclose: each thread
   counts the iterations of its chunk (in the slot's countdown word, unused by counters) and
   records them once the loop is over. */
static inline void pj_omp_iteration(unsigned k) { pj_slot_of(k)->left++; }

/* OpenMP's own, under a name of ours (so no prototype clashes with <omp.h>'s), weak so that a
   program without OpenMP links: a team of one. Each thread records its chunk, so a loop run by
   T threads leaves T records; with the team sizes the loader knows the count per team, which a
   prediction with another number of threads shares out again (orphaned loops included). */
extern int pj_omp_team_size(void) __asm__("omp_get_num_threads") __attribute__((weak));

static inline void pj_omp_trips(unsigned k) {
  pj_slot *s = pj_slot_of(k);
  pj_u64 n = s->left;
  s->left = 0;
  s->team += pj_omp_team_size != 0 ? (double)pj_omp_team_size() : 1.0;
  pj_trips(k, n);
}

/* Trip count of a loop that communicates: its distribution, and the counts in order (the first
   PJ_SEQUENCE), which an estimation at np >= 2 keeps per rank so that each rank of the model
   sends as many messages as the program's did. */
static inline void pj_trips_seq(unsigned k, pj_u64 n) {
  pj_slot *s = pj_slot_of(k);
  pj_trips(k, n);
  if (s->kept < PJ_SEQUENCE) pj_keep_value(s, (double)n);
}

/* Trip count of a loop whose count the model computes: the total (to divide a fragment's time
   by its iterations) and the sum of squares (a count that reads an enclosing loop's counter is
   averaged over it when its variance is that of the sweep: estimates_triangles.hpp); three
   additions cost an enclosing interval too little to correct. */
static inline void pj_trips_sum(unsigned k, pj_u64 n) {
  pj_slot *s = pj_slot_of(k);
  s->count++;
  s->sum += n;
  s->sumsq += (double)n * (double)n;
}

static inline int pj_branch(unsigned k, int taken) {
  pj_slot *s = pj_slot_of(k);
  s->count++;
  s->sum += taken ? 1u : 0u;
  return taken;
}

/* An opaque branch that guards communication: its outcomes in order too (the first
   PJ_SEQUENCE), so that each rank of the model decides as the program's did. */
static inline int pj_branch_seq(unsigned k, int taken) {
  pj_slot *s = pj_slot_of(k);
  s->count++;
  s->sum += taken ? 1u : 0u;
  if (s->kept < PJ_SEQUENCE) pj_keep_value(s, taken ? 1.0 : 0.0);
  return taken;
}

static inline void pj_switch(unsigned k, long value) {
  pj_slot *s = pj_slot_of(k);
  s->count++;
  pj_histogram(s, (pj_u64)value);
  pj_counter_events++;
}

static inline void pj_value(unsigned k, double value) {
  pj_slot *s = pj_slot_of(k);
  s->count++;
  s->dsum += value;
  if (s->kept < PJ_SEQUENCE) pj_keep_value(s, value);
}

/* A per-peer count array (MPI_Alltoallv): the mean count over the communicator's ranks;
   fcomm is MPI_Comm_c2f of the communicator (this header cannot include mpi.h). */
void pj_value_counts(unsigned k, const int *counts, int fcomm);

/* Quarter-octave bucket of a duration, so the loader can trim outliers (page faults,
   interrupts) from the balanced-loop test without keeping every iteration time. */
static inline pj_u64 pj_bucket(pj_u64 dt) {
  int msb;
  if (dt < 4) return dt;
  msb = 63 - __builtin_clzll(dt);
  return (pj_u64)(4 * msb) + ((dt >> (msb - 2)) & 3u);
}

static inline void pj_iteration_sample(unsigned k, pj_u64 dt) {
  (void)pj_sample(k, dt, 0, 0);
  pj_histogram(pj_slot_of(k), pj_bucket(dt));
}

/* Calls priced by their size (malloc, free, memcpy, ...): the product of the size arguments of
   the current call (a free's block: its usable size), binned by powers of two with the time of
   the timed calls; allocations and frees move the probed heap's live bytes, which every timed
   sample reads (the working set of the loops the model scales across cache levels). */
#define PJ_SIZE_BINS 64
void pj_size_free(void *block);
void pj_size_release(void *block);
void pj_sized_sample(unsigned s, double bytes, pj_u64 dt);

static inline void pj_size_mul(double v) { pj_size *= v; }

static inline pj_u64 pj_begin_sized(unsigned k) {
  pj_size = 1.0;
  return pj_begin(k);
}

static inline void pj_end_sized(unsigned k, unsigned s, int allocates, pj_u64 t0, pj_u64 e0,
                                pj_u64 c0, pj_u64 k0) {
  pj_u64 t1;
  if (allocates) pj_live_add((long long)pj_size);
  if (t0 == 0) return;
  /* One reading ends both samples: the binning (a call, cold when samples are sparse) stays
     out of the block's time. */
  t1 = pj_now();
  pj_end_at(k, t0, t1, e0, c0, k0);
  pj_sized_sample(s, pj_size, t1 - t0);
}

/* A constructor's member initialisers: marked at the call site, timed at the body's top; the
   mark names its constructor so another constructor's body does not take it. */
typedef struct pj_mark_state { unsigned k; pj_u64 t, e, c, s; } pj_mark_state;
extern __thread pj_mark_state pj_marked;

static inline void pj_mark(unsigned k) {
  pj_marked.k = k + 1;
  pj_marked.e = pj_events;
  pj_marked.c = pj_counter_events;
  pj_marked.s = pj_skips;
  pj_marked.t = pj_now();
}

static inline void pj_prologue(unsigned k) {
  pj_slot *s;
  if (pj_marked.k != k + 1) return;
  pj_marked.k = 0;
  s = pj_sample(k, pj_now() - pj_marked.t, pj_events - pj_marked.e,
                pj_counter_events - pj_marked.c);
  s->skips += pj_skips - pj_marked.s;
}

#define PJ_ITERATION_DENSE 256
#define PJ_ITERATION_STRIDE 16

/* Iterations between timed ones: 1 for the first PJ_ITERATION_DENSE samples, then
   PJ_ITERATION_STRIDE, doubled with each doubling of the samples past PJ_SAMPLE_SPARSE, up to
   64x, as for timed probes (a loop of millions of short iterations paid a clock pair and a
   histogram update every 16). */
static inline pj_u64 pj_iteration_stride(pj_u64 count) {
  unsigned shift;
  if (count < PJ_ITERATION_DENSE) return 1;
  if (count < PJ_SAMPLE_SPARSE) return PJ_ITERATION_STRIDE;
  shift = 64u - (unsigned)__builtin_clzll(count / PJ_SAMPLE_SPARSE);
  return (pj_u64)PJ_ITERATION_STRIDE << (shift > 6 ? 6 : shift);
}

/* The iteration timer of one execution of a fragment's loop: the start of the iteration being
   timed (0: none), and the iterations left before the next timed one, carried over from the
   slot so that the sampled iterations are spread over all executions. */
typedef struct pj_iter { pj_u64 last, left; } pj_iter;

static inline pj_iter pj_iter_begin(unsigned k) {
  pj_iter it;
  it.last = 0;
  it.left = pj_slot_of(k)->left;
  if (it.left == 0) it.left = 1;
  return it;
}

static inline void pj_iteration_step(unsigned k, pj_iter *it) {
  pj_u64 now = pj_now();
  if (it->last != 0) {
    pj_iteration_sample(k, now - it->last);
    it->last = 0;
    if (--it->left != 0) return;
  }
  it->last = now;
  it->left = pj_iteration_stride(pj_slot_of(k)->count);
}

/* At the top of every iteration: a decrement and a test unless this iteration ends or starts a
   timed one. */
static inline void pj_iteration(unsigned k, pj_iter *it) {
  if (__builtin_expect(it->last == 0 && --it->left != 0, 1)) return;
  pj_iteration_step(k, it);
}

static inline void pj_last_iteration(unsigned k, pj_iter *it) {
  if (it->last != 0) pj_iteration_sample(k, pj_now() - it->last);
  pj_slot_of(k)->left = it->left;
}

/* Iterations of a loop the probes cannot enclose (an OpenMP work-sharing loop, which must stay
   next to its pragma): each thread times the gap between its consecutive iterations; the
   generation, bumped after every execution of the loop, keeps a thread from timing across
   two executions. Back to back, the samples add up to the loop's time (a single iteration
   timed alone is not: the clock read does not wait for an out-of-order body to finish), and
   each carries one probe, whose cost the runtime measures in the same loop at exit
   (pj_calibrate, the `iteration` calibration). */
static inline void pj_iteration_tls(unsigned k) {
  pj_u64 now = pj_now();
  pj_slot *s = pj_slot_of(k);
  pj_u64 generation = __atomic_load_n(&pj_generation, __ATOMIC_RELAXED);
  if (s->last != 0 && s->generation == generation) {
    pj_iteration_sample(k, now - s->last);
  }
  s->last = now;
  s->generation = generation;
}

static inline void pj_generation_bump(void) {
  __atomic_add_fetch(&pj_generation, 1, __ATOMIC_RELAXED);
}

/* In C a probe's start is one declaration (its initialisers run in order), so C90 code, whose
   declarations must precede statements, stays valid when a probe opens a block of them; C++
   keeps uninitialised declarations, which a case label may jump past. */
#ifdef __cplusplus
#define PJ_BEGIN(k) pj_u64 pj_t##k, pj_e##k, pj_c##k, pj_k##k; pj_e##k = pj_events; \
  pj_c##k = pj_counter_events; pj_k##k = pj_skips; pj_t##k = pj_begin(k);
#else
#define PJ_BEGIN(k) pj_u64 pj_e##k = pj_events, pj_c##k = pj_counter_events, \
  pj_k##k = pj_skips, pj_t##k = pj_begin(k);
#endif
#define PJ_END(k) pj_end(k, pj_t##k, pj_e##k, pj_c##k, pj_k##k);
#ifdef __cplusplus
#define PJ_BEGIN_SIZED(k) pj_u64 pj_t##k, pj_e##k, pj_c##k, pj_k##k; pj_e##k = pj_events; \
  pj_c##k = pj_counter_events; pj_k##k = pj_skips; pj_t##k = pj_begin_sized(k);
#else
#define PJ_BEGIN_SIZED(k) pj_u64 pj_e##k = pj_events, pj_c##k = pj_counter_events, \
  pj_k##k = pj_skips, pj_t##k = pj_begin_sized(k);
#endif
#define PJ_END_SIZED(k, s, a) pj_end_sized(k, s, a, pj_t##k, pj_e##k, pj_c##k, pj_k##k);

#ifdef __cplusplus
}
#endif
#endif
)PJ";
}

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
#define PJ_CALIBRATION_COUNTER (PJ_SLOTS + 2)
#define PJ_CALIBRATION_SCRATCH (PJ_SLOTS + 3)
#define PJ_CALIBRATION_SKIP (PJ_SLOTS + 4)
#define PJ_CALIBRATION_UNTIMED (PJ_SLOTS + 5)
#define PJ_CALIBRATION_ITERATION (PJ_SLOTS + 6)
#define PJ_ALL_SLOTS (PJ_SLOTS + 7)

__thread pj_slot *pj_slots;
__thread pj_u64 *pj_lefts;
__thread pj_watch *pj_watches;
static __thread int pj_schedstat_fd = -2; /* -2: not opened yet, -1: none */
static __thread pj_u64 pj_last_wait;      /* the thread's wait when the runtime last looked */
__thread pj_u64 pj_events;
__thread pj_u64 pj_counter_events;
__thread pj_u64 pj_skips;
__thread pj_mark_state pj_marked;
__thread double pj_size = 1.0;
long long pj_live;
__thread long long pj_live_pending;
pj_u64 pj_generation;

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
  pj_slots = (pj_slot *)calloc(PJ_ALL_SLOTS, sizeof(pj_slot));
  pj_lefts = (pj_u64 *)calloc(PJ_ALL_SLOTS, sizeof(pj_u64));
  pj_watches = (pj_watch *)calloc(PJ_ALL_SLOTS, sizeof(pj_watch));
  entry = (pj_thread_entry *)malloc(sizeof(pj_thread_entry));
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

void pj_size_free(void *block) {
  pj_size = pj_usable(block);
  pj_live_add(-(long long)pj_size);
}

void pj_size_release(void *block) {
  pj_live_add(-(long long)pj_usable(block));
}

void pj_sized_sample(unsigned k, double bytes, pj_u64 dt) {
  pj_slot *s = pj_slot_of(k);
  int bin = bytes >= 1.0 ? (int)log2(bytes) : 0;
  if (s->bins == 0) {
    s->bins = (double *)calloc(3 * PJ_SIZE_BINS, sizeof(double));
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
    s->sequence = (double *)malloc(PJ_SEQUENCE * sizeof(double));
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

int MPI_Init(int *argc, char ***argv) {
  int r = PMPI_Init(argc, argv);
  pj_take(&pj_init_moment, 1);
  return r;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  int r = PMPI_Init_thread(argc, argv, required, provided);
  pj_take(&pj_init_moment, 1);
  return r;
}

int MPI_Finalize(void) {
  pj_take(&pj_finalize_moment, 0);
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

/* Probe overhead: what an empty probe pair reports, and what it adds to an enclosing
   interval. Measured on this thread, after the program, many times. */
static void pj_calibrate(void) {
  enum { N = 20000 };
  int i;
  pj_u64 t0, w0;
  pj_slot *untimed = pj_slot_of(PJ_CALIBRATION_UNTIMED);
  for (i = 0; i < N; ++i) { /* what an empty timed interval reports */
    pj_u64 e = pj_events, c = pj_counter_events, k = pj_skips, t;
    pj_lefts[PJ_CALIBRATION_SELF] = 0;
    t = pj_begin(PJ_CALIBRATION_SELF);
    pj_end(PJ_CALIBRATION_SELF, t, e, c, k);
  }
  w0 = pj_wait_ns();
  t0 = pj_now();
  for (i = 0; i < N; ++i) { /* what a timed probe costs an enclosing interval */
    pj_u64 e = pj_events, c = pj_counter_events, k = pj_skips, t;
    pj_lefts[PJ_CALIBRATION_SCRATCH] = 0;
    t = pj_begin(PJ_CALIBRATION_SCRATCH);
    pj_end(PJ_CALIBRATION_SCRATCH, t, e, c, k);
  }
  (void)pj_sample(PJ_CALIBRATION_PAIR, pj_ticks_since(t0, w0) / N, 0, 0);
  pj_lefts[PJ_CALIBRATION_UNTIMED] = 2 * N;
  untimed->granted += 2 * N;
  w0 = pj_wait_ns();
  t0 = pj_now();
  for (i = 0; i < N; ++i) { /* what an untimed execution costs it */
    pj_u64 e = pj_events, c = pj_counter_events, k = pj_skips, t;
    t = pj_begin(PJ_CALIBRATION_UNTIMED);
    pj_end(PJ_CALIBRATION_UNTIMED, t, e, c, k);
  }
  (void)pj_sample(PJ_CALIBRATION_SKIP, pj_ticks_since(t0, w0) / N, 0, 0);
  /* A trip counter with a few distinct values, as an opaque loop's usually has. */
  w0 = pj_wait_ns();
  t0 = pj_now();
  for (i = 0; i < N; ++i) {
    pj_trips(PJ_CALIBRATION_SCRATCH, (pj_u64)(i & 3));
  }
  (void)pj_sample(PJ_CALIBRATION_COUNTER, pj_ticks_since(t0, w0) / N, 0, 0);
  /* An OpenMP loop's iteration probes back to back, with an empty body: what each of its
     samples carries besides the body (a short body measured with a pair's cost taken off came
     out at 0 s: the probe costs it less than a pair). */
  for (i = 0; i < N; ++i) {
    pj_iteration_tls(PJ_CALIBRATION_ITERATION);
    pj_omp_iteration(PJ_CALIBRATION_SCRATCH);
    __asm__ volatile("" ::: "memory");
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
  into->live += from->live;
  into->trend += from->trend;
  into->watched += from->watched;
  into->wticks += from->wticks;
  into->wremoved += from->wremoved;
  if (from->bins != 0) {
    if (into->bins == 0) into->bins = (double *)calloc(3 * PJ_SIZE_BINS, sizeof(double));
    if (into->bins != 0) {
      for (i = 0; i < 3 * PJ_SIZE_BINS; ++i) into->bins[i] += from->bins[i];
    }
  }
  into->dsum += from->dsum;
  into->team += from->team;
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

static void pj_write(void) {
  pj_slot *total;
  pj_thread_entry *t;
  double seconds, rate;
  pj_u64 ticks;
  const char *dir = getenv("PARJAVA_ESTIMATES_DIR");
  char path[4096];
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
  pj_calibrate();
  total = (pj_slot *)calloc(PJ_ALL_SLOTS, sizeof(pj_slot));
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
  out = fopen(path, "w");
  if (out == 0) {
    fprintf(stderr, "parjava estimation: cannot write %s\n", path);
    free(total);
    return;
  }
  fprintf(out, "parjava-estimates 3\n");
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
  fprintf(out, "calibration %.6g %.6g %.6g %.6g %.6g\n",
          total[PJ_CALIBRATION_SELF].count ? (double)total[PJ_CALIBRATION_SELF].sum /
                                                 (double)total[PJ_CALIBRATION_SELF].count
                                           : 0.0,
          (double)total[PJ_CALIBRATION_PAIR].sum, (double)total[PJ_CALIBRATION_COUNTER].sum,
          (double)total[PJ_CALIBRATION_SKIP].sum,
          total[PJ_CALIBRATION_ITERATION].count
              ? (double)total[PJ_CALIBRATION_ITERATION].sum /
                    (double)total[PJ_CALIBRATION_ITERATION].count
              : 0.0);
  for (k = 0; k < PJ_SLOTS; ++k) {
    const pj_slot *s = &total[k];
    if (s->count == 0) continue;
    fprintf(out, "slot %d %llu %llu %.17g %llu %llu %llu %.17g %llu %llu %llu %llu", k,
            (unsigned long long)s->count, (unsigned long long)s->sum, s->sumsq,
            (unsigned long long)s->min, (unsigned long long)s->max,
            (unsigned long long)s->nested, s->dsum, (unsigned long long)s->overflow,
            (unsigned long long)s->counters, (unsigned long long)s->executions,
            (unsigned long long)s->skips);
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
  fclose(out);
  free(total);
}

__attribute__((constructor)) static void pj_start(void) {
  clock_gettime(CLOCK_MONOTONIC, &pj_start_time);
  pj_start_ticks = pj_now();
  atexit(pj_write);
}
)PJ";
}

} // namespace parjava::frontend
