// Ranks and sizes in communicators other than world (issue 12, the idioms of miniAMR's RCB and
// the ParRes Kernels): loops and peers follow MPI_Comm_rank / MPI_Comm_size of
//   * a row made by MPI_Comm_split (a ring in the row, one broadcast per row member),
//   * a 1-D periodic grid made by MPI_Cart_create over the odd ranks' split (a shift),
//   * a copy of an element of a communicator array (`MPI_Comm c = halves[k];`),
//   * a function called with the row here and the column there (its MPI_Comm parameter),
//   * MPI_Comm_create of groups from MPI_Comm_group + MPI_Group_incl (a strided list of ranks)
//     and MPI_Group_range_incl (the lower half).
// Every message carries its sender's world rank; at the end each rank prints the world ranks it
// received from ("from <rank>: <sources>"), so a test can compare the model's peers with MPI's.
//
//   subcomm_ranks [n] [steps] [count]: n doubles of work per rank, count doubles per message.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_RANKS 64

static int received[4 * MAX_RANKS];
static int nreceived = 0;

static double work(double *a, int n, int step) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    a[i] = a[i] * 0.999 + (double)((i + step) % 5);
    s += a[i];
  }
  return s;
}

static void note(double *buf) {
  if (nreceived < 4 * MAX_RANKS) {
    received[nreceived++] = (int)buf[0];
  }
}

