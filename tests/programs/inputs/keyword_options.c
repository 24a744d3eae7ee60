/* Words after an option that select a constant (XSBench's read_CLI, io.c): `-m history|event`
 * picks the simulation method, `-G unionized|nuclide|hash` the grid; `-m event` also sets the
 * particles to 0, but only while neither -p nor -l came before it.
 * Usage: keyword_options [-m history|event] [-G unionized|nuclide|hash] [-l LOOKUPS] [-p N] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HISTORY_BASED 1
#define EVENT_BASED 2
#define UNIONIZED 0
#define NUCLIDE 1
#define HASH 2

typedef struct {
  int simulation_method;
  int grid_type;
  long lookups;
  long particles;
} Inputs;

static Inputs read_cli(int argc, char **argv) {
  Inputs input;
  input.simulation_method = HISTORY_BASED;
  input.grid_type = UNIONIZED;
  input.lookups = 34;
  input.particles = 500;
  int default_lookups = 1;
  int default_particles = 1;
  for (int i = 1; i < argc; i++) {
    char *arg = argv[i];
    if (strcmp(arg, "-m") == 0) {
      char *sim_type = "";
      if (++i < argc)
        sim_type = argv[i];
      if (strcmp(sim_type, "history") == 0)
        input.simulation_method = HISTORY_BASED;
      else if (strcmp(sim_type, "event") == 0) {
        input.simulation_method = EVENT_BASED;
        if (default_lookups && default_particles) {
          input.lookups = input.lookups * input.particles;
          input.particles = 0;
        }
      }
    } else if (strcmp(arg, "-G") == 0) {
      char *grid_type = "";
      if (++i < argc)
        grid_type = argv[i];
      if (strcmp(grid_type, "unionized") == 0)
        input.grid_type = UNIONIZED;
      else if (strcmp(grid_type, "nuclide") == 0)
        input.grid_type = NUCLIDE;
      else if (strcmp(grid_type, "hash") == 0)
        input.grid_type = HASH;
    } else if (strcmp(arg, "-l") == 0) {
      if (++i < argc) {
        input.lookups = atol(argv[i]);
        default_lookups = 0;
      }
    } else if (strcmp(arg, "-p") == 0) {
      if (++i < argc) {
        input.particles = atol(argv[i]);
        default_particles = 0;
      }
    }
  }
  return input;
}

static double lookup(long i, int grid) { return (double)((i * 7 + grid) % 13); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  Inputs in = read_cli(argc, argv);
  double sum = 0.0;
  long work = 0;
  if (in.simulation_method == EVENT_BASED) {
    for (long i = 0; i < in.lookups; i++) {
      sum += lookup(i, in.grid_type);
      work++;
    }
  } else {
    for (long p = 0; p < in.particles; p++) {
      for (long j = 0; j < in.lookups; j++) {
        sum += lookup(p + j, in.grid_type);
        work++;
      }
    }
  }
  for (int g = 0; g < in.grid_type; g++) { /* nuclide 1, hash 2 set-up passes */
    sum += 1.0;
    work++;
  }
  printf("method %d grid %d work %ld sum %.1f\n", in.simulation_method, in.grid_type, work, sum);
  MPI_Finalize();
  return 0;
}
