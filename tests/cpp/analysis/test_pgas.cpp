// The PGAS patterns of seed 001 (notes §3) on OpenSHMEM-style traces, with the analyst's worked
// examples of the notes (§6.1 item 19: P1 = 3, P2 = 8, P3 = 4.5, P6 = 7, P8 = 3 literal / 4
// clamped, P11 = 2), in microseconds, and every ambiguity switch.
#include "scenario.hpp"

using namespace scan_test;

namespace {

constexpr Timestamp us = 1000;

std::int64_t total(const std::vector<Finding> &all, PatternId id) {
  std::int64_t sum = 0;
  for (const auto &f : all) {
    if (f.pattern == id) {
      sum += f.idle;
    }
  }
  return sum;
}

// One collective call per rank with the given entry and exit times (us).
Scenario collective(const char *function, const std::vector<double> &entries,
                    const std::vector<double> &exits, std::int32_t root = -1) {
  Scenario s(static_cast<int>(entries.size()));
  for (std::size_t k = 0; k < entries.size(); ++k) {
    s.collective(static_cast<std::uint32_t>(k), function, static_cast<Timestamp>(entries[k] * us),
                 static_cast<Timestamp>(exits[k] * us), root);
  }
  return s;
}

ScanOptions pgas(std::vector<std::string> names) { return only(std::move(names)); }

} // namespace

TEST(Pgas, LockContention) {
  // Rank 0 holds the lock from 1 us to 5 us; rank 1 enters shmem_set_lock at 2 us and gets it
  // at 5.15 us: wasted = r.time - e.time = 5 - 2 = 3 us.
  Scenario s(2);
  const auto set_lock = s.b.region("shmem_set_lock");
  const auto clear_lock = s.b.region("shmem_clear_lock");
  s.b.enter(0, 900, set_lock, s.site);
  s.b.lock_acquire(0, 1 * us, 0, 0xbeef);
  s.b.leave(0, 1 * us);
  s.b.enter(0, 5 * us, clear_lock, s.site);
  s.b.lock_release(0, 5 * us, 0, 0xbeef);
  s.b.leave(0, 5100);
  s.b.enter(1, 2 * us, set_lock, s.site);
  s.b.lock_request(1, 2 * us, 0, 0xbeef);
  s.b.lock_acquire(1, 5150, 0, 0xbeef);
  s.b.leave(1, 5200);
  s.b.enter(1, 6 * us, clear_lock, s.site);
  s.b.lock_release(1, 6 * us, 0, 0xbeef);
  s.b.leave(1, 6100);
  const auto all = s.scan(pgas({"P1"}));
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(all[0].pattern, PatternId::LockContention);
  EXPECT_EQ(all[0].idle, 3 * us);
  EXPECT_EQ(all[0].location, 1U);
  EXPECT_EQ(all[0].peer_location, 0U); // the holder
  EXPECT_TRUE(s.scan(only({"P1"}, 3 * us + 1)).empty());
}

TEST(Pgas, UncontendedLocksAreNotReported) {
  Scenario s(2);
  const auto set_lock = s.b.region("shmem_set_lock");
  const auto clear_lock = s.b.region("shmem_clear_lock");
  s.b.enter(0, 1 * us, set_lock, s.site);
  s.b.lock_acquire(0, 1100, 0, 7);
  s.b.leave(0, 1200);
  s.b.enter(0, 2 * us, clear_lock, s.site);
  s.b.lock_release(0, 2 * us, 0, 7);
  s.b.leave(0, 2100);
  s.b.enter(1, 3 * us, set_lock, s.site); // after the release
  s.b.lock_acquire(1, 3100, 0, 7);
  s.b.leave(1, 3200);
  EXPECT_TRUE(s.scan(pgas({"P1"})).empty());
}

TEST(Pgas, EntrySynchronisationWithAllsync) {
  auto s = collective("shmem_broadcast64", {0, 1, 3, 4}, {10, 10.5, 11, 12}, 0);
  auto options = pgas({"P2", "P3"});
  options.pgas.entry = PgasOptions::Sync::All;
  options.pgas.exit = PgasOptions::Sync::All;
  const auto all = s.scan(options);
  EXPECT_EQ(total(all, PatternId::CollectiveEntrySync), 8 * us);
  EXPECT_EQ(total(all, PatternId::CollectiveExitSync), 4500); // literal: max(exit) - exit
  options.pgas.completion = PgasOptions::Completion::FromFirstExit;
  EXPECT_EQ(total(s.scan(options), PatternId::CollectiveExitSync), 3500); // exit - min(exit)
  // With the default MYSYNC the ALLSYNC patterns do not apply.
  EXPECT_TRUE(s.scan(pgas({"P2", "P3"})).empty());
}

TEST(Pgas, BarrierWaitAndCompletion) {
  auto s = collective("shmem_barrier_all", {0, 1, 3, 4}, {10, 10.5, 11, 12});
  const auto all = s.scan(pgas({"pgas"}));
  EXPECT_EQ(total(all, PatternId::PgasWaitAtBarrier), 8 * us);
  EXPECT_EQ(total(all, PatternId::PgasBarrierCompletion), 4500);
  EXPECT_EQ(of(all, PatternId::PgasWaitAtBarrier).size(), 3U); // the last arriver waits 0
  // eps: only the 4 us and 3 us waits and the 2 us completion term reach 2 us.
  const auto big = s.scan(only({"P4", "P5"}, 2 * us));
  EXPECT_EQ(big.size(), 3U);
}