// Defined after main (its parameter is named before the model builder sees its body).
static void ring(MPI_Comm comm, double *buf, double *out, int count, int me);

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = argc > 1 ? atoi(argv[1]) : 1 << 18;
  int steps = argc > 2 ? atoi(argv[2]) : 4;
  int count = argc > 3 ? atoi(argv[3]) : 1024;
  int px = size % 2 == 0 ? 2 : 1;

  // Rows of px ranks and columns of size / px ranks; ranks in them come from MPI.
  MPI_Comm row, col;
  MPI_Comm_split(MPI_COMM_WORLD, rank / px, size - rank, &row); // reversed order in the row
  MPI_Comm_split(MPI_COMM_WORLD, rank % px, rank, &col);
  int row_rank, row_size;
  MPI_Comm_rank(row, &row_rank);
  MPI_Comm_size(row, &row_size);

  // A periodic 1-D grid over the ranks of my parity.
  MPI_Comm parity, line;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &parity);
  int parity_size;
  MPI_Comm_size(parity, &parity_size);
  int dims[1] = {parity_size};
  int periods[1] = {1};
  MPI_Cart_create(parity, 1, dims, periods, 0, &line);
  int line_rank, line_size;
  MPI_Comm_rank(line, &line_rank);
  MPI_Comm_size(line, &line_size);

  // Halves of world in an array; a copy of my half's element.
  MPI_Comm halves[2];
  MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &halves[0]);
  MPI_Comm_split(MPI_COMM_WORLD, 2 * rank / size, rank, &halves[1]);
  int k = size > 1 ? 1 : 0;
  MPI_Comm half = halves[k];
  int half_rank, half_size;
  MPI_Comm_rank(half, &half_rank);
  MPI_Comm_size(half, &half_size);

  // Groups: ranks of my parity taken in reverse (Group_incl), and the lower half of world
  // (Group_range_incl); MPI_Comm_create makes communicators of them.
  MPI_Group world_group, stride_group, low_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  int members[MAX_RANKS];
  int nmembers = 0;
  for (int r = size - 1; r >= 0 && nmembers < MAX_RANKS; r--) {
    if (r % 2 == rank % 2) {
      members[nmembers] = r;
      nmembers++;
    }
  }
  MPI_Group_incl(world_group, nmembers, members, &stride_group);
  MPI_Comm stride;
  MPI_Comm_create(MPI_COMM_WORLD, stride_group, &stride);
  int stride_rank, stride_size;
  MPI_Comm_rank(stride, &stride_rank);
  MPI_Comm_size(stride, &stride_size);
  int low_end = size / 2 > 0 ? size / 2 - 1 : 0;
  int ranges[1][3] = {{0, low_end, 1}};
  MPI_Group_range_incl(world_group, 1, ranges, &low_group);
  MPI_Comm low;
  MPI_Comm_create(MPI_COMM_WORLD, low_group, &low); // MPI_COMM_NULL on the upper half
  int low_size = 0;
  if (rank <= low_end) {
    MPI_Comm_size(low, &low_size);
  }

  double *a = calloc((size_t)n, sizeof(double));
  double *buf = calloc((size_t)count, sizeof(double));
  double *out = calloc((size_t)count, sizeof(double));
  double check = 0.0;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int s = 0; s < steps; s++) {
    check += work(a, n, s);
    // The row ring, ranks of the row (reversed: my right is world rank - 1).
    buf[0] = rank;
    MPI_Sendrecv(buf, count, MPI_DOUBLE, (row_rank + 1) % row_size, 1, out, count, MPI_DOUBLE,
                 (row_rank + row_size - 1) % row_size, 1, row, MPI_STATUS_IGNORE);
    note(out);
    // One broadcast from every member of the row.
    for (int i = 0; i < row_size; i++) {
      MPI_Bcast(out, count, MPI_DOUBLE, i, row);
    }
    // The shift along the line.
    int up = (line_rank + 1) % line_size;
    int down = (line_rank + line_size - 1) % line_size;
    buf[0] = rank;
    MPI_Sendrecv(buf, count, MPI_DOUBLE, up, 2, out, count, MPI_DOUBLE, down, 2, line,
                 MPI_STATUS_IGNORE);
    note(out);
    // The same function on the row and on the column.
    ring(row, buf, out, count, rank);
    ring(col, buf, out, count, rank);
    // Reductions over my half, as many as its size, and over the group communicators.
    for (int i = 0; i < half_size; i++) {
      MPI_Allreduce(buf, out, count, MPI_DOUBLE, MPI_SUM, half);
    }
    buf[0] = rank;
    if (stride_size > 1) {
      MPI_Sendrecv(buf, count, MPI_DOUBLE, (stride_rank + 1) % stride_size, 4, out, count,
                   MPI_DOUBLE, (stride_rank + stride_size - 1) % stride_size, 4, stride,
                   MPI_STATUS_IGNORE);
      note(out);
    }
    if (rank <= low_end) {
      for (int i = 0; i < low_size; i++) {
        MPI_Allreduce(buf, out, count, MPI_DOUBLE, MPI_SUM, low);
      }
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime() - t0;
  if (rank == 0) {
    printf("time %.6f\n", t);
    printf("check %g ranks %d %d %d %d %d\n", check, row_rank, line_rank, half_rank, stride_rank,
           low_size);
  }
  // Sources per step, as one line per rank (a test compares them with the model's peers).
  int per_step = nreceived / (steps > 0 ? steps : 1);
  char line_text[1024];
  int len = snprintf(line_text, sizeof line_text, "from %d:", rank);
  for (int i = 0; i < per_step && len < (int)sizeof line_text - 8; i++) {
    len += snprintf(line_text + len, sizeof line_text - (size_t)len, " %d", received[i]);
  }
  printf("%s\n", line_text);
  free(a);
  free(buf);
  free(out);
  MPI_Finalize();
  return 0;
}

// A ring in `comm`: to the next rank, from the previous one (ranks of comm).
static void ring(MPI_Comm comm, double *buf, double *out, int count, int me) {
  int r, s;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &s);
  buf[0] = me;
  MPI_Sendrecv(buf, count, MPI_DOUBLE, (r + 1) % s, 3, out, count, MPI_DOUBLE, (r + s - 1) % s, 3,
               comm, MPI_STATUS_IGNORE);
  note(out);
}
