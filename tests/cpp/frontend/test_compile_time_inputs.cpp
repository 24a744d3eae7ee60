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

} // namespace
} // namespace parjava::frontend::testing
