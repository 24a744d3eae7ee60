// A solver whose iterations a convergence test ends, as UoB-HPC/hot's CG (omp3/hot.c:34,
// `for (ii = 0; ii < max_inners; ++ii) { ... if (fabs(global_new_r2) < EPS) break; }`), with
// its settings looked up in a file by key, as UoB-HPC/arch's params.c does: a search loop left
// by `return` when the key matches, and an error path where it is missing that the run never
// takes. Jacobi sweeps of a 1-D Poisson problem need more iterations on a finer grid: the model
// keeps the estimation's count, and must say so at another size.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The line of `file` whose first word is `key`, after the key; 0 when no line has it.
static int find_line(const char *key, const char *file, char *line, size_t size) {
  FILE *fp = fopen(file, "r");
  if (fp == NULL) {
    fprintf(stderr, "cannot open %s\n", file);
    exit(EXIT_FAILURE);
  }
  char word[64];
  while (fgets(line, (int)size, fp) != NULL) {
    if (sscanf(line, "%63s", word) == 1 && strcmp(word, key) == 0) {
      memmove(line, line + strlen(word), strlen(line + strlen(word)) + 1);
      fclose(fp);
      return 1;
    }
  }
  fclose(fp);
  return 0;
}

static int int_setting(const char *key, const char *file) {
  char line[256];
  if (!find_line(key, file, line, sizeof(line))) {
    fprintf(stderr, "no setting %s in %s\n", key, file);
    exit(EXIT_FAILURE);
  }
  int value = 0;
  sscanf(line, "%d", &value);
  return value;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s settings-file\n", argv[0]);
    return EXIT_FAILURE;
  }
  const int cells = int_setting("cells", argv[1]);
  const int steps = int_setting("steps", argv[1]);
  const int max_sweeps = int_setting("max_sweeps", argv[1]);
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int local = cells / size;
  double *u = calloc((size_t)local + 2, sizeof(double));
  double *next = calloc((size_t)local + 2, sizeof(double));
  const double start = MPI_Wtime();
  long total = 0;
  for (int s = 0; s < steps; ++s) {
    for (int i = 0; i <= local + 1; ++i) {
      u[i] = 0.0;
    }
    double first = 0.0;
    int sweep = 0;
    for (sweep = 0; sweep < max_sweeps; ++sweep) {
      const int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
      const int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
      MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 0, &u[local + 1], 1, MPI_DOUBLE, right, 0,
                   MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Sendrecv(&u[local], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1,
                   MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      double change = 0.0;
      for (int i = 1; i <= local; ++i) {
        next[i] = 0.5 * (u[i - 1] + u[i + 1] + 1.0 / ((double)cells * cells));
        change += (next[i] - u[i]) * (next[i] - u[i]);
      }
      for (int i = 1; i <= local; ++i) {
        u[i] = next[i];
      }
      double global = 0.0;
      MPI_Allreduce(&change, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      if (sweep == 0) {
        first = global;
      }
      if (global < 1e-6 * first) {
        break;
      }
    }
    total += sweep + 1;
  }
  if (rank == 0) {
    printf("sweeps %ld time %f\n", total, MPI_Wtime() - start);
  }
  free(u);
  free(next);
  MPI_Finalize();
  return 0;
}
