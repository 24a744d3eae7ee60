// Each characteristic of the interval analysis on a small hand-built trace with a known answer
// (times in ns unless written with us()).
#include <gtest/gtest.h>

#include <array>

#include "interval_test_traces.hpp"

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

TEST(IntervalCharacteristics, ExecutionIdleCpuMpiAndLoadImbalance) {
  Program prog(2);
  prog.begin(0, 0);
  prog.call(0, "MPI_Init", 0, 100);
  prog.end(0, 1000);
  prog.begin(1, 0);
  prog.call(1, "MPI_Init", 0, 50);
  prog.end(1, 600);
  const auto trace = prog.finish();

  auto tree = analyze(trace);
  const auto &root = tree.root();
  EXPECT_EQ(root.summary.execution_time, 1000);
  EXPECT_EQ(root.summary.total_time, 2000);
  EXPECT_EQ(value_of(root, 0, C::Time), 1000);
  EXPECT_EQ(value_of(root, 1, C::Time), 600);
  EXPECT_EQ(value_of(root, 0, C::Cpu), 900);
  EXPECT_EQ(value_of(root, 1, C::Cpu), 550);
  EXPECT_EQ(value_of(root, 1, C::Mpi), 50);
  EXPECT_EQ(value_of(root, 1, C::OtherMpi), 50);
  EXPECT_EQ(value_of(root, 0, C::Idle), 0);
  EXPECT_EQ(value_of(root, 1, C::Idle), 400);
  // Load = user code: 900 vs 550.
  EXPECT_EQ(value_of(root, 0, C::LoadImbalance), 0);
  EXPECT_EQ(value_of(root, 1, C::LoadImbalance), 350);
  EXPECT_EQ(root.summary.productive_time, 1450);
  EXPECT_EQ(root.summary.lost_time, 550); // MPI 150 + idle 400

  IntervalOptions literal;
  literal.load = LoadBasis::UserCodeAndMpi; // F6 as printed: equals the idle time here
  tree = analyze(trace, literal);
  EXPECT_EQ(value_of(tree.root(), 1, C::LoadImbalance), 400);
}

TEST(IntervalCharacteristics, CommunicationBucketsCategoriesAndTimeOfStart) {
  Program prog(2);
  for (int p = 0; p < 2; ++p) {
    prog.begin(p, 0);
  }
  prog.send(0, 1, 1, 100, 200);
  prog.recv(1, 0, 1, 100, 250);
  for (int p = 0; p < 2; ++p) {
    prog.collective(p, "MPI_Allreduce", 300, 400, trace::kNoRank, 11);
    prog.collective(p, "MPI_Bcast", 500, 600, 0, 1);
    prog.call(p, "MPI_Comm_rank", 700, 750);
  }
  prog.isend(0, 1, 2, 7, 800, 820);
  prog.wait_send(0, 7, 830, 850);
  prog.irecv(1, 9, 800, 805);
  prog.wait_recv(1, 0, 2, 9, 830, 860);
  for (int p = 0; p < 2; ++p) {
    prog.end(p, 1000);
  }
  const auto trace = prog.finish();
  const auto tree = analyze(trace);
  const auto &root = tree.root();

  EXPECT_EQ(value_of(root, 0, C::PointToPoint), 100 + 20 + 20);
  EXPECT_EQ(value_of(root, 0, C::SendRecv), 140);
  EXPECT_EQ(value_of(root, 0, C::AllToAll), 100);
  EXPECT_EQ(value_of(root, 0, C::Collective), 100);
  EXPECT_EQ(value_of(root, 0, C::OtherMpi), 50);
  EXPECT_EQ(value_of(root, 0, C::Communication), 340);
  EXPECT_EQ(value_of(root, 0, C::Mpi), 390);
  EXPECT_EQ(value_of(root, 0, C::TimeOfStart), 20);
  EXPECT_EQ(value_of(root, 0, C::CategoryBlockingSend), 100);
  EXPECT_EQ(value_of(root, 0, C::CategoryNonblockingSend), 20);
  EXPECT_EQ(value_of(root, 0, C::CategoryBlockingReceiveWait), 20);
  EXPECT_EQ(value_of(root, 0, C::CategoryCollective), 200);
  EXPECT_EQ(value_of(root, 0, C::CategoryOther), 50);

  EXPECT_EQ(value_of(root, 1, C::PointToPoint), 150 + 5 + 30);
  EXPECT_EQ(value_of(root, 1, C::TimeOfStart), 5);
  EXPECT_EQ(value_of(root, 1, C::CategoryNonblockingReceiveTest), 5);
  EXPECT_EQ(value_of(root, 1, C::CategoryBlockingReceiveWait), 150 + 30);
  EXPECT_EQ(root.summary[C::Communication].sum, 340 + 385);
}

// Receive entered at 100, send entered at 400: a late sender.
trace::Trace late_sender() {
  Program prog(2);
  prog.begin(0, 0);
  prog.begin(1, 0);
  prog.send(0, 1, 5, 400, 410);
  prog.recv(1, 0, 5, 100, 420);
  prog.end(0, 1000);
  prog.end(1, 1000);
  return prog.finish();
}

