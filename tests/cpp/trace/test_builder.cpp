// TraceBuilder: definitions, grouping and ordering of events, enclosing regions, Column.
#include <gtest/gtest.h>

#include <thread>

#include "parjava/error.hpp"
#include "parjava/trace/builder.hpp"

using namespace parjava::trace;

TEST(Column, GrowsTrimsCopiesAndCompares) {
  Column<std::int64_t> c;
  for (std::int64_t i = 0; i < 1000; ++i) {
    c.push_back(i * 3);
  }
  EXPECT_EQ(c.size(), 1000U);
  EXPECT_GE(c.capacity(), 1000U);
  c.shrink_to_fit();
  EXPECT_EQ(c.capacity(), 1000U);
  EXPECT_EQ(c[999], 2997);
  Column<std::int64_t> copy = c;
  EXPECT_EQ(copy, c);
  copy[5] = -1;
  EXPECT_FALSE(copy == c);
  Column<std::int64_t> moved = std::move(copy);
  EXPECT_EQ(moved[5], -1);
  moved.resize(1002, 7);
  EXPECT_EQ(moved.back(), 7);
  EXPECT_EQ((Column<int>{1, 2, 3}).to_vector(), (std::vector<int>{1, 2, 3}));
}

TEST(Builder, ClassifiesRegionsAndDefinesWorld) {
  TraceBuilder b;
  b.add_ranks(3);
  const auto send = b.region("MPI_Send");
  const auto barrier = b.region("MPI_Barrier");
  const auto user = b.region("compute");
  EXPECT_EQ(b.region("MPI_Send"), send); // same name, same region
  const auto world = b.world_communicator();
  auto t = b.finish();
  EXPECT_EQ(t.regions[send].function, Function::MPI_Send);
  EXPECT_EQ(t.regions[send].category, Category::BlockingSend);
  EXPECT_EQ(t.regions[send].role, RegionRole::PointToPoint);
  EXPECT_EQ(t.regions[send].paradigm, Paradigm::Mpi);
  EXPECT_EQ(t.regions[barrier].role, RegionRole::Barrier);
  EXPECT_EQ(t.regions[user].function, Function::None);
  EXPECT_EQ(t.regions[user].category, Category::UserCode);
  EXPECT_EQ(t.communicators[world].members, (std::vector<std::int32_t>{0, 1, 2}));
  EXPECT_EQ(t.location_count(), 3U);
  EXPECT_EQ(t.locations[2].id, 2U);
  EXPECT_EQ(t.location_groups[t.locations[2].group].rank, 2);
  EXPECT_EQ(t.process_count(), 3);
}

TEST(Builder, ThreadLocationsFollowTheOtf2IdConvention) {
  TraceBuilder b;
  b.add_location(1, 0);
  const auto worker = b.add_location(1, 2);
  auto t = b.finish();
  EXPECT_EQ(t.locations[worker].id, 1U + (2ULL << 32U));
  EXPECT_EQ(t.locations[worker].group, t.locations[0].group); // one process
  EXPECT_EQ(t.process_count(), 1);
  EXPECT_EQ(t.location_by_id(1U + (2ULL << 32U)), worker);
  EXPECT_EQ(t.location_by_id(99), kNoRef);
}

TEST(Builder, GroupsByLocationAndSortsStablyByTime) {
  TraceBuilder b;
  const auto r0 = b.add_ranks(2);
  const auto r1 = r0 + 1;
  const auto main_region = b.region("main");
  const auto work = b.region("work");
  // Interleaved locations, and location 1 out of time order.
  b.enter(r1, 50, main_region);
  b.enter(r0, 10, main_region);
  b.leave(r1, 90, main_region);
  b.enter(r1, 60, work);
  b.leave(r0, 20, main_region);
  b.leave(r1, 70, work);
  b.generic(r1, 60, 77); // same time as the Enter of work, appended later: stays after it
  auto t = b.finish();
  ASSERT_EQ(t.size(), 7U);
  EXPECT_EQ(t.location_offsets, (std::vector<std::uint64_t>{0, 2, 7}));
  EXPECT_EQ(t.events.time.to_vector(), (std::vector<Timestamp>{10, 20, 50, 60, 60, 70, 90}));
  EXPECT_EQ(t.events.kind[3], EventKind::Enter);
  EXPECT_EQ(t.events.kind[4], EventKind::Generic);
  EXPECT_EQ(t.events.region[4], work); // filled: the enclosing region
  EXPECT_EQ(t.events.location.to_vector(), (std::vector<std::uint32_t>{0, 0, 1, 1, 1, 1, 1}));
  EXPECT_EQ(t.events.match[2], 6);
  EXPECT_EQ(t.events.match[3], 5);
  EXPECT_EQ(t.unmatched.total(), 0U);
}

TEST(Builder, EventForUnknownLocationIsATraceError) {
  TraceBuilder b;
  b.add_ranks(1);
  try {
    b.enter(3, 0, b.region("main"));
    FAIL() << "no error";
  } catch (const parjava::Error &e) {
    EXPECT_EQ(e.kind(), parjava::ErrorKind::Trace);
    EXPECT_NE(std::string(e.what()).find("location 3"), std::string::npos);
  }
}

