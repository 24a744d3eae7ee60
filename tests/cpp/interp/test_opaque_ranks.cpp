// Opaque decisions across ranks: sampled decisions guarding communication are shared by every
// rank, per-rank statistics are applied by rank class (interfaces §1), and arguments measured per
// rank replay the estimation run's values (interfaces §2).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "helpers.hpp"
#include "parjava/error.hpp"

using namespace parjava::interp;
using namespace parjava::interp::testing;

namespace {

constexpr double us = 1e-6;

bool has_warning(const Prediction &p, const std::string &text) {
  for (const auto &w : p.warnings) {
    if (w.find(text) != std::string::npos) {
      return true;
    }
  }
  return false;
}

Prediction run_with(const parjava::model::Model &m, std::int64_t np,
                    OpaqueMode mode = OpaqueMode::Expected, std::uint64_t seed = 1) {
  InterpretOptions o;
  o.processes = np;
  o.opaque = mode;
  o.seed = seed;
  return interpret(m, hockney(1e-6, 1e9), o);
}

} // namespace

TEST(SharedDraws, AnOpaqueBranchGuardingACollectiveNeverDeadlocks) {
  // 20 evaluations of a coin flip guarding an Allreduce, the whole in a function called twice:
  // a per-rank draw would make ranks disagree about the number of Allreduces and deadlock.
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2, 3]},
    {"id": 2, "kind": "ufc", "callee": "step", "args": []},
    {"id": 3, "kind": "ufc", "callee": "step", "args": []},
    {"id": 10, "kind": "for", "init": [["i", "0"]], "cond": "i < 10", "update": [["i", "i + 1"]],
     "children": [11]},
    {"id": 11, "kind": "seq", "children": [12, 15]},
    {"id": 12, "kind": "if", "opaque": {"probability": 0.5}, "children": [13]},
    {"id": 13, "kind": "seq", "children": [14]},
    {"id": 14, "kind": "cfc", "op": "MPI_Allreduce", "args": {"bytes": 8}},
    {"id": 15, "kind": "cb", "time": "1e-6 * (rank + 1)"})J",
                          R"J(, {"name": "step", "params": [], "body": 10})J");
  std::set<std::uint64_t> counts;
  for (std::uint64_t seed = 1; seed <= 1000; ++seed) {
    const auto p = run_with(m, 4, OpaqueMode::Sampled, seed); // throws DeadlockError otherwise
    const std::uint64_t freq = stats(p, 14).freq;
    ASSERT_EQ(freq % 4, 0U) << "seed " << seed; // every rank made the same decisions
    counts.insert(freq / 4);
  }
  EXPECT_GT(counts.size(), 8U); // and the decisions are random draws, not a fixed pattern
}

TEST(SharedDraws, RankLocalDecisionsStayPerRank) {
  // No communication below the branch (the barrier is before it): every rank draws for
  // itself, so processes diverge as real ones do.
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [5, 2]},
    {"id": 5, "kind": "cfc", "op": "MPI_Barrier"},
    {"id": 2, "kind": "for", "init": [["i", "0"]], "cond": "i < 200", "update": [["i", "i + 1"]],
     "children": [3]},
    {"id": 3, "kind": "if", "opaque": {"probability": 0.5}, "children": [4]},
    {"id": 4, "kind": "cb", "time": 1e-6})J");
  const auto p = run_with(m, 4, OpaqueMode::Sampled, 3);
  const std::set<double> ends(p.end_times.begin(), p.end_times.end());
  EXPECT_GT(ends.size(), 1U);
}

TEST(RankClasses, PerRankStatisticsAtTheirNpAndByClassElsewhere) {
  // Measured at np 3: rank 0 always takes the branch, rank 1 half the time, rank 2 never.
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2]},
    {"id": 2, "kind": "for", "init": [["i", "0"]], "cond": "i < 10", "update": [["i", "i + 1"]],
     "children": [3]},
    {"id": 3, "kind": "if", "source": {"file": 0, "line": 7},
     "opaque": {"probability": 0.5, "samples": 30,
                "by_rank": [{"probability": 1.0, "samples": 10},
                            {"probability": 0.5, "samples": 10},
                            {"probability": 0.0, "samples": 10}]},
     "children": [4]},
    {"id": 4, "kind": "cb", "time": 1e-6})J");
  const auto at3 = run(m, free_network(), 3);
  EXPECT_NEAR(at3.end_times[0], 10 * us, 1e-12);
  EXPECT_NEAR(at3.end_times[1], 5 * us, 1e-12);
  EXPECT_NEAR(at3.end_times[2], 0.0, 1e-12);
  EXPECT_FALSE(has_warning(at3, "node 3"));
  // np 5: rank 0 like rank 0, rank 4 like rank 2, ranks 1-3 like the ranks between (rank 1).
  const auto at5 = run(m, free_network(), 5);
  const std::vector<double> expected{10 * us, 5 * us, 5 * us, 5 * us, 0.0};
  for (std::size_t r = 0; r < 5; ++r) {
    EXPECT_NEAR(at5.end_times[r], expected[r], 1e-12) << "rank " << r;
  }
  EXPECT_TRUE(has_warning(at5, "node 3 (if, t.c:7): opaque statistics measured per rank at np 3 "
                               "differ across ranks (probability 0 to 1); at np 5"));
  // np 1: the only rank is rank 0.
  EXPECT_NEAR(run(m, free_network(), 1).program_time, 10 * us, 1e-12);
}

