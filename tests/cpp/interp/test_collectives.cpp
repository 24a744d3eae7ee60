// Collectives as point-to-point algorithms: Open MPI's decision, closed-form times under
// Hockney (alpha = 1 us, 1 ns/byte), every algorithm at many sizes, communicator splitting.
#include <gtest/gtest.h>

#include <cmath>

#include "helpers.hpp"
#include "parjava/error.hpp"
#include "parjava/interp/collective_algorithm.hpp"

using namespace parjava::interp;
using namespace parjava::interp::testing;

namespace {
constexpr double us = 1e-6;
constexpr double eps = 1e-12;

parjava::machine::Machine net() { return hockney(1e-6, 1e9); }

Prediction one_collective(const std::string &name, const std::string &args, std::int64_t np,
                          bool contention = true) {
  const auto m = model_of("{}", R"J({"id": 1, "kind": "seq", "children": [2]},
    {"id": 2, "kind": "cfc", "op": ")J" +
                                    name + R"J(", "args": {)J" + args + "}}");
  InterpretOptions o;
  o.processes = np;
  o.endpoint_contention = contention;
  return interpret(m, net(), o);
}
} // namespace

TEST(Collectives, OpenMpiDecisionSpotChecks) {
  // Values read off ompi/mca/coll/tuned/coll_tuned_decision_fixed.c (v4.1.8).
  EXPECT_EQ(decide(Collective::Allreduce, 2, 8), Algorithm::RecursiveDoubling);
  EXPECT_EQ(decide(Collective::Allreduce, 3, 4), Algorithm::Ring);
  EXPECT_EQ(decide(Collective::Allreduce, 64, 1 << 20), Algorithm::Rabenseifner);
  EXPECT_EQ(decide(Collective::Allreduce, 1 << 20, 8), Algorithm::NonOverlapping);
  EXPECT_EQ(decide(Collective::Barrier, 100, 0), Algorithm::Dissemination);
  EXPECT_EQ(decide(Collective::Barrier, 300, 0), Algorithm::Tree);
  EXPECT_EQ(decide(Collective::Barrier, 5, 0), Algorithm::Linear);
  EXPECT_EQ(decide(Collective::Bcast, 3000, 1 << 20), Algorithm::ScatterAllgather);
  EXPECT_EQ(decide(Collective::Bcast, 100, 8), Algorithm::Knomial);
  EXPECT_EQ(decide(Collective::Alltoall, 100, 1024), Algorithm::Linear);
  EXPECT_EQ(decide(Collective::Alltoall, 100, 1 << 20), Algorithm::Pairwise);
  EXPECT_EQ(decide(Collective::Allgather, 2, 8), Algorithm::TwoProc);
  EXPECT_EQ(decide(Collective::Gather, 100, 8), Algorithm::Binomial);
  EXPECT_EQ(decide(Collective::ReduceScatter, 100, 8), Algorithm::NonOverlapping);
  EXPECT_FALSE(algorithm_substitutions().empty());
}

TEST(Collectives, BarrierClosedForms) {
  // dissemination: ceil(log2 P) rounds of alpha
  EXPECT_NEAR(one_collective("MPI_Barrier", R"J("algorithm": "dissemination")J", 5).program_time,
              3 * us, eps);
  EXPECT_NEAR(
      one_collective("MPI_Barrier", R"J("algorithm": "recursive_doubling")J", 8).program_time,
      3 * us, eps);
  // 6 ranks: 4 and 5 report to 0 and 1 (arriving at 1 us); 2 and 3 exchange meanwhile, so
  // 0 and 1 finish their two rounds at 2 us and release 4 and 5 at 3 us; 2 gets 0's second
  // round message at 3 us too.
  const auto p = one_collective("MPI_Barrier", R"J("algorithm": "recursive_doubling")J", 6);
  EXPECT_NEAR(p.end_times[4], 3 * us, eps);
  EXPECT_NEAR(p.end_times[2], 3 * us, eps);
  EXPECT_NEAR(p.end_times[0], 2 * us, eps);
  // double ring: two passes of P messages around the ring
  EXPECT_NEAR(one_collective("MPI_Barrier", R"J("algorithm": "double_ring")J", 4).program_time,
              8 * us, eps);
}

