// Node rules of notes 000 §3.2-§3.3 with hand-computed Time and Freq.
#include <gtest/gtest.h>

#include <cmath>

#include "helpers.hpp"
#include "parjava/error.hpp"

using namespace parjava::interp;
using namespace parjava::interp::testing;

namespace {
constexpr double us = 1e-6;
}

TEST(Control, SequenceTimesAddAndFreqCounts) {
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2, 3, 4]},
    {"id": 2, "kind": "cb", "time": 1e-6},
    {"id": 3, "kind": "cb", "time": "2e-6 * (rank + 1)"},
    {"id": 4, "kind": "rb", "time": 3e-6})J");
  const auto p = run(m, free_network(), 2);
  EXPECT_NEAR(p.end_times[0], 6 * us, 1e-15);
  EXPECT_NEAR(p.end_times[1], 8 * us, 1e-15);
  EXPECT_NEAR(p.program_time, 8 * us, 1e-15);
  EXPECT_NEAR(stats(p, 1).time, 14 * us, 1e-15); // summed over both processes
  EXPECT_EQ(stats(p, 1).freq, 2U);
  EXPECT_EQ(stats(p, 3).freq, 2U);
  EXPECT_NEAR(stats(p, 3).time, 6 * us, 1e-15);
}

TEST(Control, IfElseAndCondTime) {
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2]},
    {"id": 2, "kind": "if-else", "cond": "rank % 2 == 0", "cond_time": 1e-7, "children": [3, 4]},
    {"id": 3, "kind": "cb", "time": 1e-6},
    {"id": 4, "kind": "cb", "time": 5e-6})J");
  const auto p = run(m, free_network(), 3);
  EXPECT_NEAR(p.end_times[0], 1.1 * us, 1e-15);
  EXPECT_NEAR(p.end_times[1], 5.1 * us, 1e-15);
  EXPECT_EQ(stats(p, 3).freq, 2U); // ranks 0 and 2
  EXPECT_EQ(stats(p, 4).freq, 1U);
  EXPECT_EQ(stats(p, 2).freq, 3U);
  // Time(if-else) = Time(B_CE) + Time(branch), summed: 3 x 0.1 + 2 x 1 + 5
  EXPECT_NEAR(stats(p, 2).time, 7.3 * us, 1e-14);
}

TEST(Control, LoopsTripCountsAndBodyFreq) {
  // for i in 0..4 (5 iterations), while j < 3, do-while k < 0 (runs once)
  const auto m = model_of(R"J({"n": 5})J", R"J(
    {"id": 1, "kind": "seq", "children": [2, 4, 6]},
    {"id": 2, "kind": "for", "init": [["i", "0"]], "cond": "i < n", "update": [["i", "i + 1"]],
     "cond_time": 1e-8, "children": [3]},
    {"id": 3, "kind": "cb", "time": 1e-6},
    {"id": 4, "kind": "while", "cond": "j < 3", "children": [5]},
    {"id": 5, "kind": "cb", "time": 1e-6, "assign": [["j", "j + 1"]]},
    {"id": 6, "kind": "do-while", "cond": "j < 0", "children": [7]},
    {"id": 7, "kind": "cb", "time": 2e-6})J");
  const auto p = run(m, free_network(), 1);
  // 5 iterations + 6 condition evaluations of 10 ns; 3 iterations; 1 iteration.
  EXPECT_NEAR(p.program_time, 5 * us + 6 * 0.01 * us + 3 * us + 2 * us, 1e-14);
  EXPECT_EQ(stats(p, 3).freq, 5U);
  EXPECT_EQ(stats(p, 2).freq, 1U);
  EXPECT_EQ(stats(p, 5).freq, 3U);
  EXPECT_EQ(stats(p, 7).freq, 1U);
}

TEST(Control, BreakAndContinueCarryTheirTarget) {
  // for i in 0..9: if (i == 3) continue; if (i == 6) break; work
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2]},
    {"id": 2, "kind": "for", "init": [["i", "0"]], "cond": "i < 10", "update": [["i", "i + 1"]],
     "children": [3]},
    {"id": 3, "kind": "seq", "children": [4, 6, 8]},
    {"id": 4, "kind": "if", "cond": "i == 3", "children": [5]},
    {"id": 5, "kind": "continue", "target": 2},
    {"id": 6, "kind": "if", "cond": "i == 6", "children": [7]},
    {"id": 7, "kind": "break", "target": 2},
    {"id": 8, "kind": "cb", "time": 1e-6})J");
  const auto p = run(m, free_network(), 1);
  EXPECT_EQ(stats(p, 8).freq, 5U); // i = 0, 1, 2, 4, 5
  EXPECT_NEAR(p.program_time, 5 * us, 1e-15);
  EXPECT_EQ(stats(p, 5).freq, 1U);
  EXPECT_EQ(stats(p, 7).freq, 1U);
}

