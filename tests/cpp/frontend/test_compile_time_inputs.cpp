// Numbers of the compile line as model parameters (compile_time_inputs.hpp, issue 12): a -D
// macro whose value is one number (or a minus sign and one) is the parameter named after it,
// through constants and enumerators computed from it; a value of several tokens, a macro the
// source defines and a flag the model never reads are not parameters.
#include <gtest/gtest.h>

#include "support.hpp"

namespace parjava::frontend::testing {
namespace {

constexpr const char *kProgram = R"(
#ifndef N
#define N 3
#endif
#define K 5
#if N > 4
#define WIDE 1
#endif
enum { E = N * 2 };
static const int n = N;
static const double half = F / 2;
int main(void) {
  int s = 0;
  for (int i = 0; i < n; i++) s += i;
  for (int j = 0; j < E; j++) s += j;
  for (int k = 0; k < K; k++) s += k;
  for (int a = 0; a > M; a--) s += a;
  for (int p = 0; p < P; p++) s += p;
  double t = 0.0;
  while (t < half) t += 0.25;
  return s > 0;
}
)";

TEST(CompileTimeInputs, NumbersOfTheCompileLineAreParameters) {
  const BuildResult r = build(write_source("compile_time.c", kProgram),
                              {"-DN=8", "-DM=-3", "-DF=2.5", "-DP=(2)", "-DUNUSED=7"});
  const model::Model &m = r.model;
  const model::Parameter *n = parameter(m, "N");
  const model::Parameter *minus = parameter(m, "M");
  const model::Parameter *f = parameter(m, "F");
  ASSERT_NE(n, nullptr);
  ASSERT_NE(minus, nullptr);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(n->value.type, model::ValueType::Int);
  EXPECT_EQ(n->value.as_int(), 8);
  EXPECT_EQ(minus->value.as_int(), -3);
  EXPECT_EQ(f->value.type, model::ValueType::Float);
  EXPECT_DOUBLE_EQ(f->value.as_float(), 2.5);
  EXPECT_EQ(n->origin, "compile-time");
  EXPECT_NE(n->source.find("compile_time.c:"), std::string::npos) << n->source;
  // `#if N > 4` tests it (line 6); the `#ifndef N` guard before it only gives a default.
  ASSERT_EQ(n->preprocessor_tests.size(), 1U);
  EXPECT_TRUE(n->preprocessor_tests[0].ends_with("compile_time.c:6")) << n->preprocessor_tests[0];
  EXPECT_TRUE(minus->preprocessor_tests.empty());
  EXPECT_EQ(parameter(m, "P"), nullptr);      // `(2)`: three tokens, a constant
  EXPECT_EQ(parameter(m, "K"), nullptr);      // defined by the source
  EXPECT_EQ(parameter(m, "UNUSED"), nullptr); // never read by the model

  std::vector<std::string> conds;
  for (const model::Node *loop : nodes_of(m, model::NodeKind::For)) {
    conds.push_back(loop->cond.text());
  }
  // The constant, the enumerator and the negated flag are written from the parameters.
  EXPECT_NE(std::find(conds.begin(), conds.end(), "(i < N)"), conds.end());
  EXPECT_NE(std::find(conds.begin(), conds.end(), "(j < (N * 2))"), conds.end());
  EXPECT_NE(std::find(conds.begin(), conds.end(), "(k < 5)"), conds.end());
  EXPECT_NE(std::find(conds.begin(), conds.end(), "(a > (-(-M)))"), conds.end());
  EXPECT_NE(std::find(conds.begin(), conds.end(), "(p < 2)"), conds.end());
  for (const model::Node *loop : nodes_of(m, model::NodeKind::While)) {
    EXPECT_EQ(loop->cond.text(), "(t < (F / 2.0))");
  }
}

// minisweep's sweep kernel: a loop over `NU_PER_THREAD`, an enumerator computed from
// -DNM_VALUE=4, runs once per execution, executed hundreds of millions of times.
constexpr const char *kFewTrips = R"(
#include <mpi.h>
#include <stdlib.h>
enum { PER = NV / 4, LANES = NV * 4, WIDE = NV * 32 };
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 64;
  double *f = calloc((size_t)n * 128, sizeof(double));
  for (int i = 0; i < n; i++) {
    double w = 1.0 / (1 + i);
    for (int u = 0; u < PER; u++) {
      f[128 * i + u] += w;
    }
    for (int l = 0; l < LANES; l++) {
      f[128 * i + l] -= w;
    }
    for (int v = 0; v < WIDE; v++) {
      f[128 * i + v] *= w;
    }
  }
  free(f);
  MPI_Finalize();
  return 0;
}
)";

TEST(CompileTimeInputs, AFewIterationsFixedByTheCompileLineAreTimedWithTheirEnclosingLoop) {
  const BuildResult r = build(write_source("few_trips.c", kFewTrips), {"-DNV=4"});
  const model::Node *per = labelled(r.model, "for u < PER");
  const model::Node *lanes = labelled(r.model, "for l < LANES");
  const model::Node *wide = labelled(r.model, "for v < WIDE");
  ASSERT_NE(per, nullptr);
  ASSERT_NE(lanes, nullptr);
  ASSERT_NE(wide, nullptr);
  EXPECT_EQ(per->cond.text(), "(u < (NV / 4))");
  // One iteration per execution with NV = 4, or sixteen (a vector's lanes, minisweep's
  // NTHREAD_A): no probe pair around each execution. 128 (WIDE, a grid's width) are timed
  // apart, so that a prediction at another NV scales them.
  EXPECT_EQ(r.plan.find(per->id, ProbeKind::Fragment), nullptr);
  EXPECT_EQ(r.plan.find(lanes->id, ProbeKind::Fragment), nullptr);
  EXPECT_NE(r.plan.find(wide->id, ProbeKind::Fragment), nullptr);
  const auto note = std::find_if(r.diagnostics.begin(), r.diagnostics.end(), [](const auto &d) {
    return d.message.starts_with("loop 'for u < PER' runs 1 iteration per execution with -DNV=4");
  });
  ASSERT_NE(note, r.diagnostics.end());
  EXPECT_EQ(note->severity, Severity::Note);
  EXPECT_EQ(note->line, 11U);
  EXPECT_TRUE(std::any_of(r.diagnostics.begin(), r.diagnostics.end(), [](const auto &d) {
    return d.message.starts_with("loop 'for l < LANES' runs 16 iterations per execution");
  }));
  EXPECT_TRUE(std::none_of(r.diagnostics.begin(), r.diagnostics.end(), [](const auto &d) {
    return d.message.starts_with("loop 'for v < WIDE'");
  }));
}

} // namespace
} // namespace parjava::frontend::testing