TEST(Collectives, AllreduceClosedForms) {
  // recursive doubling on 8 ranks: 3 exchanges of T(8 B) = 1.008 us
  EXPECT_NEAR(
      one_collective("MPI_Allreduce", R"J("bytes": 8, "algorithm": "recursive_doubling")J", 8)
          .program_time,
      3 * 1.008 * us, eps);
  // 12 ranks: ranks 0..7 fold in pairs (1.008), rank 1 then exchanges with 3 and 5 (to 3.024)
  // while 8..11 run ahead, finds 8's third-round message waiting, sends to 8 (injecting 8 ns)
  // and unfolds to 0: 3.024 + 0.008 + 1.008
  EXPECT_NEAR(
      one_collective("MPI_Allreduce", R"J("bytes": 8, "algorithm": "recursive_doubling")J", 12)
          .program_time,
      4.04 * us, eps);
  // ring on 4 ranks, 4000 B: 2 x 3 rounds of 1000-byte blocks, T = 2 us
  EXPECT_NEAR(
      one_collective("MPI_Allreduce", R"J("bytes": 4000, "algorithm": "ring")J", 4).program_time,
      12 * us, eps);
  // Rabenseifner on 4 ranks, 4000 B: halves 2000, 1000 then doubles 1000, 2000
  EXPECT_NEAR(one_collective("MPI_Allreduce", R"J("bytes": 4000, "algorithm": "rabenseifner")J", 4)
                  .program_time,
              (3 + 2 + 2 + 3) * us, eps);
}

TEST(Collectives, RootedClosedForms) {
  // binomial bcast of 8 B on 8 ranks, no contention: depth 3
  EXPECT_NEAR(one_collective("MPI_Bcast", R"J("bytes": 8, "algorithm": "binomial")J", 8, false)
                  .program_time,
              3 * 1.008 * us, eps);
  // linear gather of 1000 B per rank to root 0 over 4 ranks: the root's link takes them one
  // after the other (2, 3, 4 us)
  EXPECT_NEAR(
      one_collective("MPI_Gather", R"J("bytes": 1000, "algorithm": "linear")J", 4).program_time,
      4 * us, eps);
  // pairwise alltoall of 1000 B: P-1 exchanges of 2 us
  EXPECT_NEAR(
      one_collective("MPI_Alltoall", R"J("bytes": 1000, "algorithm": "pairwise")J", 4).program_time,
      6 * us, eps);
  // chain bcast from root 2 over 5 ranks: 4 hops
  EXPECT_NEAR(one_collective("MPI_Bcast", R"J("bytes": 8, "root": 2, "algorithm": "chain")J", 5)
                  .program_time,
              4 * 1.008 * us, eps);
}

TEST(Collectives, EveryAlgorithmRunsAtEverySize) {
  const std::vector<std::pair<std::string, Collective>> ops = {
      {"MPI_Barrier", Collective::Barrier},
      {"MPI_Bcast", Collective::Bcast},
      {"MPI_Reduce", Collective::Reduce},
      {"MPI_Allreduce", Collective::Allreduce},
      {"MPI_Gather", Collective::Gather},
      {"MPI_Gatherv", Collective::Gatherv},
      {"MPI_Scatter", Collective::Scatter},
      {"MPI_Scatterv", Collective::Scatterv},
      {"MPI_Allgather", Collective::Allgather},
      {"MPI_Allgatherv", Collective::Allgatherv},
      {"MPI_Alltoall", Collective::Alltoall},
      {"MPI_Alltoallv", Collective::Alltoallv},
      {"MPI_Scan", Collective::Scan},
      {"MPI_Exscan", Collective::Exscan},
      {"MPI_Reduce_scatter", Collective::ReduceScatter}};
  std::size_t runs = 0;
  for (const auto &[name, kind] : ops) {
    const bool v = kind == Collective::Gatherv || kind == Collective::Scatterv ||
                   kind == Collective::Allgatherv || kind == Collective::Alltoallv ||
                   kind == Collective::ReduceScatter;
    const bool has_root = kind == Collective::Bcast || kind == Collective::Reduce ||
                          kind == Collective::Gather || kind == Collective::Gatherv ||
                          kind == Collective::Scatter || kind == Collective::Scatterv;
    std::vector<Algorithm> algs = algorithms_for(kind);
    algs.push_back(Algorithm::Auto);
    for (const Algorithm a : algs) {
      for (std::int64_t np : {1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 17, 31, 32}) {
        std::string args = kind == Collective::Barrier
                               ? ""
                               : (v ? R"J("bytes": "8 * (peer + 1)")J" : R"J("bytes": 24)J");
        if (has_root) {
          args += R"J(, "root": )J" + std::to_string(np > 2 ? 2 : 0);
        }
        if (a != Algorithm::Auto) {
          args += std::string(args.empty() ? "" : ", ") + R"J("algorithm": ")J" +
                  std::string(algorithm_name(a)) + "\"";
        }
        SCOPED_TRACE(name + " " + std::string(algorithm_name(a)) + " np=" + std::to_string(np));
        const auto p = one_collective(name, args, np);
        EXPECT_TRUE(p.warnings.empty()) << (p.warnings.empty() ? "" : p.warnings[0]);
        for (double t : p.end_times) {
          EXPECT_TRUE(std::isfinite(t));
        }
        if (np > 1 && kind != Collective::Barrier) {
          EXPECT_GT(p.program_time, 0.0);
        }
        ++runs;
      }
    }
  }
  EXPECT_GT(runs, 700U);
}