TEST(Control, SwitchFallsThroughUntilBreak) {
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2]},
    {"id": 2, "kind": "switch", "value": "rank", "cases": [{"labels": [0]}, {"labels": [1]},
      {"default": true}], "children": [3, 5, 8]},
    {"id": 3, "kind": "seq", "children": [4]},
    {"id": 4, "kind": "cb", "time": 1e-6},
    {"id": 5, "kind": "seq", "children": [6, 7]},
    {"id": 6, "kind": "cb", "time": 2e-6},
    {"id": 7, "kind": "break", "target": 2},
    {"id": 8, "kind": "seq", "children": [9]},
    {"id": 9, "kind": "cb", "time": 4e-6})J");
  const auto p = run(m, free_network(), 3);
  EXPECT_NEAR(p.end_times[0], 3 * us, 1e-15); // case 0 falls into case 1, which breaks
  EXPECT_NEAR(p.end_times[1], 2 * us, 1e-15);
  EXPECT_NEAR(p.end_times[2], 4 * us, 1e-15); // default
}

TEST(Control, CallsBindParametersAndContexts) {
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2, 3]},
    {"id": 2, "kind": "ufc", "callee": "work", "args": ["3"]},
    {"id": 3, "kind": "ufc", "callee": "work", "context": 1},
    {"id": 10, "kind": "seq", "children": [11, 12]},
    {"id": 11, "kind": "cb", "time": "1e-6 * k"},
    {"id": 12, "kind": "ret"})J",
                          R"J(, {"name": "work", "params": ["k"], "body": 10,
                              "contexts": [{"number": 1, "args": ["5"]}]})J");
  const auto p = run(m, free_network(), 1);
  EXPECT_NEAR(p.program_time, 8 * us, 1e-15);
  EXPECT_NEAR(stats(p, 2).time, 3 * us, 1e-15); // a call's Time is its callee's, per call
  EXPECT_NEAR(stats(p, 3).time, 5 * us, 1e-15);
  EXPECT_EQ(stats(p, 11).freq, 2U);
}

TEST(Control, UnconditionalRecursionIsAModelError) {
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2]},
    {"id": 2, "kind": "ufc", "callee": "f", "args": []},
    {"id": 10, "kind": "seq", "children": [11]},
    {"id": 11, "kind": "ufc", "callee": "f", "args": []})J",
                          R"J(, {"name": "f", "params": [], "body": 10})J");
  try {
    run(m, free_network(), 1);
    FAIL();
  } catch (const parjava::Error &e) {
    EXPECT_EQ(e.kind(), parjava::ErrorKind::Model);
    EXPECT_NE(std::string(e.what()).find("recursive call chain f -> f never ends"),
              std::string::npos);
  }
}

TEST(Control, RuntimeErrorsNameNodeAndRank) {
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2]},
    {"id": 2, "kind": "cb", "time": "1e-6 / (rank - 1)"})J");
  try {
    run(m, free_network(), 3);
    FAIL();
  } catch (const parjava::Error &e) {
    EXPECT_NE(std::string(e.what()).find("node 2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("rank 0"), std::string::npos) << e.what();
  }
}

TEST(Control, OpaqueExpectedModeIsExactAndDeterministic) {
  // 100 evaluations of a branch with p = 0.3 and a loop of 2.5 trips on average, 4 times.
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2, 5]},
    {"id": 2, "kind": "for", "init": [["i", "0"]], "cond": "i < 100", "update": [["i", "i+1"]],
     "children": [3]},
    {"id": 3, "kind": "if", "opaque": {"probability": 0.3}, "children": [4]},
    {"id": 4, "kind": "cb", "time": 1e-6},
    {"id": 5, "kind": "for", "init": [["j", "0"]], "cond": "j < 4", "update": [["j", "j+1"]],
     "children": [6]},
    {"id": 6, "kind": "while", "opaque": {"trips": 2.5}, "children": [7]},
    {"id": 7, "kind": "cb", "time": 1e-6})J");
  const auto p = run(m, free_network(), 2);
  EXPECT_EQ(stats(p, 4).freq, 60U); // 30 per process
  EXPECT_EQ(stats(p, 7).freq, 20U); // 10 per process
  EXPECT_NEAR(p.program_time, 40 * us, 1e-14);
}

