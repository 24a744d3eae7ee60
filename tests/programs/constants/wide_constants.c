/* Constants beyond the model's 64-bit signed integers (XSBench's random-number generator).
 *
 * An LCG modulo 2^63 is an unsigned long long the model cannot hold: writing it as -2^63 made
 * the whole model unreadable ("number 9223372036854775808 is out of range"). The fast-forward
 * loop that reads it is measured instead; INT64_MIN, which is an integer of the model, still
 * counts a loop. Usage: wide_constants LOOKUPS */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static const uint64_t MODULUS = 9223372036854775808ULL; /* 2^63 */
static const int64_t SMALLEST = INT64_MIN;

/* XSBench's fast_forward_LCG: the seed after n draws, in O(log n). */
static uint64_t fast_forward(uint64_t seed, uint64_t n) {
  const uint64_t m = 9223372036854775808ULL; /* 2^63 */
  uint64_t a = 2806196910506780709ULL;
  uint64_t c = 1ULL;
  uint64_t a_new = 1;
  uint64_t c_new = 0;
  n = n % m;
  while (n > 0) {
    if (n & 1) {
      a_new *= a;
      c_new = c_new * a + c;
    }
    c *= (a + 1);
    a *= a;
    n >>= 1;
  }
  return (a_new * seed + c_new) % m;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int lookups = argc > 1 ? atoi(argv[1]) : 1000;
  double sum = 0.0;
  for (int i = 0; i < lookups; i++) {
    const uint64_t s = fast_forward(42, (uint64_t)i * 5);
    sum += (double)s / (double)MODULUS;
  }
  for (uint64_t r = MODULUS - 3; r < MODULUS; r++) {
    sum += (double)(r & 1);
  }
  for (int64_t k = SMALLEST; k < SMALLEST + lookups; k++) {
    sum += 1e-9;
  }
  printf("%.6f\n", sum);
  MPI_Finalize();
  return 0;
}
