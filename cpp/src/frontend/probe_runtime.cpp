// The run-time side of the estimation code (seed 000 notes §3.7.1, §6; seed 003 notes §6.5):
// a C header included first by every instrumented source, and a C file linked into the
// instrumented program. Probes read the cycle counter (rdtsc on x86, cntvct_el0 on AArch64),
// converted to seconds with the rate measured against CLOCK_MONOTONIC over the whole run
// (seed 000 notes §3.7.1: a TSC because blocks take less than the clock's resolution); they
// accumulate per slot and per thread (count, sum, sum of squares, min, max, timed probe events
// and counter events nested inside), and at MPI_Finalize and again at exit every thread's slots
// are merged and written to $PARJAVA_ESTIMATES_DIR/parjava-estimates.<rank>.<pid>.txt. The probe
// overhead is measured once, then (an empty probe pair, what a pair costs an enclosing measurement,
// what a trip counter costs it) so the loader can subtract it (seed 003 notes §6.5: "correction").
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
  pj_u64 cskips;     /* uncounted executions of sampled counters inside them (estimated) */
  pj_u64 last, generation; /* iterations timed per thread (OpenMP loops) */
  pj_u64 left;     /* iterations until the next timed one (sampled iteration timing) */
  double dsum;     /* values (value probes) */
  pj_u64 values[PJ_HISTOGRAM], counts[PJ_HISTOGRAM], overflow;
  double *sequence; /* value probes: the first PJ_SEQUENCE values, in call order */
  pj_u64 kept;
  double live;   /* timed probes: the program's live heap bytes, summed over the samples */
  double trend;  /* trips: sum over executions of (execution index x iterations) */
  double team;   /* OpenMP trips: sum over counted records of the recording thread's team size */
  double *bins;  /* sized probes: per power of two of the bytes, count, bytes and ticks */
  pj_u64 watched, wticks, wremoved; /* samples whose run-queue wait was read, their ticks after
                                       the wait was taken out, and the ticks taken out */
} pj_slot;

#define PJ_SEQUENCE 4096
void pj_keep_value(pj_slot *s, double value);

extern __thread pj_slot *pj_slots;
/* Per slot, the executions before the next timed (timed probes) or counted (counters) one; until
   a thread's first timed or counted execution, a shared array whose counters go negative (and
   so counted), which registers the thread: the uncounted path has no test for it. */
extern __thread pj_u64 *pj_lefts;
extern __thread pj_u64 pj_events;
extern __thread pj_u64 pj_counter_events;
extern __thread pj_u64 pj_skips;
extern __thread pj_u64 pj_counter_skips;
/* How many measured nests that call program functions are running on this thread: a function
   also called from other places is timed there, and its probes stay silent inside the nests,
   whose own probes measure it (PJ_QBEGIN). */
extern __thread unsigned pj_quiet;
extern __thread double pj_size;
extern long long pj_live;
extern __thread long long pj_live_pending;

/* The program's live heap bytes move through a per-thread balance that reaches the shared
   counter once it passes PJ_LIVE_BATCH either way: a locked add per allocation cost more than
   the rest of a sampled probe (miniAMR's 8.9 million small allocations), and the working set
   the samples read is off by at most PJ_LIVE_BATCH per thread. */
#define PJ_LIVE_BATCH 65536
static __inline__ void pj_live_add(long long bytes) {
  long long pending = pj_live_pending + bytes;
  if (__builtin_expect(pending > PJ_LIVE_BATCH || pending < -PJ_LIVE_BATCH, 0)) {
    __atomic_add_fetch(&pj_live, pending, __ATOMIC_RELAXED);
    pending = 0;
  }
  pj_live_pending = pending;
}
extern pj_u64 pj_generation;
/* The largest team a work-sharing construct forked (the estimates file's `omp_team`): the
   self-check predicts the run with that many threads. */
extern pj_u64 pj_largest_team;
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