TEST(Control, OpaqueSampledModeIsSeeded) {
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2]},
    {"id": 2, "kind": "for", "init": [["i", "0"]], "cond": "i < 1000", "update": [["i", "i+1"]],
     "children": [3]},
    {"id": 3, "kind": "if", "opaque": {"probability": 0.25}, "children": [4]},
    {"id": 4, "kind": "cb", "time": 1e-6})J");
  InterpretOptions o;
  o.processes = 4;
  o.opaque = OpaqueMode::Sampled;
  o.seed = 7;
  const auto a = interpret(m, free_network(), o);
  const auto b = interpret(m, free_network(), o);
  EXPECT_EQ(a.end_times, b.end_times);
  EXPECT_NE(a.end_times[0], a.end_times[1]); // processes diverge
  const double mean = stats(a, 4).freq / 4.0;
  EXPECT_NEAR(mean, 250.0, 40.0);
  o.seed = 8;
  EXPECT_NE(interpret(m, free_network(), o).end_times, a.end_times);
}

TEST(Control, OpaqueSwitchWeightsRoundRobin) {
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2]},
    {"id": 2, "kind": "for", "init": [["i", "0"]], "cond": "i < 10", "update": [["i", "i+1"]],
     "children": [3]},
    {"id": 3, "kind": "switch", "cases": [{"labels": [0], "weight": 3}, {"labels": [1], "weight": 1}],
     "children": [4, 7]},
    {"id": 4, "kind": "seq", "children": [5, 6]},
    {"id": 5, "kind": "cb", "time": 1e-6},
    {"id": 6, "kind": "break", "target": 3},
    {"id": 7, "kind": "cb", "time": 1e-6})J");
  const auto p = run(m, free_network(), 1);
  EXPECT_EQ(stats(p, 5).freq + stats(p, 7).freq, 10U + 0U + stats(p, 7).freq - stats(p, 7).freq);
  EXPECT_NEAR(static_cast<double>(stats(p, 5).freq), 7.5, 1.0); // 3:1 split of 10
}

TEST(Control, MeasuredTimesGiveTheErrorBound) {
  // notes 000 §4: 3 sigma / sqrt(N) per execution, adding up along the path.
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2]},
    {"id": 2, "kind": "for", "init": [["i", "0"]], "cond": "i < 10", "update": [["i", "i+1"]],
     "children": [3]},
    {"id": 3, "kind": "cb", "time": {"mean": 1e-6, "sigma": 1e-7, "samples": 100}})J");
  const auto p = run(m, free_network(), 1);
  EXPECT_NEAR(p.program_time, 10 * us, 1e-15);
  EXPECT_NEAR(p.error_bound, 10 * 3 * 1e-7 / 10, 1e-15);
  EXPECT_NEAR(stats(p, 2).error_bound, p.error_bound, 1e-15);
  EXPECT_NEAR(p.error_bound_thesis, p.error_bound, 1e-15); // all blocks equal here
}

TEST(Control, MachinePowerScalesBlockTimes) {
  const auto m = model_of("{}", R"J({"id": 1, "kind": "seq", "children": [2]},
    {"id": 2, "kind": "cb", "time": 1e-6})J");
  const auto p = run(m, free_network().with_power(2.0), 1);
  EXPECT_NEAR(p.program_time, 2 * us, 1e-15);
}

TEST(Control, GlobalsAndParameterOverrides) {
  const auto m = model_of(R"J({"N": 10})J", R"J(
    {"id": 1, "kind": "seq", "children": [2, 3]},
    {"id": 2, "kind": "cb", "assign": [["g", "g + N"]]},
    {"id": 3, "kind": "cb", "time": "1e-6 * g"})J",
                          "");
  parjava::model::Model with_global = m;
  with_global.globals.push_back({"g", parjava::model::Expression::parse("rank")});
  with_global.validate();
  InterpretOptions o;
  o.processes = 2;
  o.params["N"] = parjava::model::Value::of_int(20);
  const auto p = interpret(with_global, free_network(), o);
  EXPECT_NEAR(p.end_times[0], 20 * us, 1e-15);
  EXPECT_NEAR(p.end_times[1], 21 * us, 1e-15);
  o.params["M"] = parjava::model::Value::of_int(1);
  EXPECT_THROW(interpret(with_global, free_network(), o), parjava::Error);
}

