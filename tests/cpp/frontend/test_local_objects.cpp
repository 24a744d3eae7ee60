// Fields of two local objects of one function (shared_fields.hpp). A field is one model variable
// for every object of its type: minisweep's StepScheduler_must_do_recv compares the StepInfo of
// the sending step with the receiving step's, each returned by value, and with one variable per
// field both were the last call's, every comparison true: the model posted receives the program
// never does and deadlocked at np 1. Such a field is data, with the objects named; a function
// with one object of the type keeps its fields as control variables.
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

TEST(LocalObjects, AFieldOfTwoLiveObjectsOfOneFunctionIsDataAndSaysWhy) {
  const BuildResult r = build(write_source("steps.c", kSteps));
  // The receive's guard reads both objects' fields: measured, not computed as always true.
  const model::Node *guard = labelled(r.model, "if must_recv");
  ASSERT_NE(guard, nullptr);
  EXPECT_EQ(guard->opaque.kind, model::Opaque::Kind::Probability) << guard->cond.text();
  bool named = false;
  for (const auto &d : r.diagnostics) {
    named = named || d.message.find("'StepInfo::active' is a field of 2 local objects of "
                                    "must_recv() ('source', 'target')") != std::string::npos;
  }
  EXPECT_TRUE(named) << ::testing::PrintToString(r.diagnostics.size());
  // One Range in main: its fields bound the loop, computed.
  const model::Node *loop = labelled(r.model, "for i < r.hi");
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->opaque.kind, model::Opaque::Kind::None);
  EXPECT_FALSE(loop->cond.empty());
}

} // namespace
} // namespace parjava::frontend::testing
