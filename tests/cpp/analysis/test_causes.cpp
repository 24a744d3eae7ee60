// Critical path and delay costs on hand-built traces, against values worked out by hand from
// the published definitions (Böhme et al. IPDPS 2012 and ICPP 2010; anchors §6 and §7).
#include <gtest/gtest.h>

#include <string>

#include "parjava/analysis/causes/causes.hpp"
#include "scenario.hpp"

namespace {

using parjava::analysis::analyze_causes;
using parjava::analysis::CauseAnalysis;
using parjava::analysis::DelayCost;
using scan_test::Scenario;

const CauseAnalysis &analyse(Scenario &s, CauseAnalysis &out) {
  s.trace = s.b.finish();
  s.built = true;
  out = analyze_causes(s.trace);
  return out;
}

// The name of an activity's region ("compute", "MPI_Recv", "" outside regions).
std::string region_of(const Scenario &s, const CauseAnalysis &c, std::uint32_t activity) {
  const auto r = c.activities[activity].region;
  return r < s.trace.regions.size() ? s.trace.regions[r].name : "";
}

// Costs summed per (rank, region name, computation?).
double cost(const Scenario &s, const CauseAnalysis &c, std::int32_t rank, const std::string &region,
            bool computation, bool long_term) {
  double total = 0.0;
  for (const DelayCost &d : c.delays.costs) {
    if (s.trace.locations[d.location].rank == rank && region_of(s, c, d.activity) == region &&
        c.activities[d.activity].computation == computation) {
      total += long_term ? d.long_term : d.short_term;
    }
  }
  return total;
}

// Late Sender: rank 0 computes 300 ns before sending, rank 1 100 ns before receiving.
TEST(Causes, LateSenderPathAndShortTermCost) {
  Scenario s(2);
  s.compute(0, 0, 300);
  s.send(0, "MPI_Send", 300, 310, 1, 8);
  s.compute(1, 0, 100);
  s.recv(1, 100, 320, 0, 8);
  s.compute(1, 320, 400);
  CauseAnalysis c;
  analyse(s, c);

  const auto &path = c.critical_path;
  ASSERT_EQ(path.segments.size(), 2U);
  EXPECT_EQ(path.segments[0].location, 0U);
  EXPECT_EQ(path.segments[0].begin, 0);
  EXPECT_EQ(path.segments[0].end, 300);
  EXPECT_EQ(path.segments[1].location, 1U);
  EXPECT_EQ(path.segments[1].begin, 300);
  EXPECT_EQ(path.segments[1].end, 400);
  EXPECT_EQ(path.length, 400); // the makespan, exactly
  // Call path "compute": 380 ns on the path, (300 + 100 + 80) / 2 = 240 per process, so 140
  // imbalance; MPI_Recv: 20 on the path, (220 - 200 waiting) / 2 = 10, so 10.
  EXPECT_DOUBLE_EQ(path.imbalance_total, 150.0);

  EXPECT_EQ(c.delays.wait_states, 1U);
  EXPECT_DOUBLE_EQ(c.delays.total_wait, 200.0);
  EXPECT_DOUBLE_EQ(c.delays.unattributed, 0.0);
  // d(compute) = 300 - 100 = 200 = D, w = 200: all of it on rank 0's computation.
  EXPECT_DOUBLE_EQ(cost(s, c, 0, "compute", true, false), 200.0);
  EXPECT_DOUBLE_EQ(cost(s, c, 0, "compute", true, true), 0.0);
  ASSERT_EQ(c.delays.costs.size(), 1U);
}

// A chain: rank 0 delays rank 1, whose waiting delays rank 2 (propagation, long-term costs).
TEST(Causes, PropagatedWaitingIsLongTermCostOfTheFirstCause) {
  Scenario s(3);
  s.compute(0, 0, 300);
  s.send(0, "MPI_Send", 300, 310, 1, 8);
  s.compute(1, 0, 100);
  s.recv(1, 100, 320, 0, 8);
  s.send(1, "MPI_Send", 320, 330, 2, 8);
  s.compute(2, 0, 100);
  s.recv(2, 100, 340, 1, 8);
  CauseAnalysis c;
  analyse(s, c);

  const auto &path = c.critical_path;
  ASSERT_EQ(path.segments.size(), 3U);
  EXPECT_EQ(path.segments[0].location, 0U);
  EXPECT_EQ(path.segments[1].location, 1U);
  EXPECT_EQ(path.segments[1].begin, 300);
  EXPECT_EQ(path.segments[2].location, 2U);
  EXPECT_EQ(path.segments[2].begin, 320);
  EXPECT_EQ(path.length, 340);

  // Wait of rank 2 (220 ns, 100..320) on rank 1's interval [0, 320]: compute 100 = rank 2's,
  // MPI_Recv 220 - 200 waiting = 20 excess; Wp = 200, so D + Wp = 220 = w: the receive's 20 is
  // short-term, and the 200 of waiting inside is passed on (rc = 200) to rank 1's wait state.
  // That one (200 ns): d(compute) = 300 - 100 = 200 on rank 0, short-term 200, long-term
  // 200 * rc / (D + Wp) = 200.
  EXPECT_EQ(c.delays.wait_states, 2U);
  EXPECT_DOUBLE_EQ(c.delays.total_wait, 420.0);
  EXPECT_DOUBLE_EQ(cost(s, c, 1, "MPI_Recv", false, false), 20.0);
  EXPECT_DOUBLE_EQ(cost(s, c, 0, "compute", true, false), 200.0);
  EXPECT_DOUBLE_EQ(cost(s, c, 0, "compute", true, true), 200.0);
  EXPECT_DOUBLE_EQ(c.delays.unattributed, 0.0);
}

// Wait at Barrier: rank 2 arrives last; the collective's costs are not capped at the wait.
TEST(Causes, BarrierWaitsChargeTheLastArrival) {
  Scenario s(3);
  const parjava::trace::Timestamp arrive[] = {100, 200, 400};
  for (std::uint32_t r = 0; r < 3; ++r) {
    s.compute(r, 0, arrive[r]);
    s.collective(r, "MPI_Barrier", arrive[r], 410);
  }
  CauseAnalysis c;
  analyse(s, c);

  const auto &path = c.critical_path;
  ASSERT_EQ(path.segments.size(), 2U);
  EXPECT_EQ(path.segments[0].location, 2U);
  EXPECT_EQ(path.segments[0].end, 400);
  EXPECT_EQ(path.length, 410);
  // Rank 0 waits 300 (d = 400 - 100), rank 1 waits 200 (d = 400 - 200): 500 on rank 2.
  EXPECT_DOUBLE_EQ(c.delays.total_wait, 500.0);
  EXPECT_DOUBLE_EQ(cost(s, c, 2, "compute", true, false), 500.0);
  EXPECT_DOUBLE_EQ(c.delays.unattributed, 0.0);
}

// Computation in the same region is compared between the two sides even when the calls
// around it differ (a sender against its receiver), and the excess lands on the computation
// before the call where the late process spent it, not on its other computation.
TEST(Causes, ExcessLandsOnTheComputationThatDiffers) {
  Scenario s(2);
  const auto early = s.b.add_callsite("solver.c", 10, "step");
  // Both ranks: 100 ns, then an Allreduce at solver.c:10 (balanced), then rank 0 computes
  // 250 ns and rank 1 50 ns before the exchange.
  for (std::uint32_t r = 0; r < 2; ++r) {
    s.compute(r, 0, 100);
    s.b.enter(r, 100, s.b.region("MPI_Allreduce"), early);
    s.b.collective_begin(r, 100);
    s.b.collective_end(r, 110, 0, s.world, -1, 8, 8);
    s.b.leave(r, 110);
  }
  s.compute(0, 110, 360);
  s.send(0, "MPI_Send", 360, 370, 1, 8);
  s.compute(1, 110, 160);
  s.recv(1, 160, 380, 0, 8);
  CauseAnalysis c;
  analyse(s, c);

  ASSERT_EQ(c.delays.costs.size(), 1U);
  const DelayCost &d = c.delays.costs[0];
  EXPECT_EQ(s.trace.locations[d.location].rank, 0);
  const auto &a = c.activities[d.activity];
  EXPECT_TRUE(a.computation);
  EXPECT_EQ(a.previous_callsite, early); // after MPI_Allreduce at solver.c:10
  EXPECT_EQ(a.callsite, s.site);         // before MPI_Send at solver.c:42
  EXPECT_DOUBLE_EQ(d.short_term, 200.0);
  EXPECT_EQ(c.critical_path.length, 380);
}

// Böhme's d(c) compares call paths: rank 0's and rank 1's "compute" are the same call path
// although one ends at MPI_Send and the other at MPI_Recv, so only rank 0's extra region is
// excess (a comparison per call site would charge a third of the wait to "compute").
TEST(Causes, SameRegionBeforeDifferentCallsIsNoExcess) {
  Scenario s(2);
  s.compute(0, 0, 100);
  s.b.enter(0, 100, s.b.region("extra"));
  s.b.leave(0, 300);
  s.send(0, "MPI_Send", 300, 310, 1, 8);
  s.compute(1, 0, 100);
  s.recv(1, 100, 320, 0, 8);
  CauseAnalysis c;
  analyse(s, c);
  EXPECT_DOUBLE_EQ(c.delays.total_wait, 200.0);
  EXPECT_DOUBLE_EQ(cost(s, c, 0, "extra", true, false), 200.0);
  EXPECT_DOUBLE_EQ(cost(s, c, 0, "compute", true, false), 0.0);
}

// MPI_Init synchronises when the last process has entered it: a process that leaves it late
// has more MPI_Init in its interval, and the waiting that causes is charged to that call.
TEST(Causes, LateInitExitIsChargedToMpiInit) {
  Scenario s(2);
  s.b.enter(0, 0, s.b.region("MPI_Init"), s.site);
  s.b.leave(0, 100);
  s.b.enter(1, 10, s.b.region("MPI_Init"), s.site);
  s.b.leave(1, 300);
  s.recv(0, 100, 310, 1, 8);
  s.send(1, "MPI_Send", 300, 310, 0, 8);
  CauseAnalysis c;
  analyse(s, c);
  EXPECT_DOUBLE_EQ(c.delays.total_wait, 200.0);
  // From the sync point at 10: rank 1 spent 290 ns in MPI_Init, rank 0 90 ns.
  EXPECT_DOUBLE_EQ(cost(s, c, 1, "MPI_Init", false, false), 200.0);
  EXPECT_DOUBLE_EQ(c.delays.unattributed, 0.0);
}

// A collective over everyone synchronises even when nobody waited in it: what rank 0 did
// before the Allreduce (its "extra" region) cannot have caused the wait after it.
TEST(Causes, CollectiveWithoutWaitingStartsTheInterval) {
  Scenario s(2);
  s.b.enter(0, 0, s.b.region("extra"));
  s.b.leave(0, 50);
  s.compute(0, 50, 100);
  s.compute(1, 0, 100);
  for (std::uint32_t r = 0; r < 2; ++r) {
    s.collective(r, "MPI_Allreduce", 100, 110);
  }
  s.compute(0, 110, 210);
  s.send(0, "MPI_Send", 210, 220, 1, 8);
  s.compute(1, 110, 160);
  s.recv(1, 160, 220, 0, 8);
  CauseAnalysis c;
  analyse(s, c);
  EXPECT_DOUBLE_EQ(c.delays.total_wait, 50.0);
  EXPECT_DOUBLE_EQ(cost(s, c, 0, "compute", true, false), 50.0);
  EXPECT_DOUBLE_EQ(cost(s, c, 0, "extra", true, false), 0.0);
}

TEST(Causes, TraceWithoutProcessesIsAUsageError) {
  parjava::trace::TraceBuilder b;
  b.add_location(-1, 0, "host thread");
  const auto t = b.finish();
  EXPECT_THROW((void)analyze_causes(t), parjava::Error);
}

} // namespace
