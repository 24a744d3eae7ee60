// The set-up idioms of a benchmark like HPCG, written for parjava's tests (issue 12): main hands
// the addresses of argc and argv to an init function that reads them back through the pointers
// and fills a struct of options; the process count is factored with div(), whose record result
// the model cannot know; a ring exchange and a reduction per step use the rank and size the
// init function stored in the struct; a halo exchange sends to neighbours the program keeps in an
// array it fills at run time (HPCG's A.neighbors), of which np 1 has none.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

struct Params {
  int n;
  int steps;
  int syncs;
  int rank;
  int size;
};

static int init(int *argc_p, char ***argv_p, Params &params) {
  int argc = *argc_p;
  char **argv = *argv_p;
  params.n = argc > 1 ? atoi(argv[1]) : 64;
  params.steps = argc > 2 ? atoi(argv[2]) : 10;
  // An environment variable, as PRK's header reads PRK_ALIGNMENT: no position of argv.
  char *syncs = getenv("SETUP_SYNCS");
  params.syncs = (syncs != NULL) ? atoi(syncs) : 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &params.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &params.size);
  return 0;
}

// The largest prime factor of n, by repeated division (HPCG's ComputePrimeFactors does the
// same with `r = div(n, d)` in a `while (1)` loop).
static int largest_factor(int n) {
  int best = 1;
  for (int d = 2; n > 1; ++d) {
    while (1) {
      div_t r = div(n, d);
      if (r.rem == 0) {
        best = d;
        n = r.quot;
        continue;
      }
      break;
    }
  }
  return best;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  Params params;
  init(&argc, &argv, params);
  const int factor = largest_factor(params.size);
  for (int k = 0; k < params.syncs; ++k) {
    MPI_Barrier(MPI_COMM_WORLD);
  }
  const int n = params.n;
  double *a = static_cast<double *>(malloc(sizeof(double) * n * n));
  for (int i = 0; i < n * n; ++i) {
    a[i] = i % 7;
  }
  const int right = (params.rank + 1) % params.size;
  const int left = (params.rank + params.size - 1) % params.size;
  int *neighbors = static_cast<int *>(malloc(2 * sizeof(int)));
  int count = 0;
  for (int k = 0; k < 2; ++k) {
    const int q = k == 0 ? left : right;
    if (q != params.rank) {
      neighbors[count++] = q;
    }
  }
  double halo[2][16];
  MPI_Request requests[4];
  double sum = 0.0;
  for (int s = 0; s < params.steps; ++s) {
    for (int k = 0; k < count; ++k) {
      MPI_Irecv(halo[k], 16, MPI_DOUBLE, neighbors[k], 2, MPI_COMM_WORLD, &requests[k]);
      MPI_Isend(a + k * 16, 16, MPI_DOUBLE, neighbors[k], 2, MPI_COMM_WORLD, &requests[2 + k]);
    }
    for (int k = 0; k < count; ++k) {
      MPI_Wait(&requests[k], MPI_STATUS_IGNORE);
      MPI_Wait(&requests[2 + k], MPI_STATUS_IGNORE);
    }
    for (int i = 1; i < n - 1; ++i) {
      for (int j = 1; j < n - 1; ++j) {
        a[i * n + j] = 0.25 * (a[(i - 1) * n + j] + a[(i + 1) * n + j] + a[i * n + j - 1] +
                               a[i * n + j + 1]);
      }
    }
    MPI_Sendrecv(a, n, MPI_DOUBLE, right, 1, a + (n - 1) * n, n, MPI_DOUBLE, left, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double local = a[n + 1], global = 0.0;
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    sum += global;
  }
  if (params.rank == 0) {
    printf("factor %d sum %g\n", factor, sum);
  }
  free(neighbors);
  free(a);
  MPI_Finalize();
  return 0;
}
