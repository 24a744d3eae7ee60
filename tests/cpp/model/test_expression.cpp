// Expression parsing, typing, folding and evaluation with C semantics.
#include <gtest/gtest.h>

#include <cmath>

#include "parjava/error.hpp"
#include "parjava/model/bytecode.hpp"
#include "parjava/model/expression.hpp"

using namespace parjava::model;

namespace {

// Resolver: N=100 (int), h=0.5 (float), size=8 constants; i (slot 0, int), x (slot 1, float).
std::optional<Symbol> resolve(std::string_view name) {
  if (name == "N")
    return Symbol{Symbol::Kind::Constant, Value::of_int(100), ValueType::Int, 0};
  if (name == "h")
    return Symbol{Symbol::Kind::Constant, Value::of_float(0.5), ValueType::Float, 0};
  if (name == "size")
    return Symbol{Symbol::Kind::Constant, Value::of_int(8), ValueType::Int, 0};
  if (name == "rank")
    return Symbol{Symbol::Kind::Rank, {}, ValueType::Int, 0};
  if (name == "i")
    return Symbol{Symbol::Kind::Slot, {}, ValueType::Int, 0};
  if (name == "x")
    return Symbol{Symbol::Kind::Slot, {}, ValueType::Float, 1};
  return std::nullopt;
}

Value eval(const std::string &text, std::int64_t rank = 3, std::int64_t i = 7, double x = 2.5) {
  const CompiledExpression c = CompiledExpression::compile(Expression::parse(text), resolve, "t");
  std::uint64_t slots[2] = {static_cast<std::uint64_t>(i), std::bit_cast<std::uint64_t>(x)};
  EvalScope scope;
  scope.slots = slots;
  scope.rank = rank;
  return c.evaluate(scope);
}

} // namespace

TEST(Expression, IntegerArithmeticFollowsC) {
  EXPECT_EQ(eval("7 / 2").as_int(), 3);
  EXPECT_EQ(eval("-7 / 2").as_int(), -3);
  EXPECT_EQ(eval("-7 % 3").as_int(), -1);
  EXPECT_EQ(eval("(rank + 1) % size").as_int(), 4);
  EXPECT_EQ(eval("(rank - 1 + size) % size", 0).as_int(), 7);
  EXPECT_EQ(eval("rank ^ 1").as_int(), 2);
  EXPECT_EQ(eval("1 << 10").as_int(), 1024);
  EXPECT_EQ(eval("N / size").type, ValueType::Int);
  EXPECT_EQ(eval("N / size").as_int(), 12);
}

TEST(Expression, FloatPromotionAndFunctions) {
  EXPECT_DOUBLE_EQ(eval("2e-9 * N * N / size").as_float(), 2e-9 * 100 * 100 / 8);
  EXPECT_EQ(eval("N * h").type, ValueType::Float);
  EXPECT_DOUBLE_EQ(eval("x * 2").as_float(), 5.0);
  EXPECT_DOUBLE_EQ(eval("log2(size)").as_float(), 3.0);
  EXPECT_DOUBLE_EQ(eval("sqrt(16)").as_float(), 4.0);
  EXPECT_EQ(eval("min(i, 3, 5)").as_int(), 3);
  EXPECT_DOUBLE_EQ(eval("max(i, x)").as_float(), 7.0);
  EXPECT_EQ(eval("abs(-i)").as_int(), 7);
  EXPECT_DOUBLE_EQ(eval("floor(x)").as_float(), 2.0);
  EXPECT_DOUBLE_EQ(eval("ceil(x)").as_float(), 3.0);
  EXPECT_EQ(eval("int(x * 3)").as_int(), 7);
  EXPECT_DOUBLE_EQ(eval("pow(2, 10)").as_float(), 1024.0);
}

