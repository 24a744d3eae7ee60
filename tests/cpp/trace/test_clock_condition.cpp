// The clock condition: violations counted by kind (receives before their send, collective
// exits before an entry they wait for, with Scalasca's references and payload rules), and
// removed by the controlled logical clock with forward and backward amortisation. The
// end-to-end case writes a violating trace through the OTF2 writer and reads it back.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include <unistd.h>

#include "parjava/error.hpp"
#include "parjava/trace/builder.hpp"
#include "parjava/trace/clock_condition.hpp"
#include "parjava/trace/otf2.hpp"

using namespace parjava::trace;
namespace fs = std::filesystem;

namespace {

constexpr CollectiveOp kBarrierOp = 0;    // OTF2_COLLECTIVE_OP_BARRIER
constexpr CollectiveOp kBcastOp = 1;      // OTF2_COLLECTIVE_OP_BCAST
constexpr CollectiveOp kAllreduceOp = 11; // OTF2_COLLECTIVE_OP_ALLREDUCE
constexpr CollectiveOp kReduceOp = 12;    // OTF2_COLLECTIVE_OP_REDUCE

void send(TraceBuilder &b, std::uint32_t loc, Timestamp t, std::int32_t dest, std::uint32_t comm) {
  b.enter(loc, t, b.region("MPI_Send"));
  b.send(loc, t + 1, dest, 0, comm, 8);
  b.leave(loc, t + 2);
}

// MPI_Recv entered at t whose message arrives `duration` - 1 ns later.
void recv(TraceBuilder &b, std::uint32_t loc, Timestamp t, std::int32_t source, std::uint32_t comm,
          Timestamp duration = 2) {
  b.enter(loc, t, b.region("MPI_Recv"));
  b.recv(loc, t + duration - 1, source, 0, comm, 8);
  b.leave(loc, t + duration);
}

// A collective call from `enter` to `leave` (Begin 1 ns after Enter, End 1 ns before Leave).
void collective(TraceBuilder &b, std::uint32_t loc, const char *name, Timestamp enter,
                Timestamp leave, CollectiveOp op, std::uint32_t comm, std::int32_t root,
                std::uint64_t sent, std::uint64_t received) {
  b.enter(loc, enter, b.region(name));
  b.collective_begin(loc, enter + 1);
  b.collective_end(loc, leave - 1, op, comm, root, sent, received);
  b.leave(loc, leave);
}

// Every location's events keep their order and their times never decrease.
void expect_ordered(const Trace &t) {
  for (std::uint32_t l = 0; l < t.location_count(); ++l) {
    for (auto i = t.location_begin(l) + 1; i < t.location_end(l); ++i) {
      EXPECT_LE(t.events.time[static_cast<std::size_t>(i - 1)],
                t.events.time[static_cast<std::size_t>(i)])
          << "location " << l << " event " << i;
    }
  }
}

EventIndex first_of(const Trace &t, std::uint32_t loc, EventKind kind) {
  for (auto i = t.location_begin(loc); i < t.location_end(loc); ++i) {
    if (t.events.kind[static_cast<std::size_t>(i)] == kind) {
      return i;
    }
  }
  return kNoEvent;
}

Timestamp time_of(const Trace &t, EventIndex i) {
  return t.events.time[static_cast<std::size_t>(i)];
}

// Rank 1's clock is 50 us behind: its receive of rank 0's message is recorded before the send.
Trace skewed_ping_pong() {
  TraceBuilder b;
  b.add_ranks(2);
  const auto w = b.world_communicator();
  const auto compute = b.region("compute");
  b.enter(0, 0, compute);
  b.leave(0, 100'000);
  send(b, 0, 100'000, 1, w);
  recv(b, 0, 200'000, 1, w);
  // Rank 1 computes, then receives (the message arrived at 100 us in true time, which its
  // clock records as 50 us), computes again and answers.
  b.enter(1, 0, compute);
  b.leave(1, 20'000);
  recv(b, 1, 40'000, 0, w); // receive event at 40'001 < send event at 100'001
  b.enter(1, 60'000, compute);
  b.leave(1, 140'000);
  send(b, 1, 140'000, 0, w); // received by rank 0 at 200 us: no violation
  return b.finish();
}

} // namespace

TEST(ClockCondition, ConsistentTraceHasNone) {
  TraceBuilder b;
  b.add_ranks(2);
  const auto w = b.world_communicator();
  send(b, 0, 100, 1, w);
  recv(b, 1, 50, 0, w, 100); // entered before the send (waiting), receive event after it
  collective(b, 0, "MPI_Barrier", 200, 300, kBarrierOp, w, kNoRank, 0, 0);
  collective(b, 1, "MPI_Barrier", 250, 300, kBarrierOp, w, kNoRank, 0, 0);
  const auto t = b.finish();
  EXPECT_EQ(t.clock_violations, ClockViolations{});
  EXPECT_EQ(count_clock_violations(t).total(), 0U);
}

TEST(ClockCondition, ReceiveBeforeSendIsCountedWithItsAmount) {
  const auto t = skewed_ping_pong();
  EXPECT_EQ(t.clock_violations.receives_before_send, 1U);
  EXPECT_EQ(t.clock_violations.collective_exits_before_entry, 0U);
  EXPECT_EQ(t.clock_violations.largest_ns, 100'001 - 40'001);
}

TEST(ClockCondition, BarrierExitBeforeTheLastEntryIsCountedPerMember) {
  // The case: rank 0 left the barrier 230 us before rank 3 entered it.
  TraceBuilder b;
  b.add_ranks(4);
  const auto w = b.world_communicator();
  collective(b, 0, "MPI_Barrier", 0, 10'000, kBarrierOp, w, kNoRank, 0, 0);
  collective(b, 1, "MPI_Barrier", 1'000, 250'000, kBarrierOp, w, kNoRank, 0, 0);
  collective(b, 2, "MPI_Barrier", 2'000, 250'000, kBarrierOp, w, kNoRank, 0, 0);
  collective(b, 3, "MPI_Barrier", 240'000, 250'000, kBarrierOp, w, kNoRank, 0, 0);
  const auto t = b.finish();
  EXPECT_EQ(t.clock_violations.collective_exits_before_entry, 1U); // rank 0 only
  EXPECT_EQ(t.clock_violations.largest_ns, 240'001 - 9'999);
}

TEST(ClockCondition, CollectiveReferencesFollowTheShape) {
  TraceBuilder b;
  b.add_ranks(3);
  const auto w = b.world_communicator();
  // Bcast from rank 2 entered late: ranks 0 and 1 left before the root entered (2 counted).
  collective(b, 0, "MPI_Bcast", 0, 100, kBcastOp, w, 2, 0, 64);
  collective(b, 1, "MPI_Bcast", 0, 100, kBcastOp, w, 2, 0, 64);
  collective(b, 2, "MPI_Bcast", 500, 600, kBcastOp, w, 2, 64, 64);
  // The same with nothing to broadcast: no dependency, nothing counted.
  collective(b, 0, "MPI_Bcast", 1'000, 1'100, kBcastOp, w, 2, 0, 0);
  collective(b, 1, "MPI_Bcast", 1'000, 1'100, kBcastOp, w, 2, 0, 0);
  collective(b, 2, "MPI_Bcast", 1'500, 1'600, kBcastOp, w, 2, 0, 0);
  // Reduce to rank 0: a non-root may leave before the others enter (not counted); the root
  // leaving before rank 2 entered is.
  collective(b, 0, "MPI_Reduce", 2'000, 2'100, kReduceOp, w, 0, 8, 8);
  collective(b, 1, "MPI_Reduce", 2'000, 2'050, kReduceOp, w, 0, 8, 0);
  collective(b, 2, "MPI_Reduce", 2'200, 2'300, kReduceOp, w, 0, 8, 0);
  const auto t = b.finish();
  EXPECT_EQ(t.collectives.size(), 3U);
  EXPECT_EQ(t.clock_violations.collective_exits_before_entry, 3U);
  EXPECT_EQ(t.clock_violations.receives_before_send, 0U);
}

// Matching counts the violations while it pairs (messages) and builds the instances
// (collectives); the standalone count over the matched trace must agree, whichever side holds
// the largest amount, and whether the trace was built or read (in parallel, presized).
TEST(ClockCondition, MatchingCountsWhatTheStandaloneCountFinds) {
  for (const Timestamp late_entry : {Timestamp{20'000}, Timestamp{900'000}}) {
    TraceBuilder b;
    b.add_ranks(3);
    const auto w = b.world_communicator();
    send(b, 0, 100'000, 1, w);
    recv(b, 1, 40'000, 0, w); // 60 us before its send
    send(b, 1, 200'000, 2, w);
    recv(b, 2, 150'000, 1, w); // 50 us before its send
    send(b, 2, 300'000, 0, w);
    recv(b, 0, 400'000, 2, w); // after its send: no violation
    // Ranks 0 and 1 leave the barrier before rank 2 enters it (late by `late_entry` - 8 us).
    collective(b, 0, "MPI_Barrier", 1'000'000, 1'010'000, kBarrierOp, w, kNoRank, 0, 0);
    collective(b, 1, "MPI_Barrier", 1'000'000, 1'010'000, kBarrierOp, w, kNoRank, 0, 0);
    collective(b, 2, "MPI_Barrier", 1'002'000 + late_entry, 1'020'000 + late_entry, kBarrierOp, w,
               kNoRank, 0, 0);
    const auto built = b.finish(2);
    EXPECT_EQ(built.clock_violations.receives_before_send, 2U);
    EXPECT_EQ(built.clock_violations.collective_exits_before_entry, 2U);
    EXPECT_EQ(built.clock_violations.largest_ns,
              std::max<Timestamp>(100'001 - 40'001, 1'002'001 + late_entry - 1'009'999));
    EXPECT_EQ(built.clock_violations, count_clock_violations(built));

    const auto dir = fs::temp_directory_path() / ("parjava_clock_" + std::to_string(getpid()) +
                                                  "_folded_" + std::to_string(late_entry));
    fs::remove_all(dir);
    write(built, dir.string());
    for (const unsigned threads : {1U, 2U}) {
      const auto read = open(dir.string(), threads);
      EXPECT_EQ(read.clock_violations, built.clock_violations) << threads << " threads";
      EXPECT_EQ(read.clock_violations, count_clock_violations(read));
    }
    fs::remove_all(dir);
  }
}

TEST(ClockCorrection, MovesTheReceiveAndAmortisesAroundIt) {
  auto t = skewed_ping_pong();
  const auto before = t.events.time;
  const auto report = correct_clocks(t);
  EXPECT_EQ(report.before.receives_before_send, 1U);
  EXPECT_EQ(t.clock_violations.total(), 0U);
  ASSERT_TRUE(t.clock_correction.has_value());
  EXPECT_EQ(report.cycles_broken, 0U);
  EXPECT_EQ(report.jumps, 1U);
  expect_ordered(t);
  // The receive now completes with the send (minimum latency 0), never earlier.
  const auto r = first_of(t, 1, EventKind::Recv);
  const auto s = t.events.match[static_cast<std::size_t>(r)];
  EXPECT_EQ(time_of(t, r), time_of(t, s));
  EXPECT_EQ(report.largest_shift_ns, 100'001 - 40'001);
  // Nothing moves earlier; rank 0 waits for nothing (its receive's send is not moved past it).
  for (std::size_t i = 0; i < t.size(); ++i) {
    EXPECT_GE(t.events.time[i], before[i]);
  }
  for (auto i = t.location_begin(0); i < t.location_end(0); ++i) {
    EXPECT_EQ(time_of(t, i), before[static_cast<std::size_t>(i)]);
  }
  // Backward amortisation: the Enter of the receive and the compute phase before it moved
  // along a ramp (later events more), so the interval before the receive did not absorb all
  // 60 us; the first event of rank 1, far before the window, kept its time.
  const auto enter = r - 1;
  EXPECT_GT(time_of(t, enter), before[static_cast<std::size_t>(enter)]);
  EXPECT_GT(time_of(t, enter) - before[static_cast<std::size_t>(enter)],
            time_of(t, enter - 1) - before[static_cast<std::size_t>(enter - 1)]);
  EXPECT_EQ(time_of(t, t.location_begin(1)), 0);
  // Forward amortisation: after the jump rank 1 returns to its recorded times at 99 % pace,
  // so its later events are still late but by less than the jump.
  const auto answer = first_of(t, 1, EventKind::Send);
  const auto late_by = time_of(t, answer) - before[static_cast<std::size_t>(answer)];
  EXPECT_GT(late_by, 0);
  EXPECT_LT(late_by, 100'001 - 40'001);
}

TEST(ClockCorrection, ASendInTheWindowStaysBeforeItsReceive) {
  // Rank 1 sends to rank 2 just before its own late receive from rank 0: amortising rank 1's
  // jump must not move that send past rank 2's receive.
  TraceBuilder b;
  b.add_ranks(3);
  const auto w = b.world_communicator();
  send(b, 0, 1'000'000, 1, w);
  send(b, 1, 900'000, 2, w);
  recv(b, 1, 910'000, 0, w); // 90 us before the send
  recv(b, 2, 800'000, 1, w); // entered early; its receive event at 800'001 < 900'001 too
  auto t = b.finish();
  EXPECT_EQ(t.clock_violations.receives_before_send, 2U);
  correct_clocks(t);
  EXPECT_EQ(t.clock_violations.total(), 0U);
  expect_ordered(t);
  const auto s = first_of(t, 1, EventKind::Send);
  EXPECT_LE(time_of(t, s), time_of(t, t.events.match[static_cast<std::size_t>(s)]));
}

TEST(ClockCorrection, CollectivesLeaveAfterTheirLastEntry) {
  TraceBuilder b;
  b.add_ranks(4);
  const auto w = b.world_communicator();
  collective(b, 0, "MPI_Barrier", 0, 10'000, kBarrierOp, w, kNoRank, 0, 0);
  collective(b, 1, "MPI_Barrier", 1'000, 250'000, kBarrierOp, w, kNoRank, 0, 0);
  collective(b, 2, "MPI_Barrier", 2'000, 250'000, kBarrierOp, w, kNoRank, 0, 0);
  collective(b, 3, "MPI_Barrier", 240'000, 250'000, kBarrierOp, w, kNoRank, 0, 0);
  for (std::uint32_t r = 0; r < 4; ++r) {
    collective(b, r, "MPI_Allreduce", 300'000 + r * 1'000, 301'000 + r * 1'000, kAllreduceOp, w,
               kNoRank, 8, 8); // staggered: ranks 0-2 leave before rank 3 enters
  }
  auto t = b.finish();
  EXPECT_EQ(t.clock_violations.collective_exits_before_entry, 1U + 3U);
  correct_clocks(t);
  EXPECT_EQ(t.clock_violations, ClockViolations{});
  expect_ordered(t);
  for (const auto &c : t.collectives) {
    Timestamp last_entry = 0;
    for (auto m = c.first_member; m < c.first_member + c.member_count; ++m) {
      const auto end = t.collective_members[m];
      last_entry = std::max(last_entry, time_of(t, t.events.match[static_cast<std::size_t>(end)]));
    }
    for (auto m = c.first_member; m < c.first_member + c.member_count; ++m) {
      EXPECT_GE(time_of(t, t.collective_members[m]), last_entry);
    }
  }
}

TEST(ClockCorrection, ACycleOfADamagedTraceIsBrokenNotLooped) {
  // Each rank's receive is matched to a send recorded after the other's receive: impossible
  // in a real run, so the replay must break the cycle instead of waiting forever.
  TraceBuilder b;
  b.add_ranks(2);
  const auto w = b.world_communicator();
  recv(b, 0, 10, 1, w);
  send(b, 0, 20, 1, w);
  recv(b, 1, 10, 0, w);
  send(b, 1, 30, 0, w);
  auto t = b.finish();
  EXPECT_EQ(t.clock_violations.receives_before_send, 2U);
  const auto report = correct_clocks(t);
  EXPECT_GE(report.cycles_broken, 1U);
  EXPECT_LT(t.clock_violations.total(), 2U);
  expect_ordered(t);
}

TEST(ClockCorrection, RejectsARateOutsideZeroAndOne) {
  auto t = skewed_ping_pong();
  EXPECT_THROW(correct_clocks(t, {0.0}), parjava::Error);
  EXPECT_THROW(correct_clocks(t, {1.5}), parjava::Error);
}

TEST(ClockCorrection, AViolatingArchiveIsCountedAndCorrectedAfterReading) {
  const auto dir = fs::temp_directory_path() /
                   ("parjava_clock_" + std::to_string(getpid()) + "_violating_archive");
  fs::remove_all(dir);
  write(skewed_ping_pong(), dir.string());
  const auto read = open(dir.string());
  EXPECT_EQ(read.clock_violations.receives_before_send, 1U);
  EXPECT_FALSE(read.clock_correction.has_value());
  auto corrected = open(dir.string());
  correct_clocks(corrected);
  EXPECT_EQ(corrected.clock_violations.total(), 0U);
  // Written back, the corrected trace reads as corrected and says so in its properties.
  const auto again = dir.string() + "_corrected";
  fs::remove_all(again);
  write(corrected, again);
  const auto reread = open(again);
  EXPECT_EQ(reread.clock_violations.total(), 0U);
  bool noted = false;
  for (const auto &[key, value] : reread.metadata.properties) {
    noted = noted ||
            (key == "PARJAVA::CLOCK_CONDITION" && value.find("1 violations") != std::string::npos);
  }
  EXPECT_TRUE(noted);
  fs::remove_all(dir);
  fs::remove_all(again);
}
