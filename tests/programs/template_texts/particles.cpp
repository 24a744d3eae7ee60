// Particles and tallies kept in Vault<T> (storage.hpp) for three element types; each step
// pushes and sums n items per rank, then reduces. Usage: ./particles N STEPS
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

#include "storage.hpp"

struct Particle {
  Particle() : x(0.0), weight(1.0) {}
  double x;
  double weight;
};

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 100000;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 10;
  double total = 0.0;
  for (int s = 0; s < steps; ++s) {
    Vault<Particle> particles(n);
    Vault<double> tallies(n);
    Vault<int> cells(n);
    for (int i = 0; i < n; ++i) {
      Particle p;
      p.x = i * 1e-3 + s;
      particles.push(p);
      tallies.push(p.x * p.weight);
      cells.push(i % 7);
    }
    double local = 0.0;
    for (int i = 0; i < particles.size(); ++i) {
      local += particles[i].x * tallies[i] + cells[i];
    }
    double sum = 0.0;
    MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    total += sum;
  }
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    std::printf("total %g\n", total);
  }
  MPI_Finalize();
  return 0;
}
