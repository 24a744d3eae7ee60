/* A vector type with constructor and destructor functions, as CoSP2 writes its sparse matrix
 * (initSparseMatrix / destroySparseMatrix): the destructor frees the object's arrays and zeroes
 * its size. It runs for two objects (a work vector every step, the solution at the end), so the
 * size field is written through a parameter for both -- but only with a constant, where the
 * object dies. Every live object's size is the command line's n. Usage: ./teardown N STEPS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  int n;
  double *v;
} Vec;

static Vec *vec_new(int n) {
  Vec *x = malloc(sizeof *x);
  x->n = n;
  x->v = calloc((size_t)n, sizeof(double));
  return x;
}

static void vec_free(Vec *x) {
  free(x->v);
  x->v = NULL;
  x->n = 0;
  free(x);
}

static double dot(const Vec *a, const Vec *b) {
  double s = 0.0;
  for (int i = 0; i < a->n; i++) {
    s += a->v[i] * b->v[i];
  }
  return s;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? atoi(argv[1]) : 1000;
  const int steps = argc > 2 ? atoi(argv[2]) : 10;
  Vec *x = vec_new(n);
  for (int i = 0; i < x->n; i++) {
    x->v[i] = 1.0 / (1.0 + i);
  }
  double total = 0.0;
  for (int s = 0; s < steps; s++) {
    Vec *t = vec_new(x->n);
    for (int i = 0; i < t->n; i++) {
      t->v[i] = 0.5 * x->v[i] + 1.0;
    }
    double local = dot(x, t), global = 0.0;
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    total += global;
    vec_free(t);
  }
  printf("total %g\n", total);
  vec_free(x);
  MPI_Finalize();
  return 0;
}
