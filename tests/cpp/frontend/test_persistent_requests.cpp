// Persistent requests (structure_persistent.cpp): each MPI_Start / MPI_Startall posts the
// non-blocking operation its request was made for by MPI_Send_init / MPI_Recv_init, with the
// init call's arguments, at the start's line; a start the model cannot pair with an init is an
// error diagnostic, not a model that fails to load.
#include <gtest/gtest.h>

#include "support.hpp"

namespace parjava::frontend::testing {
namespace {

constexpr const char *kHalo = R"(
#include <mpi.h>
int main(int argc, char **argv) {
  int rank, size;
  double in[2], out[2];
  MPI_Request req[4];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  MPI_Recv_init(&in[0], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &req[0]);
  MPI_Recv_init(&in[1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[1]);
  MPI_Send_init(&out[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[2]);
  MPI_Ssend_init(&out[1], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, req + 3);
  for (int step = 0; step < 5; step++) {
    MPI_Startall(2, req);
    MPI_Start(&req[2]);
    MPI_Start(req + 3);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
  }
  MPI_Request_free(&req[0]);
  MPI_Finalize();
  return 0;
}
)";

TEST(PersistentRequests, EachStartPostsTheOperationItsRequestWasMadeFor) {
  const BuildResult r = build(write_source("persistent.c", kHalo));
  const model::Model &m = r.model;
  for (const auto &d : r.diagnostics) {
    EXPECT_NE(d.severity, Severity::Error) << d.message;
  }
  const auto recvs = operations(m, model::Operation::Irecv);
  const auto sends = operations(m, model::Operation::Isend);
  const auto ssends = operations(m, model::Operation::Issend);
  ASSERT_EQ(recvs.size(), 2U);
  ASSERT_EQ(sends.size(), 1U);
  ASSERT_EQ(ssends.size(), 1U);
  // The init call's peer, tag and size; the request's own slot, so the Waitall finds them.
  EXPECT_EQ(arg(*recvs[0], "source"), "left");
  EXPECT_EQ(arg(*recvs[1], "source"), "right");
  EXPECT_EQ(arg(*recvs[1], "tag"), "1");
  EXPECT_EQ(arg(*recvs[1], "index"), "1");
  EXPECT_EQ(arg(*sends[0], "dest"), "left");
  EXPECT_EQ(arg(*sends[0], "bytes"), "8");
  EXPECT_EQ(arg(*ssends[0], "index"), "3");
  // At the start's line, inside the step loop.
  EXPECT_EQ(recvs[0]->source.line, recvs[1]->source.line);
  EXPECT_EQ(sends[0]->source.line, recvs[0]->source.line + 1);
  const auto waits = operations(m, model::Operation::Waitall);
  ASSERT_EQ(waits.size(), 1U);
  EXPECT_EQ(arg(*waits[0], "request"), arg(*sends[0], "request"));
}

TEST(PersistentRequests, AStartWithoutItsInitIsAnErrorNotABrokenModel) {
  const BuildResult r = build(write_source("persistent_elsewhere.c", R"(
#include <mpi.h>
MPI_Request req[2];
static void setup(int peer) {
  MPI_Recv_init(0, 0, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &req[0]);
  MPI_Send_init(0, 0, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &req[1]);
}
int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  setup(rank ^ 1);
  MPI_Startall(2, req);
  MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  MPI_Finalize();
  return 0;
}
)"));
  int said = 0;
  for (const auto &d : r.diagnostics) {
    if (d.severity == Severity::Error &&
        d.message.find("no MPI_*_init call before it in this function") != std::string::npos) {
      ++said;
      EXPECT_EQ(d.line, 13U);
    }
  }
  EXPECT_EQ(said, 2); // one per request of the Startall
  EXPECT_TRUE(operations(r.model, model::Operation::Irecv).empty());
}

} // namespace
} // namespace parjava::frontend::testing
