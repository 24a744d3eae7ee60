/* A status filled by an MPI call the model does not follow (MPI_Testany), whose tag then
   decides control: graph500's active messages count acknowledgements with
   `ack -= status.MPI_TAG`. The model once wrote the field's name without declaring it. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int pending = 3, polls = 0;
  double in = 0, out = 1;
  while (pending > 0) {
    MPI_Request req;
    MPI_Status status;
    int index, flag = 0;
    MPI_Irecv(&in, 1, MPI_DOUBLE, rank, MPI_ANY_TAG, MPI_COMM_WORLD, &req);
    MPI_Send(&out, 1, MPI_DOUBLE, rank, 1, MPI_COMM_WORLD);
    while (!flag) {
      MPI_Testany(1, &req, &index, &flag, &status);
      ++polls;
    }
    pending -= status.MPI_TAG;
  }
  printf("%d polls\n", polls);
  MPI_Finalize();
  return 0;
}
