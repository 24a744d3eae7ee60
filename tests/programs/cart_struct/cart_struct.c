/* cart_struct: a 3-D decomposition whose neighbours live in a struct, as SimpleMOC keeps them
 * (ANL-CESAR/SimpleMOC init.c, comms.c, written anew): MPI_Cart_create with a dimension count
 * held in a variable, MPI_Cart_shift into locals copied into the fields of a struct returned by
 * value, a table of the six neighbours built from those fields, a derived datatype of
 * `groups` floats stored in the struct, and a track count computed from the angles unless an
 * optional tracking file gives it (SimpleMOC's load_OpenMOC_tracks, a path these runs never
 * take: its data made the count data everywhere).
 * Arguments: angles steps [file]. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int angles;
  long ntracks;
  int groups;
  int steps;
  int load;
  const char *file;
} Input;

typedef struct {
  MPI_Comm cart;
  int x_pos_src, x_pos_dest, x_neg_src, x_neg_dest;
  int y_pos_src, y_pos_dest, y_neg_src, y_neg_dest;
  int z_pos_src, z_pos_dest, z_neg_src, z_neg_dest;
  MPI_Datatype flux;
} Grid;

static Input defaults(void) {
  Input in;
  in.angles = 4;
  in.ntracks = 0;
  in.groups = 16;
  in.steps = 10;
  in.load = 0;
  in.file = NULL;
  return in;
}

static void read_cli(int argc, char **argv, Input *in) {
  if (argc > 1) {
    in->angles = atoi(argv[1]);
  }
  if (argc > 2) {
    in->steps = atoi(argv[2]);
  }
  if (argc > 3) {
    in->file = argv[3];
    in->load = 1;
  }
}

static void derive(Input *in) { in->ntracks = (long)in->angles * 500; }

/* The track counts an external tracking file holds, per angle (data): only with a third
 * argument. */
static void load_tracks(Input *in) {
  FILE *fp = fopen(in->file, "rb");
  if (fp == NULL) {
    return;
  }
  int angles = 0;
  if (fread(&angles, sizeof angles, 1, fp) == 1 && angles > 0) {
    int *counts = malloc((size_t)angles * sizeof *counts);
    if (fread(counts, sizeof *counts, (size_t)angles, fp) == (size_t)angles) {
      in->ntracks = 0;
      for (int i = 0; i < angles; i++) {
        in->ntracks += counts[i];
      }
    }
    free(counts);
  }
  fclose(fp);
}

static Grid make_grid(Input in) {
  Grid grid;
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int ndims = 3;
  int dims[3] = {0, 0, 0};
  int period[3] = {0, 0, 0};
  MPI_Dims_create(size, ndims, dims);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, period, 0, &cart);
  int x_pos_src, x_pos_dest, x_neg_src, x_neg_dest;
  MPI_Cart_shift(cart, 0, 1, &x_pos_src, &x_pos_dest);
  MPI_Cart_shift(cart, 0, -1, &x_neg_src, &x_neg_dest);
  int y_pos_src, y_pos_dest, y_neg_src, y_neg_dest;
  MPI_Cart_shift(cart, 1, 1, &y_pos_src, &y_pos_dest);
  MPI_Cart_shift(cart, 1, -1, &y_neg_src, &y_neg_dest);
  int z_pos_src, z_pos_dest, z_neg_src, z_neg_dest;
  MPI_Cart_shift(cart, 2, 1, &z_pos_src, &z_pos_dest);
  MPI_Cart_shift(cart, 2, -1, &z_neg_src, &z_neg_dest);
  grid.cart = cart;
  grid.x_pos_src = x_pos_src;
  grid.x_pos_dest = x_pos_dest;
  grid.x_neg_src = x_neg_src;
  grid.x_neg_dest = x_neg_dest;
  grid.y_pos_src = y_pos_src;
  grid.y_pos_dest = y_pos_dest;
  grid.y_neg_src = y_neg_src;
  grid.y_neg_dest = y_neg_dest;
  grid.z_pos_src = z_pos_src;
  grid.z_pos_dest = z_pos_dest;
  grid.z_neg_src = z_neg_src;
  grid.z_neg_dest = z_neg_dest;
  MPI_Datatype flux;
  MPI_Type_contiguous(in.groups, MPI_FLOAT, &flux);
  MPI_Type_commit(&flux);
  grid.flux = flux;
  return grid;
}

static double sweep(Input in, float *psi) {
  double s = 0;
  for (long t = 0; t < in.ntracks; t++) {
    for (int g = 0; g < in.groups; g++) {
      for (int k = 0; k < 64; k++) {
        psi[t * in.groups + g] = psi[t * in.groups + g] * 0.999f + 0.001f * (float)k;
      }
      s += psi[t * in.groups + g];
    }
  }
  return s;
}

static void exchange(Input in, Grid grid, float *psi, float *halo) {
  int send_dest[6] = {grid.x_pos_dest, grid.x_neg_dest, grid.y_pos_dest,
                      grid.y_neg_dest, grid.z_pos_dest, grid.z_neg_dest};
  int rec_sources[6] = {grid.x_pos_src, grid.x_neg_src, grid.y_pos_src,
                        grid.y_neg_src, grid.z_pos_src, grid.z_neg_src};
  long per_face = in.ntracks / 6;
  MPI_Request request[12];
  int sent[6] = {0};
  int received[6] = {0};
  for (int j = 0; j < 6; j++) {
    if (send_dest[j] != MPI_PROC_NULL) {
      MPI_Isend(&psi[j * per_face * in.groups], (int)per_face, grid.flux, send_dest[j], j,
                grid.cart, &request[j]);
      sent[j] = 1;
    }
  }
  for (int j = 0; j < 6; j++) {
    if (rec_sources[j] != MPI_PROC_NULL) {
      MPI_Irecv(&halo[j * per_face * in.groups], (int)per_face, grid.flux, rec_sources[j], j,
                grid.cart, &request[6 + j]);
      received[j] = 1;
    }
  }
  for (int j = 0; j < 6; j++) {
    if (sent[j] == 1) {
      MPI_Wait(&request[j], MPI_STATUS_IGNORE);
    }
    if (received[j] == 1) {
      MPI_Wait(&request[6 + j], MPI_STATUS_IGNORE);
    }
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Input in = defaults();
  read_cli(argc, argv, &in);
  derive(&in);
  if (in.load) {
    load_tracks(&in);
  }
  Grid grid = make_grid(in);
  float *psi = calloc((size_t)in.ntracks * in.groups, sizeof(float));
  float *halo = calloc((size_t)in.ntracks * in.groups, sizeof(float));
  double s = 0;
  MPI_Barrier(grid.cart);
  const double t0 = MPI_Wtime();
  for (int step = 0; step < in.steps; step++) {
    s += sweep(in, psi);
    exchange(in, grid, psi, halo);
    MPI_Barrier(grid.cart);
  }
  const double t1 = MPI_Wtime();
  if (rank == 0) {
    printf("cart_struct: %ld tracks, %d steps: %g time %.6f\n", in.ntracks, in.steps, s, t1 - t0);
  }
  MPI_Type_free(&grid.flux);
  free(psi);
  free(halo);
  MPI_Finalize();
  return 0;
}