TEST(IntervalCharacteristics, LateSenderRealAndPotentialSynchronisation) {
  const auto trace = late_sender();
  auto tree = analyze(trace);
  EXPECT_EQ(value_of(tree.root(), 1, C::RealSync), 300);
  EXPECT_EQ(value_of(tree.root(), 0, C::RealSync), 0);
  // Default attribution: the late sender carries the potential synchronisation.
  EXPECT_EQ(value_of(tree.root(), 0, C::PotentialSync), 300);
  EXPECT_EQ(value_of(tree.root(), 1, C::PotentialSync), 0);

  IntervalOptions waiting;
  waiting.attribution = SkewAttribution::WaitingProcess;
  tree = analyze(trace, waiting);
  EXPECT_EQ(value_of(tree.root(), 0, C::PotentialSync), 0);
  EXPECT_EQ(value_of(tree.root(), 1, C::PotentialSync), 300);
}

TEST(IntervalCharacteristics, SendRecvAsCallTimeOrMessageTime) {
  const auto trace = late_sender();
  auto tree = analyze(trace);
  EXPECT_EQ(value_of(tree.root(), 0, C::SendRecv), 10);
  EXPECT_EQ(value_of(tree.root(), 1, C::SendRecv), 320);

  IntervalOptions messages;
  messages.sendrecv = SendRecvTime::MessageTime;
  tree = analyze(trace, messages);
  // F9: exit of the receive (420) − entry of the send (400), charged to the receiver.
  EXPECT_EQ(value_of(tree.root(), 1, C::SendRecv), 20);
  EXPECT_EQ(value_of(tree.root(), 0, C::SendRecv), 0);
  EXPECT_EQ(value_of(tree.root(), 1, C::Communication), 20);
}

TEST(IntervalCharacteristics, LateReceiverWaitsOnlyWhenTheSendCompletesAfterThePost) {
  Program prog(2);
  prog.begin(0, 0);
  prog.begin(1, 0);
  // Synchronous send entered at 100 completes at 350, after the receive was posted at 300.
  prog.send(0, 1, 1, 100, 350, "MPI_Ssend");
  prog.recv(1, 0, 1, 300, 360);
  // Eager send completes at 510, before the receive is posted at 700: no waiting.
  prog.send(0, 1, 2, 500, 510);
  prog.recv(1, 0, 2, 700, 710);
  prog.end(0, 1000);
  prog.end(1, 1000);
  const auto trace = prog.finish();
  const auto tree = analyze(trace);
  EXPECT_EQ(value_of(tree.root(), 0, C::RealSync), 200);
  EXPECT_EQ(value_of(tree.root(), 1, C::RealSync), 0);
  EXPECT_EQ(value_of(tree.root(), 0, C::PotentialSync), 0);
}

TEST(IntervalCharacteristics, NonblockingReceiveOverlapAndWait) {
  Program prog(2);
  prog.begin(0, 0);
  prog.begin(1, 0);
  prog.irecv(0, 1, 0, 10);
  prog.wait_recv(0, 1, 3, 1, 500, 600); // computes 10..500 while the receive is pending
  prog.send(1, 0, 3, 550, 560);
  prog.end(0, 1000);
  prog.end(1, 1000);
  const auto trace = prog.finish();
  auto tree = analyze(trace);
  const auto &root = tree.root();
  EXPECT_EQ(value_of(root, 0, C::Overlap), 490);
  EXPECT_EQ(value_of(root, 1, C::Overlap), 0);
  EXPECT_EQ(value_of(root, 0, C::TimeOfStart), 10);
  EXPECT_EQ(value_of(root, 0, C::RealSync), 50); // the wait began before the send
  EXPECT_EQ(value_of(root, 1, C::PotentialSync), 50);

  IntervalOptions waiting;
  waiting.attribution = SkewAttribution::WaitingProcess;
  tree = analyze(trace, waiting);
  EXPECT_EQ(value_of(tree.root(), 0, C::PotentialSync), 50);
  EXPECT_EQ(value_of(tree.root(), 1, C::PotentialSync), 0);
}

