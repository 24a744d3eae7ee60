// The factor by which a measured nest's time follows its working set across cache levels
// (size_costs.hpp): all of it for a nest that takes what a sweep of its working set takes, only
// the memory part for one that computes longer (SimpleMOC-like nests: 64 operations per element
// were scaled x1.4 for twice the elements, the program x1.0).
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>

#include "../../../cpp/src/frontend/size_costs.hpp"
#include "parjava/model/bytecode.hpp"
#include "parjava/model/expression.hpp"

namespace {

using parjava::frontend::cache_factor;
using parjava::frontend::cost_holds_to;
using parjava::frontend::CostCurve;

// The factor's value with the nest's trips at `trips` (the text "n").
double value(const std::string &factor, double trips) {
  using parjava::model::Symbol;
  const auto resolve = [&](std::string_view name) -> std::optional<Symbol> {
    if (name == "n") {
      return Symbol{Symbol::Kind::Constant, parjava::model::Value::of_float(trips),
                    parjava::model::ValueType::Float, 0};
    }
    return std::nullopt;
  };
  const auto c = parjava::model::CompiledExpression::compile(
      parjava::model::Expression::parse(factor), resolve, "factor");
  return c.evaluate_number(parjava::model::EvalScope{});
}

// 1 ns per byte up to 1 MiB, 2 ns from 4 MiB on: a working set of 1 MiB that grows 4x leaves
// the cache.
const CostCurve kCurve = {{1024.0 * 1024.0, 1e-9}, {4.0 * 1024.0 * 1024.0, 2e-9}};
constexpr double kW0 = 1024.0 * 1024.0;
constexpr double kSweep = 1e-9 * kW0; // what one sweep of the working set costs

TEST(CacheFactor, AMemoryBoundNestScalesWithTheCostPerByte) {
  const std::string f = cache_factor(kCurve, kW0, 1000.0, "n", kSweep);
  ASSERT_FALSE(f.empty());
  EXPECT_NEAR(value(f, 1000.0), 1.0, 1e-9);
  EXPECT_NEAR(value(f, 4000.0), 2.0, 1e-9);
}

TEST(CacheFactor, OnlyTheMemoryPartOfAComputingNestScales) {
  // Four times as long as the sweep: a quarter of the time is memory.
  const std::string f = cache_factor(kCurve, kW0, 1000.0, "n", 4.0 * kSweep);
  ASSERT_FALSE(f.empty());
  EXPECT_NEAR(value(f, 1000.0), 1.0, 1e-9);
  EXPECT_NEAR(value(f, 4000.0), 0.75 + 0.25 * 2.0, 1e-9);
  // A nest that computes a thousand times longer than it moves memory keeps its time.
  EXPECT_TRUE(cache_factor(kCurve, kW0, 1000.0, "n", 1000.0 * kSweep).empty());
}

// How far a nest's measured cost per iteration holds as its data grows (the unscaled nests a
// prediction checks): up to the knot before the cost per byte rises past 10 %.
TEST(CacheFactor, TheMeasuredCostHoldsUpToTheNextCacheLevel) {
  const CostCurve curve = {{1024.0, 1e-9},
                           {64.0 * 1024.0, 1.05e-9},
                           {1024.0 * 1024.0, 1.5e-9},
                           {64.0 * 1024.0 * 1024.0, 3e-9}};
  EXPECT_DOUBLE_EQ(cost_holds_to(curve, 1024.0), 64.0 * 1024.0);
  EXPECT_DOUBLE_EQ(cost_holds_to(curve, 2.0 * 1024.0 * 1024.0), 2.0 * 1024.0 * 1024.0);
  // Past the last knot the cost per byte is the last one's: it holds to the largest size.
  EXPECT_DOUBLE_EQ(cost_holds_to({{1024.0, 1e-9}, {2048.0, 1e-9}}, 1024.0), 2048.0);
  EXPECT_EQ(cost_holds_to(curve, 0.0), 0.0);
  EXPECT_EQ(cost_holds_to({}, 1024.0), 0.0);
}

} // namespace
