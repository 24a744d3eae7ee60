// filter() and time_by_category() on hand-built traces.
#include <gtest/gtest.h>

#include "parjava/error.hpp"
#include "parjava/trace/builder.hpp"
#include "parjava/trace/filter.hpp"
#include "parjava/trace/summary.hpp"

using namespace parjava::trace;

namespace {

std::size_t at(Category c) { return static_cast<std::size_t>(c) - 1; }

// Rank 0: main [0, 100]: MPI_Send [10, 15], MPI_Allreduce [20, 40], MPI_Irecv [50, 52],
// MPI_Wait [60, 70]. Rank 1: main [0, 100]: MPI_Recv [5, 16], MPI_Allreduce [25, 40].
Trace two_ranks() {
  TraceBuilder b;
  b.add_ranks(2);
  const auto w = b.world_communicator();
  const auto main_region = b.region("main");
  b.enter(0, 0, main_region);
  b.enter(0, 10, b.region("MPI_Send"));
  b.send(0, 11, 1, 0, w, 8);
  b.leave(0, 15);
  b.enter(0, 20, b.region("MPI_Allreduce"));
  b.collective_begin(0, 20);
  b.collective_end(0, 40, 11, w, kNoRank, 8, 8);
  b.leave(0, 40);
  b.enter(0, 50, b.region("MPI_Irecv"));
  b.irecv_post(0, 51, 1);
  b.leave(0, 52);
  b.enter(0, 60, b.region("MPI_Wait"));
  b.request_cancelled(0, 65, 1);
  b.leave(0, 70);
  b.leave(0, 100);
  b.enter(1, 0, main_region);
  b.enter(1, 5, b.region("MPI_Recv"));
  b.recv(1, 14, 0, 0, w, 8);
  b.leave(1, 16);
  b.enter(1, 25, b.region("MPI_Allreduce"));
  b.collective_begin(1, 25);
  b.collective_end(1, 40, 11, w, kNoRank, 8, 8);
  b.leave(1, 40);
  b.leave(1, 100);
  return b.finish();
}

} // namespace

TEST(Summary, TimeBySeed004Category) {
  const auto t = two_ranks();
  const auto times = time_by_category(t);
  ASSERT_EQ(times.size(), 2U);
  EXPECT_EQ(times[0][at(Category::BlockingSend)], 5);
  EXPECT_EQ(times[0][at(Category::Collective)], 20);
  EXPECT_EQ(times[0][at(Category::NonblockingReceiveTest)], 2);
  EXPECT_EQ(times[0][at(Category::BlockingReceiveWait)], 10);
  EXPECT_EQ(times[0][at(Category::UserCode)], 100 - 5 - 20 - 2 - 10);
  EXPECT_EQ(times[1][at(Category::BlockingReceiveWait)], 11);
  EXPECT_EQ(times[1][at(Category::Collective)], 15);
  Timestamp total = 0;
  for (const auto v : times[1]) {
    total += v;
  }
  EXPECT_EQ(total, 100);
}

TEST(Filter, TimeWindowCutsMessagesAndCalls) {
  const auto t = two_ranks();
  TraceFilter keep;
  keep.time_window = std::pair<Timestamp, Timestamp>{12, 45};
  const auto f = filter(t, keep);
  for (const auto time : f.events.time) {
    EXPECT_GE(time, 12);
    EXPECT_LT(time, 45);
  }
  // The Send at 11 is outside: the Recv at 14 has no partner any more.
  EXPECT_EQ(f.unmatched.receives, 1U);
  EXPECT_EQ(f.unmatched.sends, 0U);
  ASSERT_EQ(f.collectives.size(), 1U);
  EXPECT_EQ(f.collectives[0].member_count, 2U);
  EXPECT_EQ(f.regions.size(), t.regions.size());
  EXPECT_EQ(t.unmatched.total(), 0U); // the original is untouched
}

TEST(Filter, LocationsAreReindexedButKeepTheirRank) {
  const auto t = two_ranks();
  TraceFilter keep;
  keep.locations = {1};
  const auto f = filter(t, keep);
  ASSERT_EQ(f.location_count(), 1U);
  EXPECT_EQ(f.locations[0].rank, 1);
  EXPECT_EQ(f.locations[0].id, 1U);
  EXPECT_EQ(f.size(), static_cast<std::size_t>(t.location_end(1) - t.location_begin(1)));
  EXPECT_EQ(f.unmatched.receives, 1U);
  EXPECT_EQ(f.collectives[0].member_count, 1U);
  EXPECT_EQ(f.collectives[0].expected, 2U);
}

TEST(Filter, RegionsKeepTheirCallsAndWhatHappensInside) {
  const auto t = two_ranks();
  TraceFilter keep;
  for (std::uint32_t r = 0; r < t.regions.size(); ++r) {
    if (t.regions[r].name == "MPI_Send" || t.regions[r].name == "MPI_Recv") {
      keep.regions.push_back(r);
    }
  }
  const auto f = filter(t, keep);
  EXPECT_EQ(f.size(), 6U); // Enter, Send/Recv, Leave on each rank
  EXPECT_EQ(f.unmatched.total(), 0U);
  keep.regions = {99};
  EXPECT_THROW(filter(t, keep), parjava::Error);
}