TEST(Pgas, LateBroadcast) {
  // Root thread 2 enters at 5; the others at 1, 2, 6: wasted = (5-1) + (5-2) = 7.
  auto s = collective("shmem_broadcast32", {1, 2, 5, 6}, {9, 9, 9, 9}, 2);
  const auto all = s.scan(pgas({"P6"}));
  ASSERT_EQ(all.size(), 2U);
  EXPECT_EQ(total(all, PatternId::PgasLateBroadcast), 7 * us);
  for (const auto &f : all) {
    EXPECT_EQ(f.peer_location, 2U);
  }
}

TEST(Pgas, EarlyGatherLiteralAndEarlyRoot) {
  // MPI_Reduce analysed as a gathering PGAS collective; root 0 enters at 5, others at 1 and 3.
  auto s = collective("MPI_Reduce", {5, 1, 3}, {9, 9, 9}, 0);
  auto options = pgas({"P7"});
  EXPECT_TRUE(s.scan(options).empty()); // MPI collectives are analysed only on request
  options.pgas.include_mpi_collectives = true;
  EXPECT_EQ(total(s.scan(options), PatternId::EarlyGather), (4 + 2) * us); // late root
  options.pgas.gather_root = PgasOptions::GatherRoot::Early;
  EXPECT_TRUE(s.scan(options).empty()); // the root entered last: it waited for nobody
  auto early = collective("MPI_Reduce", {1, 2, 5}, {9, 9, 9}, 0);
  const auto all = early.scan(options);
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(all[0].idle, 4 * us); // the root waits for the latest sender
  EXPECT_EQ(all[0].location, 0U);
}

TEST(Pgas, EarlyPrefixReductionLiteralAndClamped) {
  // Entries by thread 0..3: 3, 1, 4, 2. Terms: t1 = 3-1 = 2, t2 = 3-4 = -1, t3 = 4-2 = 2.
  auto s = collective("MPI_Scan", {3, 1, 4, 2}, {9, 9, 9, 9});
  auto options = pgas({"P8"});
  options.pgas.include_mpi_collectives = true;
  const auto literal = s.scan(options);
  EXPECT_EQ(literal.size(), 3U);
  EXPECT_EQ(total(literal, PatternId::EarlyPrefixReduction), 3 * us);
  for (const auto &f : literal) {
    EXPECT_EQ(f.idle, f.location == 2 ? -1 * us : 2 * us);
    EXPECT_EQ((f.flags & kNegativeTerm) != 0, f.location == 2);
  }
  options.pgas.prefix_clamp = true;
  EXPECT_EQ(total(s.scan(options), PatternId::EarlyPrefixReduction), 4 * us);
  // Entries in thread order: no inversion, the pattern fails.
  auto ordered = collective("MPI_Scan", {1, 2, 3, 4}, {9, 9, 9, 9});
  options.pgas.prefix_clamp = false;
  EXPECT_TRUE(ordered.scan(options).empty());
}

TEST(Pgas, WaitInsideTheCollective) {
  // The notes' example, root = thread 4: s2=0, s4=1, e2=3, s3=4, s1=5, e3=6, e1=7, s0=8, e4=10,
  // e0=11. The root is alone in [3, 4] and [7, 8]: 2.
  auto s = collective("shmem_broadcast64", {8, 5, 0, 4, 1}, {11, 7, 3, 6, 10}, 4);
  const auto all = s.scan(pgas({"P11"}));
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(all[0].location, 4U);
  EXPECT_EQ(all[0].idle, 2 * us);
  auto options = pgas({"P11"});
  options.pgas.alone = PgasOptions::Alone::Every;
  const auto every = s.scan(options);
  // Thread 2 is alone in [0, 1], thread 0 in [10, 11]; the others never are.
  EXPECT_EQ(total(every, PatternId::WaitInsideCollective), 4 * us);
  EXPECT_EQ(every.size(), 3U);
}

TEST(Pgas, ManyToManyIsASuspicion) {
  auto s = collective("shmem_collect64", {0, 1, 3, 4}, {10, 10.5, 11, 12});
  const auto all = s.scan(pgas({"P9", "P10"}));
  EXPECT_EQ(total(all, PatternId::ManyToManyEntrySync), 8 * us);
  EXPECT_EQ(total(all, PatternId::ManyToManyExitSync), 4500);
  for (const auto &f : all) {
    EXPECT_NE(f.flags & kSuspected, 0);
  }
}

TEST(Pgas, CollectiveAllocationWaitsForTheAllocatingThread) {
  auto s = collective("shmem_malloc", {5, 1, 2}, {9, 9, 9});
  auto options = pgas({"P12"});
  EXPECT_EQ(total(s.scan(options), PatternId::WaitInCollectiveAllocation), 7 * us);
  options.pgas.allocation_root = 2;
  EXPECT_EQ(total(s.scan(options), PatternId::WaitInCollectiveAllocation), 1 * us);
}

TEST(Pgas, EqualEntriesAreNotSynchronisationLoss) {
  auto s = collective("shmem_barrier_all", {1, 1, 1}, {2, 2, 2});
  EXPECT_TRUE(s.scan(pgas({"pgas"})).empty());
}
