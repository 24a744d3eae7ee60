/* The wall time of an MPI program between MPI_Init and MPI_Finalize, for the real runs of
 * benchmarks/real_apps.py: linked into the program (PMPI interposition), it prints
 * "parjava-span <rank> <seconds>" on standard error at MPI_Finalize. The model's prediction
 * covers the same span (MPI_Init and MPI_Finalize cost nothing in the model). */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double start;

/* A program that returns from main without MPI_Finalize (UoB-HPC/flow): its span ends at a
 * successful exit, as in parjava's own runs (python/parjava/_reference_run.py). */
static void at_exit(int status, void *arg) {
  int initialized = 0, finalized = 0;
  (void)arg;
  if (status != 0 || PMPI_Initialized(&initialized) != MPI_SUCCESS || !initialized ||
      PMPI_Finalized(&finalized) != MPI_SUCCESS || finalized) {
    return;
  }
  MPI_Finalize();
}

int MPI_Init(int *argc, char ***argv) {
  const int rc = PMPI_Init(argc, argv);
  start = PMPI_Wtime();
  on_exit(at_exit, 0);
  return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  start = PMPI_Wtime();
  on_exit(at_exit, 0);
  return rc;
}

int MPI_Finalize(void) {
  const double span = PMPI_Wtime() - start;
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fprintf(stderr, "parjava-span %d %.9f\n", rank, span);
  fflush(stderr);
  return PMPI_Finalize();
}
