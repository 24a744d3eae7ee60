// The solver, all of it templates in a header beside main.cpp (header-only C++ as in miniFE):
// its probes must be compiled in, or the model measures nothing.
#pragma once

#include <mpi.h>

#include <vector>

#include <kern/sweep.hpp>

// The type's MPI datatype, the C++ way (miniFE's TypeTraits<T>::mpi_type()).
template <typename T> struct TypeTraits;
template <> struct TypeTraits<double> {
  static MPI_Datatype mpi_type() { return MPI_DOUBLE; }
};

template <typename T> struct Grid {
  std::vector<T> x;
  std::vector<int> interior;
};

// Fills `ids` through a reference: the size of the caller's vector changes here.
inline void collect_ids(int n, int stride, std::vector<int> &ids) {
  ids.clear();
  for (int i = 0; i < n; i += stride) {
    ids.push_back(i);
  }
}

template <typename T> double solve(Grid<T> &g, int n, int steps, int reps) {
  std::vector<int> ids; // default-constructed: size 0 until collect_ids() fills it
  collect_ids(n, 1, ids);
  g.interior = ids;
  const std::vector<int> &inner = g.interior; // a reference names the field's size
  double total = 0;
  for (int s = 0; s < steps; ++s) {
    if (inner.size() > 2) {
      T local = kern::sweep(g.x, inner, reps);
      MPI_Allreduce(&local, &total, 1, TypeTraits<T>::mpi_type(), MPI_SUM, MPI_COMM_WORLD);
    }
  }
  return total;
}