TEST(Collectives, CommSplitGroupsByColourAndKey) {
  // colour = rank / 4, key = -rank: in group 0 the local rank 0 is world rank 3. World rank 3
  // is 5 us late; the local rank 1 (world rank 2) receives from local rank 0 in the new
  // communicator, so it ends 5 us + T(8 B) after the split.
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2, 3, 4]},
    {"id": 2, "kind": "cfc", "op": "MPI_Comm_split", "args": {"color": "rank / 4", "key": "-rank",
     "newcomm": "row"}},
    {"id": 3, "kind": "cb", "time": "rank == 3 ? 5e-6 : 0"},
    {"id": 4, "kind": "switch", "value": "rank", "cases": [{"labels": [3]}, {"labels": [2]},
     {"default": true}], "children": [5, 7, 9]},
    {"id": 5, "kind": "seq", "children": [6, 51]},
    {"id": 6, "kind": "cfc", "op": "MPI_Send", "args": {"dest": 1, "bytes": 8, "comm": "row"}},
    {"id": 51, "kind": "break", "target": 4},
    {"id": 7, "kind": "seq", "children": [8, 71]},
    {"id": 8, "kind": "cfc", "op": "MPI_Recv", "args": {"source": 0, "comm": "row",
     "status_source": "s"}},
    {"id": 71, "kind": "break", "target": 4},
    {"id": 9, "kind": "seq", "children": []})J");
  const auto p = run(m, net(), 8);
  const double split = p.end_times[0]; // rank 0 only splits
  EXPECT_GT(split, 0.0);
  EXPECT_NEAR(p.end_times[2], split + 5 * us + 1.008 * us, eps);
  // The sub-communicator's collectives run per group, in parallel.
  const auto groups = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2, 3]},
    {"id": 2, "kind": "cfc", "op": "MPI_Comm_split", "args": {"color": "rank % 2", "newcomm": "half"}},
    {"id": 3, "kind": "cfc", "op": "MPI_Allreduce", "args": {"bytes": 8, "comm": "half",
     "algorithm": "recursive_doubling"}})J");
  const auto q = run(groups, net(), 8);
  EXPECT_NEAR(q.program_time - p.end_times[0], 2 * 1.008 * us, 1e-11);
}

TEST(Collectives, CommDupAndUndefinedColour) {
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2, 3, 4]},
    {"id": 2, "kind": "cfc", "op": "MPI_Comm_dup", "args": {"newcomm": "copy"}},
    {"id": 3, "kind": "cfc", "op": "MPI_Barrier", "args": {"comm": "copy"}},
    {"id": 4, "kind": "cfc", "op": "MPI_Comm_split", "args": {"color": "rank == 0 ? -1 : 0",
     "newcomm": "rest"}})J");
  EXPECT_NO_THROW(run(m, net(), 4));
  const auto bad = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2, 3]},
    {"id": 2, "kind": "cfc", "op": "MPI_Comm_split", "args": {"color": "rank == 0 ? -1 : 0",
     "newcomm": "rest"}},
    {"id": 3, "kind": "cfc", "op": "MPI_Barrier", "args": {"comm": "rest"}})J");
  try {
    run(bad, net(), 4);
    FAIL();
  } catch (const parjava::Error &e) {
    EXPECT_NE(std::string(e.what()).find("MPI_COMM_NULL"), std::string::npos) << e.what();
  }
}

TEST(Collectives, MismatchedCollectivesDeadlockWithAReport) {
  const auto m =
      per_rank("{}", {{op("MPI_Barrier", "")}, {op("MPI_Allreduce", R"J("bytes": 8)J")}});
  try {
    run(m, net(), 2);
    FAIL();
  } catch (const DeadlockError &e) {
    ASSERT_EQ(e.blocked().size(), 2U);
    EXPECT_EQ(e.blocked()[0].operation, "MPI_Barrier");
    EXPECT_EQ(e.blocked()[1].operation, "MPI_Allreduce");
    EXPECT_NE(e.blocked()[1].waiting_for.find("allreduce"), std::string::npos)
        << e.blocked()[1].waiting_for;
  }
}

