// Parallel analysis helpers (partition.hpp) on a hand-built trace written as OTF2: ownership
// blocks, the part's reading, what the replay selects, and that merging a part with the
// events the others select gives the whole trace's matching on the part's locations.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "parjava/error.hpp"
#include "parjava/trace/builder.hpp"
#include "parjava/trace/otf2.hpp"
#include "parjava/trace/partition.hpp"

using namespace parjava::trace;

namespace {

// Three ranks: 0 sends to 2 (MPI_Send [10, 15] -> MPI_Recv [5, 30] on 2); 1 computes; all
// three meet in an MPI_Allreduce [40.., 60].
Trace three_ranks() {
  TraceBuilder b;
  b.add_ranks(3);
  const auto w = b.world_communicator();
  const auto main_region = b.region("main");
  const auto allreduce = b.region("MPI_Allreduce");
  for (std::uint32_t r = 0; r < 3; ++r) {
    b.enter(r, 0, main_region);
  }
  b.enter(0, 10, b.region("MPI_Send"));
  b.send(0, 11, 2, 7, w, 64);
  b.leave(0, 15);
  b.enter(2, 5, b.region("MPI_Recv"));
  b.recv(2, 29, 0, 7, w, 64);
  b.leave(2, 30);
  for (std::uint32_t r = 0; r < 3; ++r) {
    b.enter(r, 40 + r, allreduce);
    b.collective_begin(r, 40 + r);
    b.collective_end(r, 60, 11, w, kNoRank, 8, 8);
    b.leave(r, 60);
    b.leave(r, 100);
  }
  return b.finish();
}

ReplayEvents gather(const std::vector<Trace> &parts, std::uint32_t to) {
  ReplayEvents r;
  for (std::uint32_t p = 0; p < parts.size(); ++p) {
    const auto &t = parts[p];
    const auto selection = replay_selection(t, p, static_cast<std::uint32_t>(parts.size()));
    for (const auto i : selection[to]) {
      const auto u = static_cast<std::size_t>(i);
      const auto &e = t.events;
      r.time.push_back(e.time[u]);
      r.kind.push_back(e.kind[u]);
      r.location.push_back(e.location[u]);
      r.region.push_back(e.region[u]);
      r.peer.push_back(e.peer[u]);
      r.tag.push_back(e.tag[u]);
      r.comm.push_back(e.comm[u]);
      r.bytes.push_back(e.bytes[u]);
      r.aux.push_back(e.aux[u]);
      r.callsite.push_back(e.callsite[u]);
      r.position.push_back(static_cast<std::uint64_t>(i - t.location_begin(e.location[u])));
    }
  }
  return r;
}

} // namespace

TEST(Partition, ContiguousBlocksOfProcesses) {
  const auto t = three_ranks();
  const PartitionPlan two(t.locations, 2);
  EXPECT_EQ(two.owner_of_rank(0), 0U);
  EXPECT_EQ(two.owner_of_rank(1), 0U);
  EXPECT_EQ(two.owner_of_rank(2), 1U);
  EXPECT_EQ(two.owner_of_rank(-1), 0U);
  const PartitionPlan five(t.locations, 5); // more parts than processes: some own nothing
  EXPECT_EQ(five.owner_of_rank(0), 0U);
  EXPECT_EQ(five.owner_of_rank(1), 1U);
  EXPECT_EQ(five.owner_of_rank(2), 3U);
}

