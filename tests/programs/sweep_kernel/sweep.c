/* A discrete-ordinates sweep in small, written the way ORNL minisweep writes its kernel (issue
   12 item 4: the estimation code runs at most 1.3x the program). Each cell's work is loops whose
   trip counts come from the compile line (NTHREAD_A and NTHREAD_M from -DNM_VALUE), with
   locals declared in those loops and tested there; the cells are visited in the direction of
   each octant, and the faces go to the next rank of a ring after every octant.

   usage: sweep NCELL NA ITERATIONS (mpicc -O2 -DNM_VALUE=4) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef NM_VALUE
#define NM_VALUE 4
#endif

enum { NM = NM_VALUE, NU = 2 };
enum { NTHREAD_M = 2 * NM_VALUE, NTHREAD_A = 4 * NM_VALUE };

/* One cell: moments to angles, a local solve, angles back to moments. */
static void sweep_cell(double *restrict vo, const double *restrict vi, const double *a_from_m,
                       const double *m_from_a, double *restrict face, int na, int active) {
  int ia_base;
  for (ia_base = 0; ia_base < na; ia_base += NTHREAD_A) {
    int thread_a;
    for (thread_a = 0; thread_a < NTHREAD_A; ++thread_a) {
      const int ia = ia_base + thread_a;
      if (ia < na && active) {
        double v[NU];
        int im_in_block, iu;
        for (iu = 0; iu < NU; ++iu) {
          v[iu] = face[ia * NU + iu];
        }
        for (im_in_block = 0; im_in_block < NTHREAD_M; ++im_in_block) {
          const int im = im_in_block;
          if (NM % NTHREAD_M == 0 || im < NM) {
            for (iu = 0; iu < NU; ++iu) {
              v[iu] += a_from_m[ia * NTHREAD_M + im] * vi[im * NU + iu];
            }
          }
        }
        for (iu = 0; iu < NU; ++iu) {
          face[ia * NU + iu] = 0.5 * v[iu];
        }
        for (im_in_block = 0; im_in_block < NTHREAD_M; ++im_in_block) {
          const int im = im_in_block;
          if (NM % NTHREAD_M == 0 || im < NM) {
            for (iu = 0; iu < NU; ++iu) {
              vo[im * NU + iu] = 0.5 * vo[im * NU + iu] + m_from_a[im * na + ia] * v[iu];
            }
          }
        }
      }
    }
  }
}

/* One octant over the rank's cells, in that octant's direction. */
static void sweep_octant(int octant, int ncell, int na, double *state, const double *a_from_m,
                         const double *m_from_a, double *face) {
  const int dir_x = (octant & 1) ? -1 : 1;
  const int dir_y = (octant & 2) ? -1 : 1;
  const int ixbeg = dir_x > 0 ? 0 : ncell - 1;
  const int iybeg = dir_y > 0 ? 0 : ncell - 1;
  const int ixend = dir_x > 0 ? ncell - 1 : 0;
  const int iyend = dir_y > 0 ? ncell - 1 : 0;
  int ix, iy, iz;
  for (iz = 0; iz < ncell; ++iz) {
    for (iy = iybeg; iy != iyend + dir_y; iy += dir_y) {
      for (ix = ixbeg; ix != ixend + dir_x; ix += dir_x) {
        const int active = (ix + iy + iz) % 7 != 6;
        double *cell = state + (((size_t)iz * ncell + iy) * ncell + ix) * NM * NU;
        sweep_cell(cell, cell, a_from_m, m_from_a, face + (size_t)iz * na * NU, na, active);
      }
    }
  }
}

int main(int argc, char **argv) {
  int rank, size, ncell, na, iterations, it, octant;
  size_t cells, i;
  double *state, *a_from_m, *m_from_a, *face, t0, sum = 0.0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ncell = argc > 1 ? atoi(argv[1]) : 12;
  na = argc > 2 ? atoi(argv[2]) : 32;
  iterations = argc > 3 ? atoi(argv[3]) : 2;
  cells = (size_t)ncell * ncell * ncell;
  state = malloc(cells * NM * NU * sizeof(double));
  a_from_m = malloc((size_t)na * NTHREAD_M * sizeof(double));
  m_from_a = malloc((size_t)na * NTHREAD_M * sizeof(double));
  face = malloc((size_t)ncell * na * NU * sizeof(double));
  for (i = 0; i < cells * NM * NU; ++i) {
    state[i] = 1.0 / (double)(i % 13 + 1);
  }
  for (i = 0; i < (size_t)na * NTHREAD_M; ++i) {
    a_from_m[i] = 1.0 / (double)(i % 5 + 20);
    m_from_a[i] = 1.0 / (double)(i % 3 + 30);
  }
  for (i = 0; i < (size_t)ncell * na * NU; ++i) {
    face[i] = 0.0;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  for (it = 0; it < iterations; ++it) {
    for (octant = 0; octant < 4; ++octant) {
      sweep_octant(octant, ncell, na, state, a_from_m, m_from_a, face);
      if (size > 1) {
        MPI_Sendrecv_replace(face, ncell * na * NU, MPI_DOUBLE, (rank + 1) % size, octant,
                             (rank + size - 1) % size, octant, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
    }
  }
  for (i = 0; i < cells * NM * NU; ++i) {
    sum += state[i];
  }
  if (rank == 0) {
    printf("sum %.6e time %.6f\n", sum, MPI_Wtime() - t0);
  }
  free(face);
  free(m_from_a);
  free(a_from_m);
  free(state);
  MPI_Finalize();
  return 0;
}