TEST(Collectives, OverridesByOptionAndReductionCost) {
  const auto m = model_of("{}", R"J({"id": 1, "kind": "seq", "children": [2]},
    {"id": 2, "kind": "cfc", "op": "MPI_Allreduce", "args": {"bytes": 8000}})J");
  InterpretOptions o;
  o.processes = 8;
  o.algorithms["allreduce"] = "recursive_doubling";
  const auto rd = interpret(m, net(), o);
  EXPECT_NEAR(rd.program_time, 3 * 9 * us, eps); // T(8000 B) = 9 us
  o.reduction_seconds_per_byte = 1e-10;          // 0.8 us per received vector
  EXPECT_NEAR(interpret(m, net(), o).program_time, 3 * 9.8 * us, eps);
  o.algorithms["allreduce"] = "binomial";
  EXPECT_THROW(interpret(m, net(), o), parjava::Error);
}

TEST(Collectives, ArraysOfCommunicators) {
  // lv[0] = world (comm_assign), lv[l + 1] = halves of lv[l] split in a loop (8, 4, 2 ranks),
  // then one allreduce per element: 3 + 2 + 1 recursive-doubling rounds of 8 B (T = 1.008 us)
  // instead of 3 x 3 over world, and a last one over world itself (3 rounds) that continues the
  // sequence of lv[0].
  const std::string splits = R"J(
    {"id": 2, "kind": "cfc", "op": "comm_assign", "args": {"comm": "world", "newcomm": "lv[0]"}},
    {"id": 3, "kind": "for", "init": [["l", "0"]], "cond": "l < 2", "update": [["l", "l + 1"]],
     "children": [4]},
    {"id": 4, "kind": "cfc", "op": "MPI_Comm_split", "args": {"comm": "lv[l]",
     "color": "rank / (4 >> l)", "newcomm": "lv[l + 1]"}})J";
  const auto made =
      run(model_of("{}", R"J({"id": 1, "kind": "seq", "children": [2, 3]},)J" + splits), net(), 8);
  const auto m =
      model_of("{}", R"J({"id": 1, "kind": "seq", "children": [2, 3, 5, 7]},)J" + splits + R"J(,
    {"id": 5, "kind": "for", "init": [["k", "0"]], "cond": "k < 3", "update": [["k", "k + 1"]],
     "children": [6]},
    {"id": 6, "kind": "cfc", "op": "MPI_Allreduce", "args": {"bytes": 8, "comm": "lv[k]",
     "algorithm": "recursive_doubling"}},
    {"id": 7, "kind": "cfc", "op": "MPI_Allreduce", "args": {"bytes": 8,
     "algorithm": "recursive_doubling"}})J");
  const auto p = run(m, net(), 8);
  EXPECT_NEAR(p.program_time - made.program_time, (6 + 3) * 1.008 * us, 1e-11);
  // The JSON form round-trips.
  EXPECT_NE(parjava::model::model_to_json(m).find("\"lv[l + 1]\""), std::string::npos);

  // An element used where it was never made, an index outside the table, and a name used both
  // as an array and as a plain communicator are errors that say so.
  const auto unmade = model_of("{}", R"J({"id": 1, "kind": "seq", "children": [2, 3]},
    {"id": 2, "kind": "cfc", "op": "MPI_Comm_dup", "args": {"newcomm": "c[0]"}},
    {"id": 3, "kind": "cfc", "op": "MPI_Barrier", "args": {"comm": "c[1]"}})J");
  try {
    run(unmade, net(), 2);
    FAIL();
  } catch (const parjava::Error &e) {
    EXPECT_NE(std::string(e.what()).find("communicator 'c[1]' is used on rank"), std::string::npos)
        << e.what();
  }
  const auto negative = model_of("{}", R"J({"id": 1, "kind": "seq", "children": [2]},
    {"id": 2, "kind": "cfc", "op": "MPI_Comm_dup", "args": {"newcomm": "c[rank - 1]"}})J");
  try {
    run(negative, net(), 2);
    FAIL();
  } catch (const parjava::Error &e) {
    EXPECT_NE(std::string(e.what()).find("element -1 of the communicator array 'c' on rank 0"),
              std::string::npos)
        << e.what();
  }
  try {
    (void)model_of("{}", R"J({"id": 1, "kind": "seq", "children": [2, 3]},
      {"id": 2, "kind": "cfc", "op": "MPI_Comm_dup", "args": {"newcomm": "c[0]"}},
      {"id": 3, "kind": "cfc", "op": "MPI_Barrier", "args": {"comm": "c"}})J");
    FAIL();
  } catch (const parjava::Error &e) {
    EXPECT_NE(std::string(e.what()).find("communicator 'c' is used without an index here"),
              std::string::npos)
        << e.what();
  }
}