TEST(Partition, PartsReadTheirLocationsAndMergeToTheWholeMatching) {
  const auto dir =
      std::filesystem::temp_directory_path() /
      ("parjava-partition-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::remove_all(dir);
  const auto whole = three_ranks();
  write(whole, dir.string());
  const auto anchor = (dir / "traces.otf2").string();
  std::vector<Trace> parts;
  parts.push_back(open_part(anchor, 0, 2));
  parts.push_back(open_part(anchor, 1, 2));
  EXPECT_EQ(parts[0].size(), whole.location_end(1) - whole.location_begin(0));
  EXPECT_EQ(parts[1].size(), whole.location_end(2) - whole.location_begin(2));
  EXPECT_THROW(open_part(anchor, 2, 2), parjava::Error);

  // Part 1 needs rank 0's send with its MPI_Send, and ranks 0 and 1's collective members
  // with their Begin and their MPI_Allreduce: 3 + 2 * 4 events.
  const auto selected = replay_selection(parts[0], 0, 2);
  EXPECT_TRUE(selected[0].empty());
  EXPECT_EQ(selected[1].size(), 11U);

  for (std::uint32_t p = 0; p < 2; ++p) {
    auto merged = parts[p];
    std::vector<std::uint64_t> positions;
    const auto received = gather(parts, p);
    merge_part(merged, received, p, 2, positions);
    ASSERT_EQ(positions.size(), received.time.size());
    // A location's own events come first; its received ones follow, their positions in
    // `positions` location by location.
    std::vector<std::uint64_t> first_received(merged.location_count() + 1, 0);
    for (std::uint32_t l = 0; l < merged.location_count(); ++l) {
      const auto own = parts[p].location_end(l) - parts[p].location_begin(l);
      first_received[l + 1] =
          first_received[l] +
          static_cast<std::uint64_t>(merged.location_end(l) - merged.location_begin(l) - own);
    }
    auto position = [&](EventIndex event) {
      const auto l = merged.events.location[static_cast<std::size_t>(event)];
      const auto k = static_cast<std::uint64_t>(event - merged.location_begin(l));
      const auto own =
          static_cast<std::uint64_t>(parts[p].location_end(l) - parts[p].location_begin(l));
      return k < own ? k : positions[first_received[l] + k - own];
    };
    // Every message and collective end of an own location pairs with the events of the
    // same positions as in the whole trace.
    for (std::uint32_t l = 0; l < merged.location_count(); ++l) {
      if (PartitionPlan(merged.locations, 2).owner(merged.locations[l]) != p) {
        continue;
      }
      ASSERT_EQ(merged.location_end(l) - merged.location_begin(l),
                whole.location_end(l) - whole.location_begin(l));
      for (auto i = merged.location_begin(l); i < merged.location_end(l); ++i) {
        const auto w = whole.location_begin(l) + (i - merged.location_begin(l));
        const auto m = merged.events.match[static_cast<std::size_t>(i)];
        const auto expected = whole.events.match[static_cast<std::size_t>(w)];
        if (expected == kNoEvent) {
          EXPECT_EQ(m, kNoEvent);
          continue;
        }
        ASSERT_NE(m, kNoEvent);
        const auto ml = merged.events.location[static_cast<std::size_t>(m)];
        EXPECT_EQ(ml, whole.events.location[static_cast<std::size_t>(expected)]);
        EXPECT_EQ(position(m), static_cast<std::uint64_t>(expected - whole.location_begin(ml)));
      }
    }
    EXPECT_EQ(merged.collectives.size(), 1U);
    EXPECT_EQ(merged.collectives[0].member_count, 3U);
  }
  // A received event of an own location is refused.
  auto again = parts[1];
  std::vector<std::uint64_t> positions;
  EXPECT_THROW(merge_part(again, gather(parts, 0), 1, 2, positions), parjava::Error);
  std::filesystem::remove_all(dir);
}

namespace {

// Four ranks in two parts (0, 1 | 2, 3): an MPI_Allreduce whose begins are 10, 30, 20, 30 and
// ends 50, 45, 55, 60 (rank 1 is the latest to begin, tied with 3 but first in rank order, and
// the first to end; 0 begins first; 3 ends last; of the receivers that began before the
// latest sender, 0 ends first), then an MPI_Scan (a prefix: travels whole).
Trace four_ranks() {
  TraceBuilder b;
  b.add_ranks(4);
  const auto w = b.world_communicator();
  const auto allreduce = b.region("MPI_Allreduce");
  const auto scan = b.region("MPI_Scan");
  const std::int64_t begins[] = {10, 30, 20, 30};
  const std::int64_t ends[] = {50, 45, 55, 60};
  for (std::uint32_t r = 0; r < 4; ++r) {
    b.enter(r, begins[r] - 1, allreduce);
    b.collective_begin(r, begins[r]);
    b.collective_end(r, ends[r], 11, w, kNoRank, 8, 8);
    b.leave(r, ends[r] + 1);
    b.enter(r, 100, scan);
    b.collective_begin(r, 100 + r);
    b.collective_end(r, 120, 11, w, kNoRank, 8, 8);
    b.leave(r, 121);
  }
  return b.finish();
}

// What the MPI_Allreduce of parjava.parallel do, on the two parts' rows (every instance is on
// the world communicator, so instance k is the same in both parts): sums and minima, or
// decisive columns [first, last) by minimum.
void reduce_rows(std::vector<CollectiveReduction> &r) {
  for (std::size_t i = 0; i < r[0].sums.size(); ++i) {
    r[0].sums[i] = r[1].sums[i] = r[0].sums[i] + r[1].sums[i];
  }
  for (std::size_t i = 0; i < r[0].minima.size(); ++i) {
    r[0].minima[i] = r[1].minima[i] = std::min(r[0].minima[i], r[1].minima[i]);
  }
}

void reduce_decisive(std::vector<CollectiveReduction> &r, std::size_t first, std::size_t last) {
  for (std::size_t k = 0; k < r[0].spread.size(); ++k) {
    for (auto c = first; c < last; ++c) {
      auto &a = r[0].decisive[k * kDecisiveColumns + c];
      auto &b = r[1].decisive[k * kDecisiveColumns + c];
      a = b = std::min(a, b);
    }
  }
}

} // namespace

TEST(Partition, ReducedCollectivesShipTheirDecisiveMembersOnly) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("parjava-partition-reduced-" +
                    std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::remove_all(dir);
  write(four_ranks(), dir.string());
  const auto anchor = (dir / "traces.otf2").string();
  std::vector<Trace> parts{open_part(anchor, 0, 2), open_part(anchor, 1, 2)};
  std::vector<CollectiveReduction> r{collective_reduction(parts[0], 2),
                                     collective_reduction(parts[1], 2)};
  reduce_rows(r);
  for (std::uint32_t p = 0; p < 2; ++p) {
    decisive_members(parts[p], r[p], 1);
  }
  reduce_decisive(r, 0, kDecisiveColumns - 1);
  for (std::uint32_t p = 0; p < 2; ++p) {
    decisive_members(parts[p], r[p], 2);
  }
  reduce_decisive(r, kDecisiveColumns - 1, kDecisiveColumns);
  ASSERT_EQ(r[0].spread.size(), 2U);
  EXPECT_TRUE(travels_reduced(parts[0], r[0], 0));
  EXPECT_FALSE(travels_reduced(parts[0], r[0], 1)); // MPI_Scan: each waits for lower ranks
  auto location_of = [](std::uint64_t id) { return static_cast<std::uint32_t>(id & 0xffffffffU); };
  const auto *d = &r[0].decisive[0];
  EXPECT_EQ(location_of(d[0]), 1U);                 // latest begin: rank 1 before rank 3 (tie)
  EXPECT_EQ(location_of(d[1]), 1U);                 // earliest end
  EXPECT_EQ(location_of(d[5]), 0U);                 // earliest begin
  EXPECT_EQ(location_of(d[6]), 3U);                 // latest end
  EXPECT_EQ(location_of(d[kDecisiveKeys + 1]), 0U); // 2nd step: earliest early receiver

  // Part 0 sends ranks 0 and 1's Begin and End of the allreduce and of the scan (2 x 2 +
  // 2 x 2); part 1 of the allreduce only rank 3's (rank 2 decides nothing), and the scan's.
  const auto from0 = replay_selection(parts[0], 0, 2, false, &r[0]);
  const auto from1 = replay_selection(parts[1], 1, 2, false, &r[1]);
  EXPECT_EQ(from0[1].size(), 8U);
  EXPECT_EQ(from1[0].size(), 6U);
  EXPECT_EQ(replay_selection(parts[1], 1, 2, false)[0].size(), 8U); // without: every member

  auto received = [&](const Trace &t, const std::vector<EventIndex> &events) {
    ReplayEvents out;
    const auto &e = t.events;
    for (const auto i : events) {
      const auto u = static_cast<std::size_t>(i);
      out.time.push_back(e.time[u]);
      out.kind.push_back(e.kind[u]);
      out.location.push_back(e.location[u]);
      out.region.push_back(e.region[u]);
      out.peer.push_back(e.peer[u]);
      out.tag.push_back(e.tag[u]);
      out.comm.push_back(e.comm[u]);
      out.bytes.push_back(e.bytes[u]);
      out.aux.push_back(e.aux[u]);
      out.callsite.push_back(e.callsite[u]);
      out.position.push_back(static_cast<std::uint64_t>(i - t.location_begin(e.location[u])));
    }
    out.sequence = sequence_indices(t, events);
    return out;
  };
  auto merged = parts[0];
  std::vector<std::uint64_t> positions;
  merge_part(merged, received(parts[1], from1[0]), 0, 2, positions, 1, &r[0]);
  ASSERT_EQ(merged.collectives.size(), 2U);
  // Rank 3's allreduce member joins instance 0, and rank 2's scan member instance 1: its
  // location holds no allreduce here, so only its sequence index keeps it out of instance 0.
  EXPECT_EQ(merged.collectives[0].member_count, 3U);
  EXPECT_EQ(merged.collectives[0].participants, 4U);
  EXPECT_EQ(merged.collectives[1].member_count, 4U);
  EXPECT_EQ(merged.collectives[1].participants, 4U);
  std::filesystem::remove_all(dir);
}
