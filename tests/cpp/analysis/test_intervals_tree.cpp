// The shape of the interval tree: sources, identity, merging of repeated executions, subsets of
// processes, depth cut-off, broken nesting, and the exclusive/inclusive identity.
#include <gtest/gtest.h>

#include <algorithm>

#include "interval_test_traces.hpp"
#include "parjava/error.hpp"

namespace parjava::analysis {
namespace {

using testing::Program;
using testing::value_of;
using trace::Timestamp;
using C = Characteristic;

IntervalTree analyze(const trace::Trace &trace, const IntervalOptions &options = {}) {
  auto tree = analyze_intervals(trace, options);
  testing::expect_identities(tree);
  return tree;
}

// Two ranks, three iterations of "step" (id 1) holding "exchange" (id 2) with a barrier.
trace::Trace iterations() {
  Program prog(2);
  for (int p = 0; p < 2; ++p) {
    prog.begin(p, 0);
    prog.call(p, "MPI_Init", 0, 10);
    for (Timestamp k = 0; k < 3; ++k) {
      const Timestamp t = 100 + 1000 * k;
      prog.interval_begin(p, t, 1, "step", "app.c", 30);
      prog.interval_begin(p, t + 100 + Timestamp{50} * p, 2, "exchange", "app.c", 40);
      prog.barrier(p, t + 200 + Timestamp{100} * p, t + 400);
      prog.interval_end(p, t + 450, 2, "exchange", "app.c", 45);
      prog.interval_end(p, t + 800, 1, "step", "app.c", 50);
    }
    prog.end(p, 4000);
  }
  return prog.finish();
}

TEST(IntervalTreeShape, NestedMarkersMergeRepeatedExecutions) {
  const auto trace = iterations();
  const auto tree = analyze(trace);
  ASSERT_EQ(tree.nodes.size(), 3U);
  const auto &root = tree.root();
  ASSERT_EQ(root.children.size(), 1U);
  const auto &step = tree.nodes[root.children[0]];
  EXPECT_EQ(step.name, "step");
  EXPECT_EQ(step.source, IntervalSource::Marker);
  EXPECT_EQ(step.file, "app.c");
  EXPECT_EQ(step.line, 30U);
  EXPECT_EQ(step.user_id, 1);
  EXPECT_EQ(step.level, 1U);
  EXPECT_EQ(step.exe_count, 3U);
  ASSERT_EQ(step.children.size(), 1U);
  const auto &exchange = tree.nodes[step.children[0]];
  EXPECT_EQ(exchange.name, "exchange");
  EXPECT_EQ(exchange.level, 2U);
  EXPECT_EQ(exchange.exe_count, 3U);
  EXPECT_EQ(value_of(step, 0, C::Time), 3 * 800);
  EXPECT_EQ(value_of(exchange, 0, C::Time), 3 * 350);
  EXPECT_EQ(value_of(exchange, 1, C::Time), 3 * 300);
  EXPECT_EQ(value_of(exchange, 0, C::Collective), 3 * 200);
  EXPECT_EQ(value_of(exchange, 1, C::Collective), 3 * 100);
  EXPECT_EQ(exchange.summary.execution_time, 3 * 350);
  EXPECT_EQ(value_of(exchange, 1, C::Idle), 3 * 50);
  // Barrier arrivals differ by 100 each time: rank 0 waited 3 × 100.
  EXPECT_EQ(value_of(exchange, 0, C::RealSync), 300);
  EXPECT_EQ(value_of(exchange, 1, C::PotentialSync), 300);
  // Own part of "step" is its user code outside "exchange".
  EXPECT_EQ(step.exclusive[0][index_of(C::Time)], 3 * (800 - 350));
  EXPECT_EQ(tree.executions.size(), 2U * (1 + 3 + 3));
}

TEST(IntervalTreeShape, DescendantsOwnPartsSumToTheRoot) {
  const auto trace = iterations();
  const auto tree = analyze(trace);
  for (std::uint32_t p = 0; p < 2; ++p) {
    for (std::size_t k = 0; k < kAdditiveCount; ++k) {
      std::int64_t own = 0;
      for (const auto &node : tree.nodes) {
        own += node.exclusive[p][k];
      }
      EXPECT_EQ(own, tree.root().values[p][k]);
    }
  }
}

TEST(IntervalTreeShape, IdentityIsFileLineAndId) {
  Program prog(1);
  prog.begin(0, 0);
  // Same id and name, begun at two different lines: two intervals.
  prog.interval_begin(0, 10, 7, "phase", "a.c", 1);
  prog.interval_end(0, 20, 7, "phase");
  prog.interval_begin(0, 30, 7, "phase", "a.c", 2);
  prog.interval_end(0, 40, 7, "phase");
  // Same line, another id: a third interval; same line and id again: merged with the first.
  prog.interval_begin(0, 50, 8, "phase", "a.c", 1);
  prog.interval_end(0, 60, 8, "phase");
  prog.interval_begin(0, 70, 7, "phase", "a.c", 1);
  prog.interval_end(0, 80, 7, "phase");
  prog.end(0, 100);
  const auto trace = prog.finish();
  const auto tree = analyze(trace);
  ASSERT_EQ(tree.root().children.size(), 3U);
  const auto &first = tree.nodes[tree.root().children[0]];
  EXPECT_EQ(first.exe_count, 2U);
  EXPECT_EQ(first.line, 1U);
  EXPECT_EQ(tree.nodes[tree.root().children[1]].line, 2U);
  EXPECT_EQ(tree.nodes[tree.root().children[2]].user_id, 8);
}

TEST(IntervalTreeShape, IntervalsOnASubsetOfProcessesRecordTheSubset) {
  Program prog(3);
  for (int p = 0; p < 3; ++p) {
    prog.begin(p, 0);
    prog.end(p, 1000);
  }
  prog.interval_begin(1, 100, 1, "only one");
  prog.interval_end(1, 300, 1, "only one");
  prog.interval_begin(2, 100, 1, "only one");
  prog.interval_end(2, 200, 1, "only one");
  const auto trace = prog.finish();
  const auto tree = analyze(trace);
  ASSERT_EQ(tree.nodes.size(), 2U);
  const auto &node = tree.nodes[1];
  EXPECT_EQ(node.processes, (std::vector<std::uint32_t>{1, 2}));
  EXPECT_EQ(node.summary.processes, 2U);
  EXPECT_EQ(node.summary.total_time, 400);
  EXPECT_EQ(value_of(node, 2, C::Idle), 100);
  EXPECT_EQ(tree.root().summary.processes, 3U);
}

TEST(IntervalTreeShape, UserRegionsNestAndCanBeSwitchedOff) {
  Program prog(2);
  for (int p = 0; p < 2; ++p) {
    prog.begin(p, 0);
    prog.region_enter(p, 0, "main");
    for (int k = 0; k < 2; ++k) {
      prog.region_enter(p, 100 + 400 * k, "solve");
      prog.barrier(p, 200 + 400 * k, 300 + 400 * k);
      prog.region_leave(p, 400 + 400 * k, "solve");
    }
    prog.region_leave(p, 900, "main");
    prog.end(p, 1000);
  }
  const auto trace = prog.finish();
  auto tree = analyze(trace);
  ASSERT_EQ(tree.nodes.size(), 3U);
  const auto &main = tree.nodes[1];
  EXPECT_EQ(main.name, "main");
  EXPECT_EQ(main.source, IntervalSource::Region);
  EXPECT_EQ(main.file, "app.c");
  const auto &solve = tree.nodes[main.children.at(0)];
  EXPECT_EQ(solve.name, "solve");
  EXPECT_EQ(solve.exe_count, 2U);
  EXPECT_EQ(value_of(solve, 0, C::Collective), 200);
  EXPECT_EQ(tree.child_named(main.id, "solve"), solve.id);

  IntervalOptions markers_only;
  markers_only.sources.regions = false;
  tree = analyze(trace, markers_only);
  EXPECT_EQ(tree.nodes.size(), 1U);
  EXPECT_EQ(value_of(tree.root(), 0, C::Collective), 200);
}

TEST(IntervalTreeShape, DepthCutOffFoldsDeeperIntervalsIntoTheirAncestor) {
  const auto trace = iterations();
  IntervalOptions shallow;
  shallow.max_depth = 1;
  const auto tree = analyze(trace, shallow);
  ASSERT_EQ(tree.nodes.size(), 2U);
  EXPECT_EQ(value_of(tree.nodes[1], 0, C::Collective), 3 * 200);
  EXPECT_TRUE(tree.nodes[1].children.empty());
  IntervalOptions root_only;
  root_only.max_depth = 0;
  EXPECT_EQ(analyze(trace, root_only).nodes.size(), 1U);
}

TEST(IntervalTreeShape, PcontrolPhasesAndUnrecordedTime) {
  Program prog(2);
  for (int p = 0; p < 2; ++p) {
    prog.begin(p, 0);
    prog.call(p, "MPI_Init", 0, 100);
    prog.builder.measurement(prog.loc(p), 150, false);
    prog.builder.measurement(prog.loc(p), 400, true);
    prog.barrier(p, 500, 600 + 100 * p);
    prog.builder.measurement(prog.loc(p), 800, false);
    prog.end(p, 900);
  }
  const auto trace = prog.finish();
  auto tree = analyze(trace);
  ASSERT_EQ(tree.nodes.size(), 2U);
  const auto &phase = tree.nodes[1];
  EXPECT_EQ(phase.source, IntervalSource::Pcontrol);
  EXPECT_EQ(value_of(phase, 0, C::Time), 400);
  EXPECT_EQ(value_of(phase, 1, C::Collective), 200);
  // 150..400 and 800..900 were not recorded.
  EXPECT_EQ(value_of(tree.root(), 0, C::Unrecorded), 250 + 100);
  EXPECT_EQ(value_of(phase, 0, C::Unrecorded), 0);

  IntervalOptions no_pcontrol;
  no_pcontrol.sources.pcontrol = false;
  tree = analyze(trace, no_pcontrol);
  EXPECT_EQ(tree.nodes.size(), 1U);
}

TEST(IntervalTreeShape, BrokenNestingAndUnclosedIntervalsAreReportedNotLost) {
  Program prog(1);
  prog.begin(0, 0);
  prog.interval_begin(0, 10, 1, "outer");
  prog.interval_begin(0, 20, 2, "inner");
  prog.interval_end(0, 30, 1, "outer"); // closes "inner" too
  prog.interval_end(0, 40, 2, "inner"); // nothing left to close
  prog.interval_begin(0, 50, 3, "never ended");
  prog.end(0, 100);
  const auto trace = prog.finish();
  const auto tree = analyze(trace);
  ASSERT_EQ(tree.nodes.size(), 4U);
  EXPECT_EQ(value_of(tree.nodes[2], 0, C::Time), 10);
  EXPECT_EQ(value_of(tree.nodes[3], 0, C::Time), 50); // closed at the last event
  EXPECT_EQ(value_of(tree.root(), 0, C::Time), 100);
  const auto has = [&](const std::string &text) {
    return std::any_of(tree.warnings.begin(), tree.warnings.end(),
                       [&](const std::string &w) { return w.find(text) != std::string::npos; });
  };
  EXPECT_TRUE(has("closed early"));
  EXPECT_TRUE(has("still open"));
}

TEST(IntervalTreeShape, PreorderFollowsTheTreeDownToALevel) {
  const auto trace = iterations();
  const auto tree = analyze(trace);
  EXPECT_EQ(tree.preorder(), (std::vector<std::uint32_t>{0, 1, 2}));
  EXPECT_EQ(tree.preorder(1), (std::vector<std::uint32_t>{0, 1}));
}

TEST(IntervalTreeShape, BadInputGetsAClearError) {
  trace::TraceBuilder empty;
  empty.add_ranks(2);
  const auto trace = empty.finish();
  try {
    (void)analyze_intervals(trace);
    FAIL() << "expected an AnalysisError";
  } catch (const Error &e) {
    EXPECT_EQ(e.kind(), ErrorKind::Analysis);
    EXPECT_NE(std::string(e.what()).find("no CPU location with events"), std::string::npos);
  }
  const auto ok = iterations();
  IntervalOptions bad;
  bad.max_depth = -3;
  try {
    (void)analyze_intervals(ok, bad);
    FAIL() << "expected a UsageError";
  } catch (const Error &e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
  }
}

} // namespace
} // namespace parjava::analysis
