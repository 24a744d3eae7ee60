// Allocations whose result the statement converts (structure_builder.cpp): `(double *)malloc(n)`
// in C, `static_cast<T *>(std::malloc(n))` in C++. They went into the surrounding block, so
// they were neither priced by their size nor seen by the estimation; they are external calls
// priced by size like a bare `malloc(n)`. A cast of any other call stays in its block.
#include <gtest/gtest.h>

#include <set>

#include "support.hpp"

namespace parjava::frontend::testing {
namespace {

constexpr const char *kCasts = R"(
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  double *a = (double *)malloc(n * sizeof(double));
  double *b;
  b = (double *)calloc(n, sizeof(double));
  char *c = (char *)memcpy(malloc(n), a, n);
  double s = (double)abs(n);
  for (int i = 0; i < n; i++) a[i] = b[i] = i + s + c[0];
  free(a);
  free(b);
  MPI_Finalize();
  return 0;
}
)";

TEST(CastAllocations, ConvertedAllocationsAreExternalCallsPricedBySize) {
  const BuildResult r = build(write_source("casts.c", kCasts), {"-O2"});
  std::multiset<std::string> calls;
  std::set<int> lines;
  for (const model::Node *n : nodes_of(r.model, model::NodeKind::ExternalCall)) {
    calls.insert(n->callee);
    lines.insert(n->source.line);
  }
  EXPECT_EQ(calls.count("malloc"), 1U) << "the converted malloc of line 8";
  EXPECT_EQ(calls.count("calloc"), 1U) << "the converted calloc assigned on line 10";
  // memcpy's result converted: the outer call is the one priced (its size is n).
  EXPECT_EQ(calls.count("memcpy"), 1U);
  EXPECT_EQ(calls.count("free"), 2U);
  EXPECT_TRUE(lines.contains(8) && lines.contains(10) && lines.contains(11));
  // `(double)abs(n)`: not a call priced by its size, it stays in a block.
  EXPECT_EQ(calls.count("abs"), 0U);
  EXPECT_FALSE(lines.contains(12));
}

} // namespace
} // namespace parjava::frontend::testing
