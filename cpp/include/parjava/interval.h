/* Interval markers for interval analysis (seed 004 §3.3, notes 004 §2.2).
 *
 *   #include <parjava/interval.h>
 *   for (int it = 0; it < iterations; ++it) {
 *     parjava_interval_begin(1, "time step");
 *     ...
 *     parjava_interval_end(1);
 *   }
 *
 * Under the parjava tracer (`parjava trace`, or linked with -lparjava_tracer) each marker is
 * recorded with its file and line as the Enter/Leave of an interval region (OTF2 region of role
 * CODE, canonical name "parjava_interval:<id>"). Without the tracer the markers do nothing:
 * the tracer's entry points are weak symbols, so the program links and runs without it.
 * Intervals nest; the same id may be entered many times (e.g. once per iteration).
 * Compile with `-I$(python3 -c "import parjava; print(parjava.include_dir())")`.
 * C99 and C++ (any standard). */
#ifndef PARJAVA_INTERVAL_H
#define PARJAVA_INTERVAL_H

#ifdef __cplusplus
extern "C" {
#endif

/* Entry points of libparjava_tracer.so; null when the tracer is not loaded. */
void parjava_tracer_interval_begin(int id, const char *name, const char *file, int line)
    __attribute__((weak));
void parjava_tracer_interval_end(int id, const char *file, int line) __attribute__((weak));

static inline void parjava_interval_begin_at(int id, const char *name, const char *file,
                                             int line) {
  if (parjava_tracer_interval_begin) {
    parjava_tracer_interval_begin(id, name, file, line);
  }
}

static inline void parjava_interval_end_at(int id, const char *file, int line) {
  if (parjava_tracer_interval_end) {
    parjava_tracer_interval_end(id, file, line);
  }
}

#ifdef __cplusplus
}
#endif

/* Begin interval `id` (an int chosen by the program) named `name` (a string that outlives
 * the call, e.g. a literal). */
#define parjava_interval_begin(id, name) parjava_interval_begin_at((id), (name), __FILE__, __LINE__)
/* End the innermost open interval `id`. */
#define parjava_interval_end(id) parjava_interval_end_at((id), __FILE__, __LINE__)

#endif /* PARJAVA_INTERVAL_H */
