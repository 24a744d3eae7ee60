/* Tiny command-line helpers shared by the example programs: "-x VALUE" options with defaults,
 * so later tools (scanner tests, benchmarks) can vary sizes, iterations and injected delays. */
#ifndef PARJAVA_EXAMPLE_ARGS_H
#define PARJAVA_EXAMPLE_ARGS_H

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The value after `flag` (e.g. "-n"), or `fallback` when absent. */
static inline long example_option(int argc, char **argv, const char *flag, long fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (strcmp(argv[i], flag) == 0) {
      return strtol(argv[i + 1], NULL, 10);
    }
  }
  return fallback;
}

/* The string after `flag`, or `fallback`. */
static inline const char *example_text(int argc, char **argv, const char *flag,
                                       const char *fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (strcmp(argv[i], flag) == 0) {
      return argv[i + 1];
    }
  }
  return fallback;
}

/* Busy computation for `us` microseconds (a stand-in for real work that keeps the core busy,
 * unlike sleeping). */
static inline void example_compute(long us) {
  if (us <= 0) {
    return;
  }
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  volatile double x = 1.0;
  do {
    for (int i = 0; i < 200; ++i) {
      x = x * 1.0000001 + 1e-9;
    }
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while ((now.tv_sec - start.tv_sec) * 1000000L + (now.tv_nsec - start.tv_nsec) / 1000L < us);
}

#endif
