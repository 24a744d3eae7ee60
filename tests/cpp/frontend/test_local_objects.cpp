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

} // namespace
} // namespace parjava::frontend::testing
