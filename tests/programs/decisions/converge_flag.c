/* A solver loop left through a convergence flag (hypre's PCG, pcg.c:479: `if (i_prod / bi_prod <
 * eps) tentatively_converged = 1; ... if (tentatively_converged) break;`): the test on the
 * residual sets a flag, and a later test of the flag leaves the loop. The residual halves every
 * round and the loop ends in the 14th, after 14 allreduces. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double work(int n, double x) {
  for (int i = 0; i < n; ++i) {
    x = x * 0.999999 + 1e-9;
  }
  return x;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? atoi(argv[1]) : 20000;
  double residual = 1.0, x = 1.0;
  int rounds = 0, converged = 0;
  while (1) {
    x = work(n, x);
    residual *= 0.5;
    MPI_Allreduce(MPI_IN_PLACE, &residual, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    rounds++;
    if (residual < 1e-4) {
      converged = 1;
    }
    if (converged) {
      break;
    }
  }
  printf("%d %g\n", rounds, x);
  MPI_Finalize();
  return 0;
}
