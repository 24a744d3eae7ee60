// The engine's event queue (private to the loggp part) against an ordered set: every pop must
// return the smallest (time, seq), whatever mix of pushes the engine makes -- new events at
// clustered future times (appended to per-time lists), events before the current time, and
// re-inserted entries with an older seq than their time's list already holds.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <tuple>

#include "../../../cpp/src/loggp/event_queue.hpp"

namespace {

using parjava::loggp::EntryKind;
using parjava::loggp::Event;
using parjava::loggp::EventQueue;

using Key = std::tuple<std::uint64_t, std::uint64_t, std::uint32_t>; // time, seq, op

TEST(EventQueue, PopsInTimeAndSeqOrderUnderEveryKindOfPush) {
  std::mt19937_64 rng(18U);
  for (int round = 0; round < 20; ++round) {
    EventQueue queue;
    std::set<Key> reference;
    std::uint64_t seq = 0;
    std::uint64_t now = 0;
    std::uint32_t op = 0;
    // Few distinct time steps (lockstep), or many (every event its own time).
    const std::uint64_t spread = round % 2 == 0 ? 4 : 100000;
    std::uint64_t pushed_old = 0;
    std::uint64_t pushed_past = 0;
    for (int step = 0; step < 20000; ++step) {
      const auto dice = rng() % 100;
      if (dice < 55 || reference.empty()) {
        std::uint64_t time = now + (rng() % spread) * 1000U;
        std::uint64_t s = seq++;
        if (dice < 5 && now > 0) {
          time = now - 1U - rng() % now; // before the current time
          ++pushed_past;
        } else if (dice < 12 && seq > 10) {
          s = rng() % seq; // an older seq, like a re-inserted blocked group
          ++pushed_old;
        }
        const Event e{time, s, op, Event::pack(EntryKind::Operation, 0)};
        ++op;
        queue.push(e);
        reference.emplace(e.time, e.seq, e.op);
      } else {
        ASSERT_FALSE(queue.empty());
        const Event got = queue.pop();
        const Key want = *reference.begin();
        // Equal (time, seq) pairs may come in either order; the pair must be the smallest.
        ASSERT_EQ(got.time, std::get<0>(want));
        ASSERT_EQ(got.seq, std::get<1>(want));
        ASSERT_EQ(reference.erase(Key{got.time, got.seq, got.op}), 1U);
        now = got.time;
      }
      ASSERT_EQ(queue.size(), reference.size());
    }
    while (!reference.empty()) {
      const Event got = queue.pop();
      ASSERT_EQ(got.time, std::get<0>(*reference.begin()));
      ASSERT_EQ(reference.erase(Key{got.time, got.seq, got.op}), 1U);
    }
    EXPECT_TRUE(queue.empty());
    EXPECT_GT(pushed_old, 100U);
    EXPECT_GT(pushed_past, 50U);
  }
}

// A queue that is mostly empty or holds one event (a ring: one event in flight) goes through
// the solo slot: an event pushed into an empty queue waits there, whatever its time, and moves
// into its time's list when a second one comes -- before it, at its time with an older seq, at
// its time with a newer one, or later.
TEST(EventQueue, ASoloEventKeepsItsOrderWhenOthersJoinIt) {
  std::mt19937_64 rng(5U);
  EventQueue queue;
  std::set<Key> reference;
  std::uint64_t seq = 0;
  std::uint64_t now = 0;
  std::uint32_t op = 0;
  int into_empty = 0;
  int joining_one = 0;
  for (int step = 0; step < 40000; ++step) {
    if (reference.size() < 3 && (reference.empty() || rng() % 2 == 0)) {
      into_empty += reference.empty() ? 1 : 0;
      joining_one += reference.size() == 1 ? 1 : 0;
      const auto dice = rng() % 4;
      std::uint64_t time = now + (rng() % 3) * 500U; // often the same time as the solo one
      std::uint64_t s = seq++;
      if (dice == 0 && now > 0) {
        time = now - 1U - rng() % now; // before the current time
      } else if (dice == 1 && seq > 2) {
        s = rng() % seq; // an older seq
      }
      const Event e{time, s, op++, Event::pack(EntryKind::Operation, 0)};
      queue.push(e);
      reference.emplace(e.time, e.seq, e.op);
    } else {
      const Event got = queue.pop();
      ASSERT_EQ(got.time, std::get<0>(*reference.begin()));
      ASSERT_EQ(got.seq, std::get<1>(*reference.begin()));
      ASSERT_EQ(reference.erase(Key{got.time, got.seq, got.op}), 1U);
      now = got.time;
    }
    ASSERT_EQ(queue.size(), reference.size());
    ASSERT_EQ(queue.empty(), reference.empty());
  }
  EXPECT_GT(into_empty, 2000);
  EXPECT_GT(joining_one, 2000);
}

} // namespace
