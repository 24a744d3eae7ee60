/* A generator-like kernel whose time goes into data-dependent tests (the idiom of graph500's
 * generator and active messages, written here for the probes' cost): every edge takes a random
 * number from a pool (data to the model) and chooses four quadrants from it, each by up to
 * three tests in a small function called millions of times; its owner decides whether it is
 * handled here, and a loop counts the bits where source and target differ (a trip count that
 * follows the data). The edge loop communicates (a reduction every 4096 edges), so the model
 * keeps it and its tests, and the estimation code counts every test's outcomes and every trip
 * count: about six counted events per edge, a few instructions of work each.
 *
 *   ./kronecker <edges>
 *
 * Prints "time <seconds> cpu <seconds>" (wall and CPU time of the edge loop) and a checksum. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t state = 0x2545F4914F6CDD1Dull;

static uint64_t draw(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

/* Quadrant probabilities 0.94, 0.03, 0.02, 0.01 (of 2^24, from 24 bits of v): skewed, as the
   generator's are at each level, so that the tests are mostly predicted and the time is the
   work's. */
static int quadrant(uint64_t v) {
  const uint32_t x = (uint32_t)(v & 0xFFFFFF);
  if (x < 15770583u) {
    return 0;
  }
  if (x < 16273900u) {
    return 1;
  }
  if (x < 16609443u) {
    return 2;
  }
  return 3;
}

/* The edge's label, scrambled as the generator scrambles vertex numbers: straight-line work of
   about a hundred cycles, which the model times as one block. */
#define ROUND(h) ((h) ^= (h) >> 29, (h) *= 0xBF58476D1CE4E5B9ull, (h) ^= (h) >> 32)
static uint64_t scramble(uint64_t s, uint64_t d) {
  uint64_t h = s * 0x9E3779B97F4A7C15ull ^ d;
  ROUND(h);
  ROUND(h);
  ROUND(h);
  ROUND(h);
  ROUND(h);
  ROUND(h);
  ROUND(h);
  ROUND(h);
  ROUND(h);
  ROUND(h);
  ROUND(h);
  ROUND(h);
  return h;
}

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  long edges = argc > 1 ? atol(argv[1]) : 4000000;
  const long pool_size = 65536;
  uint64_t *pool = (uint64_t *)malloc((size_t)pool_size * sizeof(uint64_t));
  long e;
  long local = 0;
  long remote = 0;
  long differing = 0;
  long total = 0;
  uint64_t check = 0;
  int rank = 0;
  int size = 1;
  double t0, c0, t1, c1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (e = 0; e < pool_size; ++e) {
    pool[e] = draw();
  }
  t0 = MPI_Wtime();
  c0 = cpu_seconds();
  for (e = 0; e < edges; ++e) {
    const uint64_t v = pool[(e * 40503) & (pool_size - 1)] ^ (uint64_t)(e / pool_size);
    const int q0 = quadrant(v);
    const int q1 = quadrant(v >> 24);
    const int q2 = quadrant(v >> 40);
    const int q3 = quadrant(v ^ (v >> 17));
    const uint64_t s = (uint64_t)((q0 >> 1) | (q1 >> 1) << 1 | (q2 >> 1) << 2 | (q3 >> 1) << 3);
    const uint64_t d = (uint64_t)((q0 & 1) | (q1 & 1) << 1 | (q2 & 1) << 2 | (q3 & 1) << 3);
    if ((int)((v >> 3) % (uint64_t)size) == rank) {
      uint64_t x = s ^ d;
      while (x != 0) {
        x &= x - 1;
        ++differing;
      }
      check += scramble(s, d);
      ++local;
    } else {
      ++remote;
    }
    if ((e & 4095) == 4095) {
      MPI_Allreduce(&differing, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    }
  }
  t1 = MPI_Wtime();
  c1 = cpu_seconds();
  MPI_Allreduce(&differing, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  printf("time %.6f cpu %.6f\n", t1 - t0, c1 - c0);
  free(pool);
  printf("local %ld remote %ld differing bits %ld checksum %llu\n", local, remote, total,
         (unsigned long long)check);
  MPI_Finalize();
  return 0;
}
