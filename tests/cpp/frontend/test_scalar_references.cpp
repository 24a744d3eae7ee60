// Scalars passed by reference (aliases.hpp): a parameter `int &left` names the variable every
// call passes, or, for a caller's local, a cell of the callee that each call copies the
// caller's variable into and back out of; a `const int &` is copied in only. Before, the
// callee's writes through a reference made the caller's variable data: every peer computed by
// a helper like CloverLeaf's was rank 0 / ANY_SOURCE.
#include <gtest/gtest.h>

#include "parjava/model/model_json.hpp"
#include "support.hpp"

namespace parjava::frontend::testing {
namespace {

constexpr const char *kNeighbours = R"(
#include <mpi.h>
#include <stdlib.h>
int halo_width;
static void neighbours(int rank, int size, int &left, int &right) {
  left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  right = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
}
static void set_width(int &width) { width = 2; }
static void pass_on(int rank, int size, int &l, int &r) { neighbours(rank, size, l, r); }
static void sweep(double *u, const int &n) {
  for (int i = 0; i < n; ++i) u[i] *= 0.5;
}
static void from_data(int &peer, const double *u) { peer = (int)u[0]; }
int main(int argc, char **argv) {
  int rank, size, left, right, l2, r2, odd;
  double u[64], b[8];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int k = 0; k < 64; ++k) u[k] = rand() % size;
  neighbours(rank, size, left, right);
  pass_on(rank, size, l2, r2);
  set_width(halo_width);
  const int n = 16 * halo_width;
  sweep(u, n);
  from_data(odd, u);
  MPI_Sendrecv(u, 8, MPI_DOUBLE, right, 0, b, 8, MPI_DOUBLE, left, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(u, halo_width, MPI_DOUBLE, r2, 1, b, 8, MPI_DOUBLE, l2, 1, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  MPI_Send(u, 8, MPI_DOUBLE, odd, 2, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
)";

TEST(ScalarReferences, CallersVariablesAreWrittenThroughTheirCells) {
  const BuildResult r = build(write_source("neighbours.cpp", kNeighbours), {"-std=c++17"});
  const auto exchanges = operations(r.model, model::Operation::Sendrecv);
  ASSERT_EQ(exchanges.size(), 2U);
  // main's locals, copied back from neighbours()'s cells; through pass_on()'s own references.
  EXPECT_EQ(arg(*exchanges[0], "dest"), "right");
  EXPECT_EQ(arg(*exchanges[0], "source"), "left");
  EXPECT_EQ(arg(*exchanges[1], "dest"), "r2");
  EXPECT_EQ(arg(*exchanges[1], "source"), "l2");
  // A global passed by reference is written by the callee itself.
  EXPECT_EQ(arg(*exchanges[1], "sendbytes"), "halo_width * 8");
  const std::string json = model::model_to_json(r.model, -1);
  EXPECT_NE(json.find(R"x(["right","neighbours_right")x"), std::string::npos) << json;
  // The loop bounded by a const reference is counted, not timed as a constant.
  const model::Node *loop = labelled(r.model, "for i < n");
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->cond.text(), "(i < sweep_n)");
  // What a helper computes from data stays data, with its reason (the send's peer is an
  // error naming where the value came from, not a silent rank).
  std::vector<std::string> errors;
  for (const auto &d : r.diagnostics) {
    if (d.severity == Severity::Error || d.severity == Severity::Warning) {
      errors.push_back(d.message);
    }
  }
  const auto sends = operations(r.model, model::Operation::Send);
  ASSERT_EQ(sends.size(), 1U);
  EXPECT_EQ(arg(*sends[0], "dest"), "0");
  ASSERT_EQ(errors.size(), 1U) << ::testing::PrintToString(errors);
  EXPECT_NE(errors[0].find("argument 'dest' of MPI_Send depends on the value rand() returns"),
            std::string::npos)
      << errors[0];
}

} // namespace
} // namespace parjava::frontend::testing
