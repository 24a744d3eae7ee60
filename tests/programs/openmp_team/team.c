/* The OpenMP team a program sizes itself, as XSBench and RSBench do: `-t` goes into a struct
 * read_cli returns, then into omp_set_num_threads, which sizes every later parallel region; one
 * region names its own team with num_threads (`-p`). A model that shares the loops among the
 * prediction's default threads instead ran `-t 2` at the time of one thread (RSBench +77 %,
 * silent). Usage: ./team [-t THREADS (default: the processors)] [-p PAIR_THREADS] [-n POINTS]
 * [-s STEPS] */
#include <math.h>
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int nthreads;
  int pair_threads;
  long points;
  int steps;
} Inputs;

static Inputs read_cli(int argc, char **argv) {
  Inputs in;
  in.nthreads = omp_get_num_procs(); /* XSBench's and RSBench's default */
  in.pair_threads = 1;
  in.points = 2000000;
  in.steps = 10;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-t") == 0 && i + 1 < argc) {
      in.nthreads = atoi(argv[++i]);
    } else if (strcmp(argv[i], "-p") == 0 && i + 1 < argc) {
      in.pair_threads = atoi(argv[++i]);
    } else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
      in.points = atol(argv[++i]);
    } else if (strcmp(argv[i], "-s") == 0 && i + 1 < argc) {
      in.steps = atoi(argv[++i]);
    } else {
      fprintf(stderr, "unknown argument %s\n", argv[i]);
      exit(1);
    }
  }
  return in;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const double start = MPI_Wtime();
  Inputs in = read_cli(argc, argv);
  omp_set_num_threads(in.nthreads);
  double *a = (double *)malloc(in.points * sizeof(double));
  for (long i = 0; i < in.points; i++) {
    a[i] = (double)(i % 97) + 1.0;
  }
  double sum = 0.0;
  int team = 0;
  for (int s = 0; s < in.steps; s++) {
#pragma omp parallel for reduction(+ : sum)
    for (long i = 0; i < in.points; i++) {
      sum += sqrt(a[i]) * log(a[i] + s);
    }
#pragma omp parallel for num_threads(in.pair_threads) reduction(+ : sum)
    for (long i = 0; i < in.points; i++) {
      sum += exp(-a[i] * 1e-3) * sin(a[i] + s);
    }
  }
#pragma omp parallel
  {
#pragma omp single
    team = omp_get_num_threads();
  }
  printf("team %d pair %d sum %.6e time %.6f\n", team, in.pair_threads, sum, MPI_Wtime() - start);
  free(a);
  MPI_Finalize();
  return 0;
}