TEST(RankClasses, UnmeasuredRanksAndTwoEntriesUseThePool) {
  // Two entries: the ranks between the first and the last use the pooled 0.4; rank 1 of the
  // estimation run never evaluated the node (samples 0) and uses the pool at np 2 too.
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2]},
    {"id": 2, "kind": "for", "init": [["i", "0"]], "cond": "i < 10", "update": [["i", "i + 1"]],
     "children": [3]},
    {"id": 3, "kind": "if",
     "opaque": {"probability": 0.4, "samples": 10,
                "by_rank": [{"probability": 0.8, "samples": 10}, {"samples": 0}]},
     "children": [4]},
    {"id": 4, "kind": "cb", "time": 1e-6})J");
  const auto at2 = run(m, free_network(), 2);
  EXPECT_NEAR(at2.end_times[0], 8 * us, 1e-12);
  EXPECT_NEAR(at2.end_times[1], 4 * us, 1e-12);
  ASSERT_EQ(at2.warnings.size(), 1U); // said once, however often rank 1 evaluates the node
  EXPECT_TRUE(has_warning(at2, "node 3 (if): rank 1 evaluates an opaque condition that its rank "
                               "class never evaluated in the estimation run at np 2 "
                               "(unmeasured); it uses the statistics pooled over the ranks that "
                               "did (probability 0.4"))
      << at2.warnings[0];
  const auto at3 = run(m, free_network(), 3);
  EXPECT_NEAR(at3.end_times[1], 4 * us, 1e-12);
  EXPECT_NEAR(at3.end_times[2], 4 * us, 1e-12);
  EXPECT_FALSE(has_warning(at3, "differ")); // one measured entry: nothing to disagree
}

TEST(RankClasses, TripsAndSwitchWeights) {
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2, 4]},
    {"id": 2, "kind": "while", "opaque": {"trips": 3, "samples": 2,
     "by_rank": [{"trips": 5, "samples": 1}, {"trips": 1, "samples": 1}]}, "children": [3]},
    {"id": 3, "kind": "cb", "time": 1e-6},
    {"id": 4, "kind": "for", "init": [["i", "0"]], "cond": "i < 4", "update": [["i", "i + 1"]],
     "children": [5]},
    {"id": 5, "kind": "switch", "cases": [{"labels": [0], "weight": 1}, {"default": true, "weight": 1}],
     "samples": 8, "by_rank": [{"weights": [4, 0], "samples": 4}, {"weights": [0, 4], "samples": 4}],
     "children": [6, 8]},
    {"id": 6, "kind": "seq", "children": [7, 10]},
    {"id": 7, "kind": "cb", "time": 10e-6},
    {"id": 10, "kind": "break", "target": 5},
    {"id": 8, "kind": "seq", "children": [9]},
    {"id": 9, "kind": "cb", "time": 100e-6})J");
  const auto p = run(m, free_network(), 2);
  EXPECT_NEAR(p.end_times[0], (5 + 4 * 10) * us, 1e-12);
  EXPECT_NEAR(p.end_times[1], (1 + 4 * 100) * us, 1e-12);
  const std::string once = parjava::model::model_to_json(m);
  EXPECT_EQ(parjava::model::model_to_json(parjava::model::model_from_json(once, "again")), once);
}