TEST(Control, PartialInterpretationOfOneNode) {
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2, 3]},
    {"id": 2, "kind": "cb", "assign": [["n", "7"]]},
    {"id": 3, "kind": "for", "init": [["i", "0"]], "cond": "i < n", "update": [["i", "i+1"]],
     "children": [4]},
    {"id": 4, "kind": "cb", "time": 1e-6})J");
  InterpretOptions o;
  const auto whole = interpret(m, free_network(), o);
  EXPECT_NEAR(whole.program_time, 7 * us, 1e-15);
  const auto part =
      interpret_node(m, 3, free_network(), o, {{"n", parjava::model::Value::of_int(4)}});
  EXPECT_NEAR(part.program_time, 4 * us, 1e-15);
}

TEST(Control, ProcessorSharingWhenRanksExceedCores) {
  // Two cores per node, four ranks per node (mpirun --oversubscribe): a full node runs its
  // blocks at half speed; the second node of a 6-rank run holds two ranks and runs at full speed.
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2]},
    {"id": 2, "kind": "cb", "time": 1e-6})J");
  parjava::machine::NodeLayout layout;
  layout.nodes = 2;
  layout.cores_per_node = 2;
  layout.ranks_per_node = 4;
  const parjava::machine::HockneyParameters net{0.0, 1e30, 1 << 20};
  const parjava::machine::Machine vm("vm", layout, parjava::machine::Network::hockney(net),
                                     parjava::machine::Network::hockney(net),
                                     parjava::machine::ThreadCosts{}, 1.0);
  EXPECT_NEAR(run(m, vm, 2).program_time, 1e-6, 1e-15);
  const auto six = run(m, vm, 6);
  EXPECT_NEAR(six.end_times[0], 2e-6, 1e-15);
  EXPECT_NEAR(six.end_times[5], 1e-6, 1e-15);
  ASSERT_EQ(six.warnings.size(), 1U);
  EXPECT_NE(six.warnings[0].find("2 cores per node for 4 logical threads per node"),
            std::string::npos)
      << six.warnings[0];
}

TEST(Control, CountedLoopsOfComputeBlocksRunAtOnceWithTheSameTimesAndCounts) {
  // Each shape twice: a body of compute blocks (run as trips x body) and the same body with an
  // assignment (run iteration by iteration); times, counts and the variable's value after the
  // loop (read by the block after it) must agree.
  struct Shape {
    const char *init, *cond, *update;
    std::uint64_t trips;
  };
  const Shape shapes[] = {
      {"0", "i < n", "i + 1", 7},       {"0", "i <= n", "i + 3", 3}, {"n", "i > 0", "i - 2", 4},
      {"n", "i >= -1", "i - 1", 9},     {"0", "i != n", "i + 1", 7}, {"5", "i < 2", "i + 1", 0},
      {"0", "i < n * 0.5", "i + 1", 4}, {"1", "i < n", "2 + i", 3},
  };
  for (const Shape &s : shapes) {
    const auto at_once = [&](bool assign) {
      const std::string body = assign ? R"("assign": [["z", "z + 1"]])" : R"("assign": [])";
      const auto m = model_of(R"J({"n": 7})J", std::string(R"J(
        {"id": 1, "kind": "seq", "children": [2, 6]},
        {"id": 2, "kind": "for", "init": [["i", ")J") +
                                                   s.init + R"J("]], "cond": ")J" + s.cond +
                                                   R"J(", "update": [["i", ")J" + s.update +
                                                   R"J("]], "cond_time": 1e-8, "children": [3]},
        {"id": 3, "kind": "seq", "children": [4, 5]},
        {"id": 4, "kind": "cb", "time": 1e-6, )J" + body +
                                                   R"J(},
        {"id": 5, "kind": "cb", "time": "2e-6 * n"},
        {"id": 6, "kind": "cb", "time": "1e-6 * (i + 20)"})J");
      return run(m, free_network(), 2);
    };
    const auto fast = at_once(false);
    const auto slow = at_once(true);
    SCOPED_TRACE(std::string(s.init) + "; " + s.cond + "; " + s.update);
    EXPECT_EQ(stats(fast, 4).freq, 2 * s.trips);
    for (const int node : {2, 3, 4, 5, 6}) {
      EXPECT_EQ(stats(fast, node).freq, stats(slow, node).freq) << node;
      EXPECT_NEAR(stats(fast, node).time, stats(slow, node).time, 1e-12) << node;
    }
    EXPECT_NEAR(fast.program_time, slow.program_time, 1e-12);
  }
}
