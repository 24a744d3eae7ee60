// Fields of local objects (record_copies.hpp, shared_fields.hpp). minisweep's
// StepScheduler_must_do_recv compares the StepInfo of the sending step with the receiving step's,
// each returned by value. A local object whose every use the model follows is one variable per
// field, so both objects keep their own values and the guard is computed per rank. Objects the
// model does not follow (their address taken) share one variable per field; named through two
// objects of one function, the field is data, with the objects named.
#include <gtest/gtest.h>

#include "support.hpp"

namespace parjava::frontend::testing {
namespace {

constexpr const char *kSteps = R"(
#include <mpi.h>
typedef struct { int active; int block; } StepInfo;
typedef struct { int lo; int hi; } Range;
static StepInfo stepinfo(int step, int proc, int nproc) {
  StepInfo s;
  s.block = step - proc;
  s.active = s.block >= 0 && s.block < 4 && proc >= 0 && proc < nproc;
  return s;
}
static int must_recv(int step, int rank, int size) {
  const StepInfo source = stepinfo(step, rank - 1, size);
  const StepInfo target = stepinfo(step + 1, rank, size);
  return source.active && target.active && source.block == target.block;
}
static Range range(int n) {
  Range r;
  r.lo = 0;
  r.hi = n;
  return r;
}
int main(int argc, char **argv) {
  int rank, size, step;
  double edge = 0.0, s = 0.0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const Range r = range(1000);
  for (step = 0; step < 8; ++step) {
    if (must_recv(step, rank, size))
      MPI_Recv(&edge, 1, MPI_DOUBLE, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = r.lo; i < r.hi; ++i) s += i * edge;
  }
  MPI_Finalize();
  return s > 0.0;
}
)";

TEST(LocalObjects, TwoFollowedObjectsOfOneFunctionKeepTheirOwnFields) {
  const BuildResult r = build(write_source("steps.c", kSteps));
  // The receive's guard reads both objects' fields, each copied from stepinfo()'s return fields.
  const model::Node *guard = labelled(r.model, "if must_recv");
  ASSERT_NE(guard, nullptr);
  EXPECT_EQ(guard->opaque.kind, model::Opaque::Kind::None);
  EXPECT_FALSE(guard->cond.empty());
  for (const auto &d : r.diagnostics) {
    EXPECT_EQ(d.message.find("local objects of"), std::string::npos) << d.message;
  }
  // One Range in main: its fields bound the loop, computed.
  const model::Node *loop = labelled(r.model, "for i < r.hi");
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->opaque.kind, model::Opaque::Kind::None);
  EXPECT_FALSE(loop->cond.empty());
}

constexpr const char *kCleared = R"(
#include <mpi.h>
#include <string.h>
typedef struct { int active; int block; } StepInfo;
static int must_recv(int step, int rank, int size) {
  StepInfo source, target;
  memset(&source, 0, sizeof source);
  memset(&target, 0, sizeof target);
  source.block = step - rank + 1;
  source.active = source.block >= 0 && source.block < 4 && rank >= 1;
  target.block = step + 1 - rank;
  target.active = target.block >= 0 && target.block < 4 && rank < size;
  return source.active && target.active && source.block == target.block;
}
int main(int argc, char **argv) {
  int rank, size, step;
  double edge = 0.0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (step = 0; step < 8; ++step) {
    if (must_recv(step, rank, size))
      MPI_Recv(&edge, 1, MPI_DOUBLE, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return edge > 0.0;
}
)";

TEST(LocalObjects, AFieldOfTwoObjectsWhoseAddressIsTakenIsDataAndSaysWhy) {
  // memset(&source, ...): the objects are not followed, their fields are the shared variables.
  const BuildResult r = build(write_source("cleared.c", kCleared));
  const model::Node *guard = labelled(r.model, "if must_recv");
  ASSERT_NE(guard, nullptr);
  EXPECT_EQ(guard->opaque.kind, model::Opaque::Kind::Probability) << guard->cond.text();
  bool named = false;
  for (const auto &d : r.diagnostics) {
    named = named || d.message.find("'StepInfo::active' is a field of 2 local objects of "
                                    "must_recv() ('source', 'target')") != std::string::npos;
  }
  EXPECT_TRUE(named) << ::testing::PrintToString(r.diagnostics.size());
}

constexpr const char *kParameters = R"(
#include <mpi.h>
typedef struct { int n; int m; } Dims;
static void send_i(const int *data, int peer) {
  MPI_Send((void *)data, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
}
static double fill(Dims d, const double *v) {
  double s = 0.0;
  for (int i = 0; i < d.n; ++i) s += v[i % 4];
  return s;
}
int main(int argc, char **argv) {
  int rank, size;
  double v[4] = {0.0, 1.0, 2.0, 3.0}, s = 0.0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Dims global, local;
  global.n = 1000;
  global.m = 3;
  local = global;
  local.n = global.n / size;
  if (rank > 0) send_i(&local.n, 0);
  for (int p = 1; rank == 0 && p < size; ++p)
    MPI_Recv(v, 1, MPI_INT, p, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  s += fill(local, v) + fill(global, v);
  MPI_Finalize();
  return s > 0.0;
}
)";

TEST(LocalObjects, ByValueParametersTakeEachCallsObjectAndConstPointersAreRead) {
  // `send_i(&local.n, 0)` reads through a const pointer: Dims::n is not written there, and
  // fill()'s parameter takes each call's object through its cells.
  const BuildResult r = build(write_source("parameters.c", kParameters));
  const model::Node *loop = labelled(r.model, "for i < d.n");
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->opaque.kind, model::Opaque::Kind::None);
  EXPECT_FALSE(loop->cond.empty());
  for (const auto &d : r.diagnostics) {
    EXPECT_EQ(d.message.find("written through a pointer"), std::string::npos) << d.message;
  }
}

constexpr const char *kRecursive = R"(
#include <mpi.h>
typedef struct { int n; int depth; } Split;
static Split split(int n, int d) {
  Split s;
  if (n < 4) {
    s.n = n;
    s.depth = d;
    return s;
  }
  return split(n / 2 + n % 3, d + 1);
}
int main(int argc, char **argv) {
  int rank, size;
  double x = 0.0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const Split s = split(1000 * size + argc, 0);
  for (int i = 0; i < s.n; ++i) {
    MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return x > 0.0;
}
)";

TEST(LocalObjects, AStructFromARecursionMeasuredInPlaceIsData) {
  // split() is recursive and measured in place: its returns never run in the model, so what it
  // returns is measured, not the fields' unset values.
  const BuildResult r = build(write_source("recursive.c", kRecursive));
  const model::Node *loop = labelled(r.model, "for i < s.n");
  ASSERT_NE(loop, nullptr);
  EXPECT_NE(loop->opaque.kind, model::Opaque::Kind::None) << loop->cond.text();
  bool said = false;
  for (const auto &d : r.diagnostics) {
    said = said || d.message.find("'s.n' is returned in a Split by split(), which the model "
                                  "measures in place") != std::string::npos;
  }
  EXPECT_TRUE(said);
}

} // namespace
} // namespace parjava::frontend::testing
