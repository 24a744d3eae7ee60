/* A conjugate-gradient-like solver that calls its matrix-vector product and its preconditioner
   through a table of callbacks typed with void * (hypre's Krylov solvers: hypre_PCGFunctions).
   The program fills the table with functions of typed pointers through casts, as LLNL/AMG does
   with `HYPRE_PCGSetPrecond(solver, (HYPRE_PtrToSolverFcn) HYPRE_BoomerAMGSolve, ...)`. An
   identity preconditioner of exactly the table's type is there too, as in hypre.
   Usage: krylov N ITERATIONS SWEEPS. Prints its own time between MPI_Init and MPI_Finalize. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  int n;
  double *diag;
} Matrix;

typedef struct {
  int n;
  double *v;
} Vector;

typedef struct {
  int sweeps;
  double weight;
} Smoother;

typedef int (*SolverFcn)(void *, void *, void *, void *);
typedef int (*MatvecFcn)(void *, void *, void *);

typedef struct {
  MatvecFcn matvec;
  SolverFcn precond;
} Functions;

static int matvec(Matrix *a, Vector *x, Vector *y) {
  int i;
  for (i = 1; i < a->n - 1; ++i) {
    y->v[i] = a->diag[i] * x->v[i] - 0.5 * (x->v[i - 1] + x->v[i + 1]);
  }
  return 0;
}

static int smooth(Smoother *s, Matrix *a, Vector *b, Vector *x) {
  int k, i;
  for (k = 0; k < s->sweeps; ++k) {
    for (i = 1; i < a->n - 1; ++i) {
      x->v[i] += s->weight * (b->v[i] - a->diag[i] * x->v[i]) / a->diag[i];
    }
  }
  return 0;
}

static int identity(void *data, void *a, void *b, void *x) {
  Vector *from = (Vector *)b, *to = (Vector *)x;
  int i;
  (void)data;
  (void)a;
  for (i = 0; i < from->n; ++i) to->v[i] = from->v[i];
  return 0;
}

static double dot(const Vector *x, const Vector *y) {
  double local = 0.0, global = 0.0;
  int i;
  for (i = 0; i < x->n; ++i) local += x->v[i] * y->v[i];
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return global;
}

static void solve(const Functions *f, void *pdata, Matrix *a, Vector *r, Vector *z, Vector *p,
                  int iterations) {
  int it;
  double rho = 0.0;
  for (it = 0; it < iterations; ++it) {
    f->matvec(a, p, r);
    f->precond(pdata, a, r, z);
    rho += dot(r, z);
  }
  if (rho < 0.0) printf("negative rho\n");
}

static Vector make(int n) {
  Vector v;
  int i;
  v.n = n;
  v.v = (double *)malloc((size_t)n * sizeof(double));
  for (i = 0; i < n; ++i) v.v[i] = 1.0 / (1.0 + i);
  return v;
}

int main(int argc, char **argv) {
  int rank, size, n, iterations, i;
  double wall;
  Matrix a;
  Vector r, z, p;
  Smoother s;
  Functions f;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  n = (argc > 1 ? atoi(argv[1]) : 100000) / size;
  iterations = argc > 2 ? atoi(argv[2]) : 20;
  s.sweeps = argc > 3 ? atoi(argv[3]) : 4;
  s.weight = 0.6;
  a.n = n;
  a.diag = (double *)malloc((size_t)n * sizeof(double));
  for (i = 0; i < n; ++i) a.diag[i] = 2.0 + (double)(i % 7);
  r = make(n);
  z = make(n);
  p = make(n);
  f.matvec = (MatvecFcn)matvec;
  f.precond = s.sweeps > 0 ? (SolverFcn)smooth : identity;
  wall = MPI_Wtime();
  solve(&f, &s, &a, &r, &z, &p, iterations);
  wall = MPI_Wtime() - wall;
  if (rank == 0) printf("n %d iterations %d wall %.6f\n", n * size, iterations, wall);
  free(a.diag);
  free(r.v);
  free(z.v);
  free(p.v);
  MPI_Finalize();
  return 0;
}