TEST(MeasuredArgs, ReplayTheEstimationRunAtItsNp) {
  // Rank 0 sends 4 messages to peers read from data: 1, 2, 1, 2 in the estimation run at np 3.
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2]},
    {"id": 2, "kind": "if-else", "cond": "rank == 0", "children": [3, 6]},
    {"id": 3, "kind": "for", "init": [["i", "0"]], "cond": "i < 4", "update": [["i", "i + 1"]],
     "children": [4]},
    {"id": 4, "kind": "seq", "children": [5]},
    {"id": 5, "kind": "cfc", "op": "MPI_Send", "source": {"file": 0, "line": 9},
     "args": {"dest": {"expr": "1", "by_rank": [[1, 2], [], []]}, "bytes": 8}},
    {"id": 6, "kind": "for", "init": [["i", "0"]], "cond": "i < 2", "update": [["i", "i + 1"]],
     "children": [7]},
    {"id": 7, "kind": "seq", "children": [8]},
    {"id": 8, "kind": "cfc", "op": "MPI_Recv", "args": {"source": "0"}})J");
  const auto at3 = run(m, hockney(1e-6, 1e9), 3);
  EXPECT_EQ(stats(at3, 8).freq, 4U); // ranks 1 and 2 received two each
  EXPECT_TRUE(at3.warnings.empty()); // ranks 1 and 2 never send: their empty lists are fine
  // At np 2 the fallback 1 is used, with a warning; rank 1 receives only two of the four.
  const auto at2 = run(m, hockney(1e-6, 1e9), 2);
  EXPECT_TRUE(has_warning(at2,
                          "node 5 (cfc MPI_Send, t.c:9): argument 'dest' was measured per "
                          "rank at np 3; at np 2 every rank uses its fallback expression '1'"));
  EXPECT_TRUE(has_warning(at2, "never received"));
  const std::string once = parjava::model::model_to_json(m);
  const auto again = parjava::model::model_from_json(once, "again");
  EXPECT_EQ(again.node(5).arg("dest")->by_rank,
            (std::vector<std::vector<std::int64_t>>{{1, 2}, {}, {}}));
  EXPECT_EQ(parjava::model::model_to_json(again), once);
}

TEST(MeasuredArgs, ARankWithoutValuesUsesTheFallbackAndSaysSo) {
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2, 3]},
    {"id": 2, "kind": "cfc", "op": "MPI_Send",
     "args": {"dest": {"expr": "(rank + 1) % size", "by_rank": [[1], [], [0]]}, "bytes": 8}},
    {"id": 3, "kind": "cfc", "op": "MPI_Recv", "args": {"source": "ANY_SOURCE"}})J");
  const auto p = run(m, hockney(1e-6, 1e9), 3);
  EXPECT_EQ(p.warnings.size(), 1U);
  EXPECT_TRUE(has_warning(p, "node 2 (cfc MPI_Send): argument 'dest' was measured per rank at "
                             "np 3, but rank 1 passed no value there; it uses the fallback "
                             "expression '(rank + 1) % size'"))
      << p.warnings[0];
}

TEST(MeasuredArgs, ValidationNamesTheField) {
  const auto bad = [](const std::string &args) {
    try {
      (void)model_of("{}", R"J({"id": 1, "kind": "seq", "children": [2]},
        {"id": 2, "kind": "cfc", "op": "MPI_Send", "args": )J" +
                               args + "}");
    } catch (const parjava::Error &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(bad(R"({"dest": {"expr": "1", "by_rank": [[1.5]]}, "bytes": 8})")
                .find("field 'args.dest', field 'by_rank': must be a list with one list of "
                      "integer values per rank"),
            std::string::npos);
  EXPECT_NE(bad(R"({"dest": {"by_rank": [[1]]}, "bytes": 8})").find("'expr': is required"),
            std::string::npos);
  EXPECT_NE(bad(R"({"dest": {"expr": "1", "by_rank": [[1]], "mean": 2}, "bytes": 8})")
                .find("'mean': unknown field"),
            std::string::npos);
}

TEST(RankClasses, ValidationNamesTheEntry) {
  const auto bad = [](const std::string &opaque) {
    try {
      (void)model_of("{}", R"J({"id": 1, "kind": "seq", "children": [2]},
        {"id": 2, "kind": "if", "opaque": )J" +
                               opaque + R"J(, "children": [3]},
        {"id": 3, "kind": "cb", "time": 1e-6})J");
    } catch (const parjava::Error &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(bad(R"({"probability": 0.5, "by_rank": [{"probability": 1.5, "samples": 3}]})")
                .find("node 2 (if), field 'opaque.by_rank[0].probability': must be within [0, 1]"),
            std::string::npos);
  EXPECT_NE(bad(R"({"probability": 0.5, "by_rank": [{"trips": 2, "samples": 3}]})")
                .find("'trips': unknown field"),
            std::string::npos);
  EXPECT_NE(bad(R"({"probability": 0.5, "by_rank": {"probability": 1}})")
                .find("field 'by_rank': must be a list"),
            std::string::npos);
}