TEST(IntervalCharacteristics, CollectiveSkewVariationAndRealWaitByShape) {
  Program prog(3);
  for (int p = 0; p < 3; ++p) {
    prog.begin(p, 0);
  }
  // Barrier: arrivals 0, 100, 300; everyone leaves at 310.
  prog.barrier(0, 0, 310);
  prog.barrier(1, 100, 310);
  prog.barrier(2, 300, 310);
  // Bcast from rank 1 (arrives at 1200): the others wait for the root only.
  prog.collective(0, "MPI_Bcast", 1000, 1250, 1, 1);
  prog.collective(1, "MPI_Bcast", 1200, 1210, 1, 1);
  prog.collective(2, "MPI_Bcast", 1100, 1260, 1, 1);
  // Reduce to rank 0: only the root waits, for the last arrival (2300).
  prog.collective(0, "MPI_Reduce", 2000, 2320, 0, 12);
  prog.collective(1, "MPI_Reduce", 2100, 2110, 0, 12);
  prog.collective(2, "MPI_Reduce", 2300, 2305, 0, 12);
  // Scan: rank r waits for ranks <= r.
  prog.collective(0, "MPI_Scan", 3000, 3200, trace::kNoRank, 13);
  prog.collective(1, "MPI_Scan", 3100, 3200, trace::kNoRank, 13);
  prog.collective(2, "MPI_Scan", 3050, 3200, trace::kNoRank, 13);
  for (int p = 0; p < 3; ++p) {
    prog.end(p, 4000);
  }
  const auto trace = prog.finish();
  const auto tree = analyze(trace);
  const auto &root = tree.root();
  // Real: barrier 300/200/0, bcast 200/0/100, reduce 300/0/0, scan 0/0/50.
  EXPECT_EQ(value_of(root, 0, C::RealSync), 300 + 200 + 300 + 0);
  EXPECT_EQ(value_of(root, 1, C::RealSync), 200 + 0 + 0 + 0);
  EXPECT_EQ(value_of(root, 2, C::RealSync), 0 + 100 + 0 + 50);
  // Potential (late process): own start − earliest start.
  EXPECT_EQ(value_of(root, 0, C::PotentialSync), 0 + 0 + 0 + 0);
  EXPECT_EQ(value_of(root, 1, C::PotentialSync), 100 + 200 + 100 + 100);
  EXPECT_EQ(value_of(root, 2, C::PotentialSync), 300 + 100 + 300 + 50);
  // Variation (late process): own end − earliest end (bcast 1210, reduce 2110).
  EXPECT_EQ(value_of(root, 0, C::TimeVariation), 0 + 40 + 210 + 0);
  EXPECT_EQ(value_of(root, 1, C::TimeVariation), 0 + 0 + 0 + 0);
  EXPECT_EQ(value_of(root, 2, C::TimeVariation), 0 + 50 + 195 + 0);
  // Reduce and Bcast are "CollectiveAll", none is all-to-all.
  EXPECT_EQ(root.summary[C::AllToAll].sum, 0);
  EXPECT_EQ(value_of(root, 1, C::Collective), 210 + 10 + 10 + 100);
}

TEST(IntervalCharacteristics, SequentialIntervalsAreInsufficientParallelism) {
  Program prog(2);
  for (int p = 0; p < 2; ++p) {
    prog.begin(p, 0);
    prog.interval_begin(p, 0, 1, "seq: read input");
    prog.interval_end(p, 400, 1, "seq: read input");
    prog.end(p, 1000);
  }
  const auto trace = prog.finish();
  const auto tree = analyze(trace);
  ASSERT_EQ(tree.nodes.size(), 2U);
  const auto &seq = tree.nodes[1];
  EXPECT_TRUE(seq.sequential);
  EXPECT_EQ(value_of(seq, 0, C::InsufficientParallelism), 200); // 400 · (2 − 1)/2
  EXPECT_EQ(seq.summary.productive_time, 400);                  // one copy of the work
  EXPECT_EQ(seq.summary.lost_insufficient, 400);
  EXPECT_NEAR(seq.summary.efficiency, 0.5, 1e-12);
  EXPECT_EQ(tree.root().summary.lost_insufficient, 400);
  EXPECT_EQ(tree.root().summary.productive_time, 2000 - 400);

  IntervalOptions none;
  none.sequential.clear();
  const auto plain = analyze(trace, none);
  EXPECT_FALSE(plain.nodes[1].sequential);
  EXPECT_EQ(plain.root().summary.lost_insufficient, 0);
}

TEST(IntervalCharacteristics, RepeatedExecutionsAccumulatedOrAlignedPerExecution) {
  Program prog(2);
  const std::array<std::array<Timestamp, 2>, 2> duration{{{100, 300}, {300, 100}}};
  for (int p = 0; p < 2; ++p) {
    prog.begin(p, 0);
    Timestamp t = 0;
    for (Timestamp k = 0; k < 2; ++k) {
      prog.interval_begin(p, 1000 * k, 1, "step");
      t = 1000 * k + duration[static_cast<std::size_t>(p)][static_cast<std::size_t>(k)];
      prog.interval_end(p, t, 1, "step");
    }
    prog.end(p, 3000);
  }
  const auto trace = prog.finish();
  auto tree = analyze(trace);
  ASSERT_EQ(tree.nodes.size(), 2U);
  EXPECT_EQ(tree.nodes[1].exe_count, 2U);
  EXPECT_EQ(tree.nodes[1].summary.execution_time, 400);
  EXPECT_EQ(tree.nodes[1].summary.lost_idle, 0);

  IntervalOptions aligned;
  aligned.execution = ExecutionTimeBasis::PerExecution;
  tree = analyze(trace, aligned);
  EXPECT_EQ(tree.nodes[1].summary.execution_time, 600);
  EXPECT_EQ(value_of(tree.nodes[1], 0, C::Idle), 200);
  EXPECT_EQ(value_of(tree.nodes[1], 1, C::Idle), 200);
}

} // namespace
} // namespace parjava::analysis
