// A time-step loop calling a virtual method through a base-class pointer whose object the
// program creates from its input (miniMD's `force->compute(atom, neighbor, comm, me)`).
//   ./md ATOMS STEPS [STYLE]   (STYLE 0: pair forces, the default; 1: an external field)
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "force.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me = 0, nprocs = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  const int atoms = argc > 1 ? std::atoi(argv[1]) : 20000;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 10;
  const int style = argc > 3 ? std::atoi(argv[3]) : 0;
  const int n = atoms / nprocs;
  std::vector<double> x(n), v(n, 0.0), f(n, 0.0);
  for (int i = 0; i < n; i++) {
    x[i] = 0.001 * ((i * 7919) % 1000);
  }
  Force *force = make_force(style);
  for (int step = 0; step < steps; step++) {
    force->compute(f.data(), x.data(), n);
    for (int i = 0; i < n; i++) {
      v[i] += 0.001 * f[i];
      x[i] += 0.001 * v[i];
    }
    double local = x[0], total = 0.0;
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  if (me == 0) {
    std::printf("%d steps, %d evaluations, x0 %.6f\n", steps, force->evaluations, x[0]);
  }
  delete force;
  MPI_Finalize();
  return 0;
}