static __inline__ pj_u64 pj_now(void) {
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

static __inline__ pj_slot *pj_slot_of(unsigned k) {
  pj_slot *s = pj_slots;
  if (__builtin_expect(s == 0, 0)) {
    s = pj_thread_slots();
  }
  return s + k;
}

static __inline__ pj_slot *pj_sample(unsigned k, pj_u64 dt, pj_u64 nested, pj_u64 counters) {
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

/* A timed execution's start: the thread's event and skip counts then, which its end subtracts
   from theirs to know what it enclosed. Kept on a per-thread stack that only timed executions
   push and pop, so an untimed one (all but 1 in 8..1472) keeps nothing but its zero timestamp
   across its block: with the counts in locals, an allocation wrapper entered millions of times
   held four of them per probe in callee-saved registers across malloc, ~20 instructions a
   probe and 1.35x the program's instructions (tests/programs/alloc_wrapper). An execution left
   without its end (longjmp, an exception) leaves its entry, which the next end below it drops. */
typedef struct pj_open { pj_u64 t, k, e, c, s, g; } pj_open;
extern __thread pj_open *pj_opens;
extern __thread unsigned pj_nopen, pj_capopen;
pj_open *pj_open_grow(void);

static __inline__ pj_open *pj_push(unsigned k) {
  pj_open *o;
  if (__builtin_expect(pj_nopen == pj_capopen, 0)) pj_open_grow();
  o = pj_opens + pj_nopen++;
  o->k = k;
  o->e = pj_events;
  o->c = pj_counter_events;
  o->s = pj_skips;
  o->g = pj_counter_skips;
  return o;
}

/* The start of a timed probe: its timestamp, or 0 when this execution is not timed. */
static __inline__ pj_u64 pj_begin(unsigned k) {
  pj_u64 *left = pj_lefts;
  pj_open *o;
  if (__builtin_expect(left[k] != 0, 1)) {
    left[k]--;
    pj_skips++;
    return 0;
  }
  o = pj_push(k);
  {
    const pj_slot *s = pj_slot_of(k);
    if (__builtin_expect(s->count == 0 || s->sum >= s->count * PJ_LONG_TICKS, 0)) {
      o->t = pj_begin_watched(k);
      return o->t;
    }
  }
  o->t = pj_now();
  return o->t;
}

/* The start of the timed execution of probe k that began at t0, taken off the stack with any
   entry above it (left without their ends); a null when there is none. */
static __inline__ const pj_open *pj_pop(unsigned k, pj_u64 t0) {
  unsigned n = pj_nopen;
  while (n > 0) {
    --n;
    if (pj_opens[n].t == t0 && pj_opens[n].k == k) {
      pj_nopen = n;
      return pj_opens + n;
    }
  }
  return 0;
}

/* Untimed executions after a timed one: 7..22 (1 in 8..23), doubled with each doubling of the
   samples past PJ_SAMPLE_SPARSE, up to 64x (1 in 512..1472). A probe entered millions of times
   then costs its countdown alone, and its tens of thousands of samples still give its mean
   (the sum is scaled by executions / samples when loaded). */
static __inline__ pj_u64 pj_stride(pj_u64 count) {
  pj_u64 base = 8 + ((count * 0x9E3779B97F4A7C15ull) >> 60);
  unsigned shift = 0;
  if (count >= PJ_SAMPLE_SPARSE) {
    shift = 64u - (unsigned)__builtin_clzll(count / PJ_SAMPLE_SPARSE);
    if (shift > 6) shift = 6;
  }
  return (base << shift) - 1;
}

/* The end of a timed execution that ended at t1. */
static __inline__ void pj_end_at(unsigned k, pj_u64 t0, pj_u64 t1) {
  pj_u64 dt = t1 - t0, e0 = pj_events, c0 = pj_counter_events, k0 = pj_skips,
         g0 = pj_counter_skips;
  pj_slot *s;
  const pj_open *o = pj_pop(k, t0);
  if (__builtin_expect(o != 0, 1)) {
    e0 = o->e;
    c0 = o->c;
    k0 = o->s;
    g0 = o->g;
  }
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
  s->cskips += pj_counter_skips - g0;
  if (s->count >= PJ_SAMPLE_DENSE) {
    pj_u64 stride = pj_stride(s->count);
    pj_lefts[k] = stride;
    s->granted += stride;
  }
}

static __inline__ void pj_end(unsigned k, pj_u64 t0) {
  if (t0 == 0) return;
  pj_end_at(k, t0, pj_now());
}

static __inline__ void pj_histogram(pj_slot *s, pj_u64 v) {
  int i;
  for (i = 0; i < PJ_HISTOGRAM; ++i) {
    if (s->counts[i] != 0 && s->values[i] == v) { s->counts[i]++; return; }
    if (s->counts[i] == 0) { s->values[i] = v; s->counts[i] = 1; return; }
  }
  s->overflow++;
}

/* Counted probes (trip counts, branch outcomes, selectors) are sampled too: a slot's first
   PJ_COUNT_DENSE executions are counted, and once its statistics are stable (pj_count_next: no
   rare outcome, no heavy tail) one in 15..45, sparser with each doubling of the counted ones up
   to 1 in 512..1472 (pj_stride); the executions are the counted ones plus the skips granted
   minus the countdown left at exit, as for timed probes. The model reads ratios from them (a
   branch's probability, a loop's mean count and its histogram), which the counted executions
   give (a branch counts all its true outcomes: pj_branch); the first PJ_SEQUENCE outcomes of a sequence slot (communicating loops and guards, whose
   every outcome the model replays per rank) are all counted, and so are values. An uncounted execution costs one countdown: counting every one made graph500's
   generator, whose 150 million tests and trip counts are each a few instructions of work, run
   2.3x slower probed than as built. The counted path is a call (rare past the first ones).
   A counted execution grants its stride to pj_counter_skips, so a timed interval learns how
   many uncounted executions it enclosed (its share of the grants; unbiased on average) and the
   loader takes their cost out. */
#define PJ_COUNT_DENSE PJ_SEQUENCE

/* Decrement first: one read-modify-write and its sign (the counted path sets it again). */
static __inline__ int pj_uncounted(unsigned k) {
  return __builtin_expect((long long)--pj_lefts[k] >= 0, 1);
}

/* The counted path of each counter kind (parjava_probes.c), out of the way of the uncounted. */
__attribute__((cold)) void pj_trips_count(unsigned k, pj_u64 n);
__attribute__((cold)) void pj_trips_seq_count(unsigned k, pj_u64 n);
__attribute__((cold)) void pj_trips_sum_count(unsigned k, pj_u64 n);
__attribute__((cold)) void pj_branch_count(unsigned k, int taken);
__attribute__((cold)) void pj_branch_seq_count(unsigned k, int taken);
__attribute__((cold)) void pj_switch_count(unsigned k, long value);
__attribute__((cold)) void pj_value_count(unsigned k, double value);

/* Trip count of an opaque loop: the model needs its distribution. */
static __inline__ void pj_trips(unsigned k, pj_u64 n) {
  if (pj_uncounted(k)) return;
  pj_trips_count(k, n);
}

/* Trip count of an OpenMP work-sharing loop, which its probes cannot enclose: each thread
   counts the iterations of its chunk (in the slot's countdown word, unused by counters) and
   records them once the loop is over. */
static __inline__ void pj_omp_iteration(unsigned k) { pj_slot_of(k)->left++; }

/* OpenMP's own, under a name of ours (so no prototype clashes with <omp.h>'s), weak so that a
   program without OpenMP links: a team of one. Each thread records its chunk, so a loop run by
   T threads leaves T records; with the team sizes the loader knows the count per team, which a
   prediction with another number of threads shares out again (orphaned loops included). */
extern int pj_omp_team_size(void) __asm__("omp_get_num_threads") __attribute__((weak));

static __inline__ void pj_omp_trips(unsigned k) {
  pj_slot *s = pj_slot_of(k);
  pj_u64 n = s->left;
  s->left = 0;
  if (pj_uncounted(k)) return;
  s->team += pj_omp_team_size != 0 ? (double)pj_omp_team_size() : 1.0;
  pj_trips_count(k, n);
}

/* Trip count of a loop that communicates: its distribution, and the counts in order (the first
   PJ_SEQUENCE), which an estimation at np >= 2 keeps per rank so that each rank of the model
   sends as many messages as the program's did. */
static __inline__ void pj_trips_seq(unsigned k, pj_u64 n) {
  if (pj_uncounted(k)) return;
  pj_trips_seq_count(k, n);
}

/* Trip count of a loop whose count the model computes: the total (to divide a fragment's time
   by its iterations) and the sum of squares (a count that reads an enclosing loop's counter is
   averaged over it when its variance is that of the sweep: estimates_triangles.hpp). */
static __inline__ void pj_trips_sum(unsigned k, pj_u64 n) {
  if (pj_uncounted(k)) return;
  pj_trips_sum_count(k, n);
}

/* An opaque branch: its evaluations are the executions (the countdown's), and its true outcomes
   are all counted, also the uncounted executions' (an increment where the program branches
   anyway), so its probability is exact: a rare outcome must not be missed (lattice.c's array
   grows twice in 32000 calls; a sample caught one growth in 4996, three times the rate). */
static __inline__ int pj_branch(unsigned k, int taken) {
  if (__builtin_expect(pj_uncounted(k), 1)) {
    if (taken) pj_slots[k].sum++;
  } else {
    pj_branch_count(k, taken);
  }
  return taken;
}

/* An opaque branch that guards communication: its outcomes in order too (the first
   PJ_SEQUENCE), so that each rank of the model decides as the program's did. */
static __inline__ int pj_branch_seq(unsigned k, int taken) {
  if (__builtin_expect(pj_uncounted(k), 1)) {
    if (taken) pj_slots[k].sum++;
  } else {
    pj_branch_seq_count(k, taken);
  }
  return taken;
}

static __inline__ void pj_switch(unsigned k, long value) {
  if (pj_uncounted(k)) return;
  pj_switch_count(k, value);
}

static __inline__ void pj_value(unsigned k, double value) {
  if (pj_uncounted(k)) return;
  pj_value_count(k, value);
}

/* A per-peer count array (MPI_Alltoallv): the mean count over the communicator's ranks;
   fcomm is MPI_Comm_c2f of the communicator (this header cannot include mpi.h). */
void pj_value_counts(unsigned k, const int *counts, int fcomm);

/* Quarter-octave bucket of a duration, so the loader can trim outliers (page faults,
   interrupts) from the balanced-loop test without keeping every iteration time. */
static __inline__ pj_u64 pj_bucket(pj_u64 dt) {
  int msb;
  if (dt < 4) return dt;
  msb = 63 - __builtin_clzll(dt);
  return (pj_u64)(4 * msb) + ((dt >> (msb - 2)) & 3u);
}

static __inline__ void pj_iteration_sample(unsigned k, pj_u64 dt) {
  (void)pj_sample(k, dt, 0, 0);
  pj_histogram(pj_slot_of(k), pj_bucket(dt));
}

/* Calls priced by their size (malloc, free, memcpy, ...): the product of the size arguments of
   the current call (a free's block: its usable size), binned by powers of two with the time of
   the timed calls. The heap they change is counted by the allocator itself (the end of
   parjava_probes.c). */
#define PJ_SIZE_BINS 64
void pj_size_free(void *block);
void pj_sized_sample(unsigned s, double bytes, pj_u64 dt);

static __inline__ void pj_size_mul(double v) { pj_size *= v; }

static __inline__ pj_u64 pj_begin_sized(unsigned k) {
  pj_size = 1.0;
  return pj_begin(k);
}

static __inline__ void pj_end_sized(unsigned k, unsigned s, pj_u64 t0) {
  pj_u64 t1;
  if (t0 == 0) return;
  /* One reading ends both samples: the binning (a call, cold when samples are sparse) stays
     out of the block's time. */
  t1 = pj_now();
  pj_end_at(k, t0, t1);
  pj_sized_sample(s, pj_size, t1 - t0);
}

/* A constructor's member initialisers: marked at the call site, timed at the body's top; the
   mark names its constructor so another constructor's body does not take it. */
typedef struct pj_mark_state { unsigned k; pj_u64 t, e, c, s, g; } pj_mark_state;
extern __thread pj_mark_state pj_marked;

static __inline__ void pj_mark(unsigned k) {
  pj_marked.k = k + 1;
  pj_marked.e = pj_events;
  pj_marked.c = pj_counter_events;
  pj_marked.s = pj_skips;
  pj_marked.g = pj_counter_skips;
  pj_marked.t = pj_now();
}

static __inline__ void pj_prologue(unsigned k) {
  pj_slot *s;
  if (pj_marked.k != k + 1) return;
  pj_marked.k = 0;
  s = pj_sample(k, pj_now() - pj_marked.t, pj_events - pj_marked.e,
                pj_counter_events - pj_marked.c);
  s->skips += pj_skips - pj_marked.s;
  s->cskips += pj_counter_skips - pj_marked.g;
}

#define PJ_ITERATION_DENSE 256
#define PJ_ITERATION_STRIDE 16

/* Iterations between timed ones: 1 for the first PJ_ITERATION_DENSE samples, then
   PJ_ITERATION_STRIDE, doubled with each doubling of the samples past PJ_SAMPLE_SPARSE, up to
   64x, as for timed probes (a loop of millions of short iterations paid a clock pair and a
   histogram update every 16). */
static __inline__ pj_u64 pj_iteration_stride(pj_u64 count) {
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

static __inline__ pj_iter pj_iter_begin(unsigned k) {
  pj_iter it;
  it.last = 0;
  it.left = pj_slot_of(k)->left;
  if (it.left == 0) it.left = 1;
  return it;
}

static __inline__ void pj_iteration_step(unsigned k, pj_iter *it) {
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
static __inline__ void pj_iteration(unsigned k, pj_iter *it) {
  if (__builtin_expect(it->last == 0 && --it->left != 0, 1)) return;
  pj_iteration_step(k, it);
}

static __inline__ void pj_last_iteration(unsigned k, pj_iter *it) {
  if (it->last != 0) pj_iteration_sample(k, pj_now() - it->last);
  pj_slot_of(k)->left = it->left;
}

/* Iterations of a loop the probes cannot enclose (an OpenMP work-sharing loop, which must stay
   next to its pragma): each thread reads the clock every PJ_ITERATION_SPAN iterations and
   records the mean iteration of each such stretch; the generation, bumped after every
   execution of the loop, keeps a thread from timing across two executions. A stretch of
   consecutive iterations adds up to their time (one iteration timed alone does not: the clock
   read does not wait for an out-of-order body to finish), and carries one clock read and a
   countdown per iteration, whose cost the runtime measures in the same loop at exit
   (pj_calibrate, the `iteration` calibration). A clock read every iteration cost about 30
   cycles, more than short bodies, and its error in context was most of their time. */
#define PJ_ITERATION_SPAN 16
static __inline__ void pj_iteration_tls(unsigned k) {
  pj_slot *s = pj_slot_of(k);
  pj_u64 generation = __atomic_load_n(&pj_generation, __ATOMIC_RELAXED);
  pj_u64 now;
  if (__builtin_expect(s->generation == generation && s->last != 0 && --s->left != 0, 1)) {
    return;
  }
  now = pj_now();
  if (s->last != 0 && s->generation == generation) {
    pj_iteration_sample(k, (now - s->last + PJ_ITERATION_SPAN / 2) / PJ_ITERATION_SPAN);
  }
  s->last = now;
  s->generation = generation;
  s->left = PJ_ITERATION_SPAN;
}

static __inline__ void pj_generation_bump(void) {
  __atomic_add_fetch(&pj_generation, 1, __ATOMIC_RELAXED);
}

/* A work-sharing loop timed whole, from just before its directive to just after the loop
   (rewrite_loops.cpp, openmp_construct): its body stays as the program's, so the compiler
   vectorises it as it does there (per-iteration probes made an OpenMP force loop's estimation
   code 1.35x the program). The count is computed before the loop from its canonical bounds
   (OpenMP 5.2 §4.4.1). Each sample is the execution's time per iteration of a thread's share:
   the team's size is the team the directive forks (`forks`: its num_threads, else
   omp_get_max_threads) or the one it runs in (an orphaned `omp for`, omp_get_num_threads);
   the estimation runs one thread per rank unless the program asks for more, and then the
   share is the largest chunk. */
static __inline__ pj_u64 pj_omp_count(long long lo, long long hi, long long step, int inclusive,
                                  int down) {
  long long span = down ? lo - hi : hi - lo;
  if (step <= 0) return 0;
  if (inclusive) span += 1;
  return span > 0 ? (pj_u64)((span + step - 1) / step) : 0;
}

extern int pj_omp_max_threads(void) __asm__("omp_get_max_threads") __attribute__((weak));

static __inline__ void pj_omp_construct(unsigned k, pj_u64 t0, pj_u64 n, long long forks) {
  /* forks: the directive's num_threads (> 0), the team it forks without one (-1), or none: an
     orphaned loop in the caller's team (0). */
  pj_u64 dt = pj_now() - t0;
  pj_u64 team = 1, chunk;
  if (forks > 0) team = (pj_u64)forks;
  if (forks < 0 && pj_omp_max_threads != 0) team = (pj_u64)pj_omp_max_threads();
  if (forks == 0 && pj_omp_team_size != 0) team = (pj_u64)pj_omp_team_size();
  if (team == 0) team = 1;
  {
    /* The largest wins: threads of orphaned loops record at once. */
    pj_u64 seen = __atomic_load_n(&pj_largest_team, __ATOMIC_RELAXED);
    while (team > seen && !__atomic_compare_exchange_n(&pj_largest_team, &seen, team, 1,
                                                       __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
  }
  chunk = (n + team - 1) / team;
  if (chunk == 0) return;
  pj_iteration_sample(k, (dt + chunk / 2) / chunk);
}

/* The count of a work-sharing loop timed whole: one record per execution (per thread of an
   orphaned loop, each with the whole count), a team of one each, so that the loader's count
   per team (shared_trips) is the loop's. */
static __inline__ void pj_omp_construct_trips(unsigned k, pj_u64 n) {
  if (pj_uncounted(k)) return;
  pj_slot_of(k)->team += 1.0;
  pj_trips_count(k, n);
}

/* In C a probe's start is one declaration, so C90 code, whose declarations must precede
   statements, stays valid when a probe opens a block of them; C++ keeps uninitialised
   declarations, which a case label may jump past. */
#ifdef __cplusplus
#define PJ_BEGIN(k) pj_u64 pj_t##k; pj_t##k = pj_begin(k);
#define PJ_BEGIN_SIZED(k) pj_u64 pj_t##k; pj_t##k = pj_begin_sized(k);
#else
#define PJ_BEGIN(k) pj_u64 pj_t##k = pj_begin(k);
#define PJ_BEGIN_SIZED(k) pj_u64 pj_t##k = pj_begin_sized(k);
#endif
/* A probe of a function called from measured nests as well as from other places: ORNL
   minisweep's ref_facexz() accessor, probed for its two calls outside the sweep's nests, ran
   its countdown in every call of the nests' innermost loops (the estimation code at 2.5-2.8x
   the program). Inside a nest it starts nothing and PJ_END finds a zero start. */
#ifdef __cplusplus
#define PJ_QBEGIN(k) pj_u64 pj_t##k; pj_t##k = pj_quiet ? 0 : pj_begin(k);
#define PJ_QBEGIN_SIZED(k) pj_u64 pj_t##k; pj_t##k = pj_quiet ? 0 : pj_begin_sized(k);
#else
#define PJ_QBEGIN(k) pj_u64 pj_t##k = pj_quiet ? 0 : pj_begin(k);
#define PJ_QBEGIN_SIZED(k) pj_u64 pj_t##k = pj_quiet ? 0 : pj_begin_sized(k);
#endif
#define PJ_END(k) pj_end(k, pj_t##k);
#define PJ_END_SIZED(k, s) pj_end_sized(k, s, pj_t##k);

#ifdef __cplusplus
}
#endif
#endif
)PJ";
}

} // namespace parjava::frontend
