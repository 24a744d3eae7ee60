// The interval analysis on the real Score-P archives of tests/data/otf2: identities hold
// exactly under every option, and the trees have the structure the archives record.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "interval_test_traces.hpp"
#include "parjava/trace/otf2.hpp"

namespace parjava::analysis {
namespace {

using C = Characteristic;

trace::Trace open_archive(const std::string &name) {
  return trace::open(std::string(PARJAVA_SOURCE_DIR) + "/tests/data/otf2/" + name + "/traces.otf2");
}

std::uint32_t find_node(const IntervalTree &tree, const std::string &name) {
  for (const auto &node : tree.nodes) {
    if (node.name == name) {
      return node.id;
    }
  }
  ADD_FAILURE() << "no interval named '" << name << "'";
  return 0;
}

class EveryArchive : public ::testing::TestWithParam<const char *> {};

TEST_P(EveryArchive, IdentitiesHoldUnderEveryOption) {
  const auto trace = open_archive(GetParam());
  std::vector<IntervalOptions> variants(6);
  variants[1].attribution = SkewAttribution::WaitingProcess;
  variants[2].sendrecv = SendRecvTime::MessageTime;
  variants[3].execution = ExecutionTimeBasis::PerExecution;
  variants[4].productive = ProductiveTime::UserCodeOneMpi;
  variants[4].load = LoadBasis::UserCodeAndMpi;
  variants[5].max_depth = 1;
  variants[5].sources.regions = false;
  for (const auto &options : variants) {
    const auto tree = analyze_intervals(trace, options);
    testing::expect_identities(tree);
    EXPECT_EQ(tree.root().summary.processes, tree.processes.size());
    EXPECT_GT(tree.root().summary.execution_time, 0);
    EXPECT_GE(tree.root().summary.efficiency, 0.0);
    EXPECT_LE(tree.root().summary.efficiency, 1.0);
  }
}

INSTANTIATE_TEST_SUITE_P(ScoreP, EveryArchive,
                         ::testing::Values("pipit-ping-pong", "pipit-ping-pong-papi",
                                           "sstmacro-mpi-coverage", "sst-ember-otf2",
                                           "tracer-stencil4d-64", "fastotf2-mi300-hip"));

TEST(IntervalsOnScoreP, Stencil64HasTheRecordedPhaseLoopAndRegions) {
  const auto trace = open_archive("tracer-stencil4d-64");
  const auto tree = analyze_intervals(trace);
  EXPECT_EQ(tree.processes.size(), 64U);
  // SCOREP_RECORDING_OFF/ON around the loop: one MPI_Pcontrol phase on every rank.
  const auto &phase = tree.nodes[find_node(tree, "MPI_Pcontrol phase")];
  EXPECT_EQ(phase.source, IntervalSource::Pcontrol);
  EXPECT_EQ(phase.level, 1U);
  EXPECT_EQ(phase.summary.processes, 64U);
  const auto &loop = tree.nodes[find_node(tree, "TRACER_Loop")];
  EXPECT_EQ(loop.parent, phase.id);
  EXPECT_EQ(loop.source, IntervalSource::Region);
  EXPECT_EQ(loop.summary.processes, 64U);
  // The wall-time regions are entered by rank 0 only: the subset is recorded.
  const auto &wall = tree.nodes[find_node(tree, "TRACER_WallTime_Loop")];
  EXPECT_EQ(wall.summary.processes, 1U);
  EXPECT_EQ(tree.processes[wall.processes.front()].rank, 0);
  // Halo exchange (Irecv + Send + Waitall) and barriers inside the loop.
  const auto &s = loop.summary;
  EXPECT_GT(s[C::PointToPoint].sum, 0);
  EXPECT_GT(s[C::Collective].sum, 0);
  EXPECT_EQ(s[C::AllToAll].sum, 0);
  EXPECT_GT(s[C::TimeOfStart].sum, 0); // the MPI_Irecv calls
  EXPECT_GT(s[C::RealSync].sum, 0);
  EXPECT_GT(s[C::PotentialSync].sum, 0);
  // 1024 Irecv requests pending while ranks compute and send.
  EXPECT_GT(loop.summary[C::Overlap].sum, 0);
  EXPECT_LT(loop.summary.efficiency, 1.0);
  // Rank 0 ends with regions never left: reported, not dropped.
  EXPECT_FALSE(tree.warnings.empty());
}

TEST(IntervalsOnScoreP, CoverageTraceSplitsCommunicationKinds) {
  const auto trace = open_archive("sstmacro-mpi-coverage");
  const auto tree = analyze_intervals(trace);
  const auto &s = tree.root().summary;
  EXPECT_EQ(s.processes, 10U);
  EXPECT_GT(s[C::AllToAll].sum, 0);   // Allgather, Allreduce, Alltoall
  EXPECT_GT(s[C::Collective].sum, 0); // Bcast, Gather, Reduce, Scatter
  EXPECT_GT(s[C::PointToPoint].sum, 0);
  EXPECT_GT(s[C::TimeOfStart].sum, 0);
  EXPECT_GT(s[C::CategoryNonblockingSend].sum, 0);
  EXPECT_GT(s[C::TimeVariation].sum, 0);
}

TEST(IntervalsOnScoreP, PingPongMainRegionHoldsTheMessages) {
  const auto trace = open_archive("pipit-ping-pong");
  const auto tree = analyze_intervals(trace);
  const auto &main = tree.nodes[find_node(tree, "int main(int, char**)")];
  EXPECT_EQ(main.level, 1U);
  EXPECT_EQ(main.summary.processes, 2U);
  EXPECT_GT(main.summary[C::CategoryBlockingSend].sum, 0);
  EXPECT_GT(main.summary[C::CategoryBlockingReceiveWait].sum, 0);
  EXPECT_GT(main.summary[C::RealSync].sum, 0); // each receive waits for the other's send
  EXPECT_EQ(main.summary[C::Collective].sum, 0);
}

} // namespace
} // namespace parjava::analysis
