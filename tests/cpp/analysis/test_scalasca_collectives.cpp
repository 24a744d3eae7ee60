// Scalasca's collective wait states (anchors §3): Wait at Barrier, Barrier Completion, Wait at
// NxN and NxN Completion (full and partial overlap), Late Broadcast, Early Reduce, Early Scan.
#include "scenario.hpp"

using namespace scan_test;

namespace {

std::int64_t idle_of(const std::vector<Finding> &all, PatternId id, std::uint32_t location) {
  std::int64_t total = 0;
  for (const auto &f : all) {
    if (f.pattern == id && f.location == location) {
      total += f.idle;
    }
  }
  return total;
}

} // namespace

TEST(ScalascaCollectives, Barrier) {
  // Begins 1000, 2000, 5000; ends 6000, 6100, 6200.
  Scenario s(3);
  s.collective(0, "MPI_Barrier", 1000, 6000);
  s.collective(1, "MPI_Barrier", 2000, 6100);
  s.collective(2, "MPI_Barrier", 5000, 6200);
  const auto all = s.scan(only({"mpi_barrier_wait", "mpi_barrier_completion"}));
  EXPECT_EQ(idle_of(all, PatternId::WaitAtBarrier, 0), 4000);
  EXPECT_EQ(idle_of(all, PatternId::WaitAtBarrier, 1), 3000);
  EXPECT_EQ(idle_of(all, PatternId::WaitAtBarrier, 2), 0);
  EXPECT_EQ(idle_of(all, PatternId::BarrierCompletion, 0), 0);
  EXPECT_EQ(idle_of(all, PatternId::BarrierCompletion, 1), 100);
  EXPECT_EQ(idle_of(all, PatternId::BarrierCompletion, 2), 200);
  EXPECT_EQ(all.size(), 4U);
  for (const auto &f : of(all, PatternId::WaitAtBarrier)) {
    EXPECT_EQ(f.peer_location, 2U); // the last to arrive
    EXPECT_EQ(f.instance, 0U);
  }
  // eps 3001: only rank 0's wait of 4000 remains.
  EXPECT_EQ(s.scan(only({"mpi_barrier_wait", "mpi_barrier_completion"}, 3001)).size(), 1U);
}

TEST(ScalascaCollectives, CollectiveBeginAndEndAreUsedNotEnterAndLeave) {
  // Scalasca measures from the collective begin record (B_p), inset 10 ns into the call.
  Scenario s(2);
  s.collective(0, "MPI_Barrier", 1000, 6000, -1, 0, 0, 10);
  s.collective(1, "MPI_Barrier", 5000, 6100, -1, 0, 0, 10);
  const auto all = s.scan(only({"mpi_barrier_wait"}));
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(all[0].idle, 4000); // (5000 + 10) - (1000 + 10)
  EXPECT_EQ(all[0].time, 1010);
}

TEST(ScalascaCollectives, NxNFullOverlap) {
  Scenario s(3);
  s.collective(0, "MPI_Allreduce", 1000, 6000);
  s.collective(1, "MPI_Allreduce", 2000, 6300);
  s.collective(2, "MPI_Allreduce", 4000, 6100);
  const auto all = s.scan(only({"wait_at_nxn", "nxn_completion"}));
  EXPECT_EQ(idle_of(all, PatternId::WaitAtNxN, 0), 3000);
  EXPECT_EQ(idle_of(all, PatternId::WaitAtNxN, 1), 2000);
  EXPECT_EQ(idle_of(all, PatternId::NxNCompletion, 1), 300);
  EXPECT_EQ(idle_of(all, PatternId::NxNCompletion, 2), 100);
  EXPECT_EQ(all.size(), 4U);
}

TEST(ScalascaCollectives, NxNPartialOverlapSynchronisesWithTheLatestSender) {
  // Rank 0 leaves (3000) before rank 2 begins (4000): no full overlap. Rank 2 sends nothing,
  // so the latest sender is rank 1 (begin 2000); synchronising: receivers that began before it
  // (rank 0) and rank 1 itself.
  Scenario s(3);
  s.collective(0, "MPI_Allgather", 1000, 3000, -1, 8, 16);
  s.collective(1, "MPI_Allgather", 2000, 3500, -1, 8, 16);
  s.collective(2, "MPI_Allgather", 4000, 4500, -1, 0, 16);
  const auto all = s.scan(only({"wait_at_nxn", "nxn_completion"}));
  EXPECT_EQ(idle_of(all, PatternId::WaitAtNxN, 0), 1000);
  EXPECT_EQ(idle_of(all, PatternId::WaitAtNxN, 2), 0);
  EXPECT_EQ(idle_of(all, PatternId::NxNCompletion, 1), 500); // 3500 - min end of the set
  EXPECT_EQ(all.size(), 2U);
}

TEST(ScalascaCollectives, NoPayloadNoWaitState) {
  Scenario s(2);
  s.collective(0, "MPI_Allreduce", 1000, 6000, -1, 0, 0);
  s.collective(1, "MPI_Allreduce", 5000, 6100, -1, 0, 0);
  EXPECT_TRUE(s.scan(only({"scalasca"})).empty());
}

TEST(ScalascaCollectives, LateBroadcast) {
  // Root rank 1 begins at 5000; rank 0 at 1000, rank 2 at 6000 (after the root: no wait).
  Scenario s(3);
  s.collective(0, "MPI_Bcast", 1000, 7000, 1, 0, 64);
  s.collective(1, "MPI_Bcast", 5000, 5500, 1, 128, 0);
  s.collective(2, "MPI_Bcast", 6000, 7100, 1, 0, 64);
  const auto all = s.scan(only({"late_broadcast"}));
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(all[0].location, 0U);
  EXPECT_EQ(all[0].idle, 4000);
  EXPECT_EQ(all[0].peer_location, 1U);
}

TEST(ScalascaCollectives, EarlyReduceOnTheRootOnly) {
  // Root rank 0 begins at 1000; senders at 2000 and 4000.
  Scenario s(3);
  s.collective(0, "MPI_Reduce", 1000, 5000, 0, 8, 24);
  s.collective(1, "MPI_Reduce", 2000, 4100, 0, 8, 0);
  s.collective(2, "MPI_Reduce", 4000, 4200, 0, 8, 0);
  const auto all = s.scan(only({"early_reduce"}));
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(all[0].location, 0U);
  EXPECT_EQ(all[0].idle, 3000);
  EXPECT_EQ(all[0].peer_location, 2U);
}

TEST(ScalascaCollectives, EarlyScan) {
  // Begins by rank: 3000, 1000, 4000, 2000. T_p = latest begin among ranks <= p:
  // rank 1 waits 2000, rank 3 waits 2000 (for rank 2), ranks 0 and 2 do not.
  Scenario s(4);
  const Timestamp begins[] = {3000, 1000, 4000, 2000};
  for (std::uint32_t r = 0; r < 4; ++r) {
    s.collective(r, "MPI_Scan", begins[r], 9000);
  }
  const auto all = s.scan(only({"early_scan"}));
  ASSERT_EQ(all.size(), 2U);
  EXPECT_EQ(idle_of(all, PatternId::EarlyScan, 1), 2000);
  EXPECT_EQ(idle_of(all, PatternId::EarlyScan, 3), 2000);
}

TEST(ScalascaCollectives, IncompleteInstancesAreSkipped) {
  Scenario s(3);
  s.collective(0, "MPI_Barrier", 1000, 6000);
  s.collective(1, "MPI_Barrier", 5000, 6100); // rank 2 never arrives (killed run)
  EXPECT_TRUE(s.scan(only({"scalasca"})).empty());
}
