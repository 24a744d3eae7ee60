// A 1-D halo exchange whose sizes and step count come from a settings file read by key
// (params.c), with the neighbours and sizes in a mesh record filled through a pointer and the
// requests numbered by `nmessages++` in the calls of small send/receive wrappers, as in
// UoB-HPC/flow (arch/comms.c, arch/omp3/halos.c).
#include "params.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define EDGE -1
#define EAST 0
#define WEST 1

typedef struct {
  int global_nx;
  int local_nx;
  int niters;
  int rank;
  int nranks;
  int neighbours[2];
  double *east_out;
  double *west_out;
  double *east_in;
  double *west_in;
} Mesh;

static MPI_Request requests[4];
static int sent = 0;
static int received = 0;

static void non_block_send(double *buffer, int len, int to, int tag, int req_index) {
  MPI_Isend(buffer, len, MPI_DOUBLE, to, tag, MPI_COMM_WORLD, &requests[req_index]);
  sent += 1;
}

static void non_block_recv(double *buffer, int len, int from, int tag, int req_index) {
  MPI_Irecv(buffer, len, MPI_DOUBLE, from, tag, MPI_COMM_WORLD, &requests[req_index]);
  received += 1;
}

static void wait_on_messages(int nmessages) {
  MPI_Waitall(nmessages, requests, MPI_STATUSES_IGNORE);
}

static void decompose(Mesh *mesh) {
  mesh->local_nx = mesh->global_nx / mesh->nranks;
  mesh->neighbours[EAST] = mesh->rank < mesh->nranks - 1 ? mesh->rank + 1 : EDGE;
  mesh->neighbours[WEST] = mesh->rank > 0 ? mesh->rank - 1 : EDGE;
}

static void exchange(Mesh *mesh, const double *field, int halo) {
  int nmessages = 0;
  const int *neighbours = mesh->neighbours;
  if (neighbours[EAST] != EDGE) {
    for (int i = 0; i < halo; ++i) {
      mesh->east_out[i] = field[mesh->local_nx - halo + i];
    }
    non_block_send(mesh->east_out, halo, neighbours[EAST], 1, nmessages++);
    non_block_recv(mesh->east_in, halo, neighbours[EAST], 2, nmessages++);
  }
  if (neighbours[WEST] != EDGE) {
    for (int i = 0; i < halo; ++i) {
      mesh->west_out[i] = field[i];
    }
    non_block_send(mesh->west_out, halo, neighbours[WEST], 2, nmessages++);
    non_block_recv(mesh->west_in, halo, neighbours[WEST], 1, nmessages++);
  }
  wait_on_messages(nmessages);
}

static double sweep(const Mesh *mesh, double *field, double *next) {
  double sum = 0.0;
  for (int i = 1; i < mesh->local_nx - 1; ++i) {
    next[i] = 0.25 * field[i - 1] + 0.5 * field[i] + 0.25 * field[i + 1];
    sum += next[i];
  }
  for (int i = 1; i < mesh->local_nx - 1; ++i) {
    field[i] = next[i];
  }
  return sum;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s <settings file>\n", argv[0]);
    return EXIT_FAILURE;
  }
  const char *settings = argv[1];
  Mesh mesh;
  mesh.global_nx = get_int_parameter("nx", settings);
  mesh.niters = get_int_parameter("iterations", settings);
  const int halo = get_int_parameter("halo", settings);
  const double scale = get_double_parameter("scale", settings);

  MPI_Init(&argc, &argv);
  const double start = MPI_Wtime();
  MPI_Comm_rank(MPI_COMM_WORLD, &mesh.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mesh.nranks);
  decompose(&mesh);

  double *field = malloc(sizeof(double) * (size_t)mesh.local_nx);
  double *next = malloc(sizeof(double) * (size_t)mesh.local_nx);
  mesh.east_out = malloc(sizeof(double) * (size_t)halo);
  mesh.west_out = malloc(sizeof(double) * (size_t)halo);
  mesh.east_in = malloc(sizeof(double) * (size_t)halo);
  mesh.west_in = malloc(sizeof(double) * (size_t)halo);
  for (int i = 0; i < mesh.local_nx; ++i) {
    field[i] = scale * (double)(mesh.rank * mesh.local_nx + i);
  }

  double total = 0.0;
  for (int tt = 0; tt < mesh.niters; ++tt) {
    exchange(&mesh, field, halo);
    const double local = sweep(&mesh, field, next);
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  printf("rank %d sent %d received %d\n", mesh.rank, sent, received);
  if (mesh.rank == 0) {
    printf("total %g time %f\n", total, MPI_Wtime() - start);
  }
  free(field);
  free(next);
  free(mesh.east_out);
  free(mesh.west_out);
  free(mesh.east_in);
  free(mesh.west_in);
  MPI_Finalize();
  return 0;
}