TEST(Expression, LogicComparisonTernaryShortCircuit) {
  EXPECT_EQ(eval("i < N && rank != 0").as_int(), 1);
  EXPECT_EQ(eval("i < N && rank != 0", 0).as_int(), 0);
  EXPECT_EQ(eval("!(i == 7) || x > 2").as_int(), 1);
  EXPECT_EQ(eval("rank == 0 ? 10 : 20", 0).as_int(), 10);
  EXPECT_EQ(eval("rank == 0 ? 10 : 20", 1).as_int(), 20);
  EXPECT_DOUBLE_EQ(eval("rank == 0 ? 1 : 0.5", 0).as_float(), 1.0);
  // Short circuit: the division is not evaluated when the left side decides.
  EXPECT_EQ(eval("rank == 0 || 10 / rank > 1", 0).as_int(), 1);
  EXPECT_EQ(eval("rank > 0 ? N / rank : 0", 0).as_int(), 0);
}

TEST(Expression, ConstantsFold) {
  const auto c =
      CompiledExpression::compile(Expression::parse("2e-9 * N * N / size"), resolve, "t");
  EXPECT_TRUE(c.is_constant());
  const auto d =
      CompiledExpression::compile(Expression::parse("size > 1 ? N / (size - 8) : 0"), resolve, "t");
  EXPECT_FALSE(d.is_constant()); // N/0 is left to run time, where it fails if reached
  EXPECT_THROW(eval("size > 1 ? N / (size - 8) : 0"), parjava::Error);
}

TEST(Expression, ErrorsNameTheProblem) {
  try {
    Expression::parse("N * (size + 1", "node 4, field 'time'");
    FAIL();
  } catch (const parjava::Error &e) {
    EXPECT_NE(std::string(e.what()).find("node 4, field 'time'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("expected ')'"), std::string::npos);
  }
  EXPECT_THROW(Expression::parse("N ** 2"), parjava::Error);
  EXPECT_THROW(Expression::parse("foo(3)"), parjava::Error);
  EXPECT_THROW(Expression::parse("min(3)"), parjava::Error);
  EXPECT_THROW(Expression::parse("i = 3"), parjava::Error);
  EXPECT_THROW(eval("unknown + 1"), parjava::Error);
  EXPECT_THROW(eval("x % 2"), parjava::Error);
  EXPECT_THROW(eval("i / (i - 7)"), parjava::Error);
}

TEST(Expression, NamesAndValidity) {
  const auto e = Expression::parse("min(i, N) + rank * i");
  EXPECT_EQ(e.names(), (std::vector<std::string>{"i", "N", "rank"}));
  EXPECT_TRUE(is_valid_variable_name("n_iter2"));
  EXPECT_FALSE(is_valid_variable_name("rank"));
  EXPECT_FALSE(is_valid_variable_name("2x"));
  EXPECT_FALSE(is_valid_variable_name("min"));
}

// A chain of conditionals runs one arm of each: `i == 0 ? x : (i == 1 ? x + 1 : ...)` 80
// deep needs a stack of 3, not 80 (HPGMG-FV's 27-entry direction tables, one variable per
// element, read by the loop index). Operands that really are pending still count.
TEST(Expression, ConditionalChainsRunOneArm) {
  std::string chain = "0.0";
  for (int k = 79; k >= 0; --k) {
    chain = "(i == " + std::to_string(k) + " ? x + " + std::to_string(k) + " : " + chain + ")";
  }
  EXPECT_DOUBLE_EQ(eval(chain, 0, 7, 2.5).as_float(), 9.5);
  EXPECT_DOUBLE_EQ(eval(chain + " + " + chain, 0, 79, 2.5).as_float(), 163.0);
  EXPECT_DOUBLE_EQ(eval(chain, 0, 80, 2.5).as_float(), 0.0);
  std::string pending = "i";
  for (int k = 0; k < 70; ++k) {
    pending = "i * (" + pending + " + x)";
  }
  EXPECT_THROW(eval(pending), parjava::Error);
}
