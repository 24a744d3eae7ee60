/* Checked MPI wrappers in their own file, as Quicksilver's utilsMpi.cc writes them: each wraps
 * one MPI call in an assertion macro and passes its out-argument through a pointer. */
#ifndef WRAPPERS_H
#define WRAPPERS_H
#include <mpi.h>

void checkedRank(MPI_Comm comm, int *rank);
void checkedSize(MPI_Comm comm, int *size);
void checkedBarrier(MPI_Comm comm);
void checkedAllreduce(double *in, double *out, int count, MPI_Comm comm);

#endif
