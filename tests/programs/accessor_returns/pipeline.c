/* A process grid read through accessor functions that return other accessors' values, the way
   minisweep's env.h does (`Env_proc_x_this(env)` is `return Env_proc_x(env, Env_proc_this(env));`)
   and tested directly in conditions (`if (Env_is_proc_active(&env))`). The value of a call used
   whole by `return` or by a condition was lost: the sweep's peers became ANY_SOURCE and rank 0,
   and the model deadlocked at np 2. Usage: pipeline STEPS CELLS [NPROC_X], NPROC_X at most the ranks (all by default). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  int nproc_x;
  int nproc;
  int proc;
} Env;

static int Env_nproc_x(const Env *env) { return env->nproc_x; }
static int Env_proc_this(const Env *env) { return env->proc; }
static int Env_proc_x(const Env *env, int proc) { return proc % Env_nproc_x(env); }
static int Env_proc_x_this(const Env *env) { return Env_proc_x(env, Env_proc_this(env)); }
static int Env_is_proc_active(const Env *env) { return Env_proc_this(env) < env->nproc_x; }
static int Env_has_upstream(const Env *env) { return Env_proc_x_this(env) > 0; }

static double relax(double *v, int cells) {
  double s = 0.0;
  int i;
  for (i = 1; i < cells; ++i) {
    v[i] = 0.5 * (v[i] + v[i - 1]);
    s += v[i];
  }
  return s;
}

int main(int argc, char **argv) {
  Env env;
  int step, steps, cells, sent = 0;
  double *v, edge = 0.0, sum = 0.0, wall;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &env.proc);
  MPI_Comm_size(MPI_COMM_WORLD, &env.nproc);
  steps = argc > 1 ? atoi(argv[1]) : 20;
  cells = argc > 2 ? atoi(argv[2]) : 100000;
  env.nproc_x = argc > 3 ? atoi(argv[3]) : env.nproc;
  v = (double *)calloc((size_t)cells, sizeof(double));
  wall = MPI_Wtime();
  if (Env_is_proc_active(&env)) {
    for (step = 0; step < steps; ++step) {
      if (Env_has_upstream(&env)) {
        MPI_Recv(&edge, 1, MPI_DOUBLE, Env_proc_x_this(&env) - 1, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
      }
      v[0] = edge + 1.0;
      sum += relax(v, cells);
      if (Env_proc_x_this(&env) + 1 < Env_nproc_x(&env)) {
        MPI_Send(&v[cells - 1], 1, MPI_DOUBLE, Env_proc_x_this(&env) + 1, 0, MPI_COMM_WORLD);
        ++sent;
      }
    }
  }
  wall = MPI_Wtime() - wall;
  printf("rank %d sent %d sum %.3f wall %.6f\n", env.proc, sent, sum, wall);
  free(v);
  MPI_Finalize();
  return 0;
}