TEST(Builder, LeaveWithoutRegionAndCallSitesAreFilledFromTheEnter) {
  TraceBuilder b;
  const auto r0 = b.add_ranks(2);
  const auto world = b.world_communicator();
  const auto send = b.region("MPI_Send");
  const auto recv = b.region("MPI_Recv");
  const auto site = b.add_callsite("ring.c", 42, "main");
  b.enter(r0, 100, send, site);
  b.send(r0, 110, 1, 7, world, 64);
  b.leave(r0, 120); // region omitted
  b.enter(r0 + 1, 90, recv);
  b.recv(r0 + 1, 130, 0, 7, world, 64);
  b.leave(r0 + 1, 140, recv);
  auto t = b.finish();
  EXPECT_EQ(t.events.region[1], send);
  EXPECT_EQ(t.events.callsite[1], site);
  EXPECT_EQ(t.events.region[2], send);
  EXPECT_EQ(t.events.callsite[2], site);
  EXPECT_EQ(t.events.callsite[4], kNoRef);
  EXPECT_EQ(t.events.match[1], 4);
  EXPECT_EQ(t.events.match[4], 1);
}

TEST(Builder, MemoryIsExactlyTheColumns) {
  TraceBuilder b;
  const auto r0 = b.add_ranks(4);
  const auto region = b.region("compute");
  for (int i = 0; i < 10000; ++i) {
    for (std::uint32_t r = 0; r < 4; ++r) {
      b.enter(r0 + r, 2 * i, region);
      b.leave(r0 + r, 2 * i + 1, region);
    }
  }
  auto t = b.finish();
  const double per_event = static_cast<double>(t.memory_bytes()) / static_cast<double>(t.size());
  EXPECT_LT(per_event, 57.1);
  EXPECT_EQ(t.unmatched.total(), 0U);
}

TEST(Builder, IsReusableAfterFinish) {
  TraceBuilder b;
  b.add_ranks(1);
  b.enter(0, 1, b.region("main"));
  auto first = b.finish();
  EXPECT_EQ(first.size(), 1U);
  EXPECT_EQ(first.unmatched.enters_unclosed, 1U);
  EXPECT_EQ(b.size(), 0U);
  EXPECT_TRUE(b.locations().empty());
  auto second = b.finish();
  EXPECT_EQ(second.size(), 0U);
  EXPECT_EQ(second.location_offsets, (std::vector<std::uint64_t>{0}));
}

TEST(Builder, EventKindNames) {
  EXPECT_STREQ(event_kind_name(EventKind::IrecvComplete), "IrecvComplete");
  EXPECT_STREQ(event_kind_name(EventKind::Generic), "Generic");
}

TEST(Builder, PresizedSlicesFilledFromThreadsGiveTheSameTrace) {
  // The same events appended, and written into presized slices by two threads, one location
  // announcing more events than it gets (its slice is compacted).
  auto define = [](TraceBuilder &b) {
    b.add_ranks(3);
    b.world_communicator();
    b.region("MPI_Send");
    b.region("MPI_Recv");
    b.region("main");
  };
  auto events_of = [](std::uint32_t loc) {
    std::vector<EventRecord> out;
    const auto main_region = 2U;
    out.push_back({0, EventKind::Enter, main_region});
    for (int k = 0; k < 50; ++k) {
      const auto t = Timestamp{10} * (k + 1);
      const bool sender = loc == 0;
      out.push_back({t, EventKind::Enter, sender ? 0U : 1U});
      EventRecord m{t + 1, sender ? EventKind::Send : EventKind::Recv};
      m.peer = sender ? 1 : 0;
      m.comm = 0;
      m.tag = 3;
      if (loc != 2) {
        out.push_back(m);
      }
      out.push_back({t + 2, EventKind::Leave, sender ? 0U : 1U});
    }
    out.push_back({1000, EventKind::Leave, main_region});
    return out;
  };
  TraceBuilder appended;
  define(appended);
  for (std::uint32_t l = 0; l < 3; ++l) {
    for (const auto &r : events_of(l)) {
      appended.append(l, r);
    }
  }
  const auto expected = appended.finish();

  TraceBuilder sliced;
  define(sliced);
  std::vector<std::uint64_t> announced;
  for (std::uint32_t l = 0; l < 3; ++l) {
    announced.push_back(events_of(l).size() + (l == 1 ? 7 : 0));
  }
  sliced.presize(announced);
  std::vector<std::thread> writers;
  for (std::uint32_t l = 0; l < 3; ++l) {
    writers.emplace_back([&sliced, &events_of, l] {
      auto slice = sliced.slice(l);
      for (const auto &r : events_of(l)) {
        EXPECT_TRUE(slice.append(r));
      }
      if (l == 0) {
        EXPECT_FALSE(slice.append(EventRecord{})) << "a full slice refuses more events";
      }
      sliced.slice_filled(slice);
    });
  }
  for (auto &w : writers) {
    w.join();
  }
  const auto got = sliced.finish(2);
  EXPECT_EQ(got.location_offsets, expected.location_offsets);
  EXPECT_EQ(got.events.time, expected.events.time);
  EXPECT_EQ(got.events.kind, expected.events.kind);
  EXPECT_EQ(got.events.match, expected.events.match);
  EXPECT_EQ(got.events.region, expected.events.region);
  EXPECT_EQ(got.unmatched, expected.unmatched);
  EXPECT_EQ(got.unmatched.sends, 0U);
  EXPECT_EQ(got.memory_bytes(), expected.memory_bytes());
}

TEST(Builder, MovesWithItsEvents) {
  TraceBuilder a;
  a.add_ranks(1);
  a.reserve(std::size_t{1} << 21U); // large enough to start the prefault helper
  a.enter(0, 1, a.region("main"));
  TraceBuilder b(std::move(a));
  b.leave(0, 2);
  TraceBuilder c;
  c = std::move(b);
  const auto t = c.finish();
  EXPECT_EQ(t.size(), 2U);
  EXPECT_EQ(t.unmatched.total(), 0U);
}
