// The interpreter's event queue pops in (time, sequence) order whatever its layout: a small
// 4-ary heap of events, or buckets per distinct time once it holds thousands (and back). The
// reference is a sorted multiset of the same events; the workloads cross both thresholds, with
// many ties, re-queued events keeping an older sequence number, and every event kind.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <tuple>

#include "../../../cpp/src/interp/event_queue.hpp"

namespace {

using parjava::interp::Event;
using parjava::interp::EventKind;
using parjava::interp::EventQueue;

using Key = std::tuple<double, std::uint64_t, std::uint32_t, std::uint32_t, int>;

Key key(const Event &e) { return {e.time, e.seq, e.target, e.aux, static_cast<int>(e.kind)}; }

// Pushes `burst` events, pops `drain`, repeatedly, for `rounds`; every pop is checked.
void run(std::uint64_t seed, int rounds, int burst, int drain, int distinct_times) {
  std::mt19937_64 rng(seed);
  EventQueue q;
  std::set<Key> ref;
  double now = 0.0;
  std::uint64_t popped = 0;
  std::size_t peak = 0;
  std::uint64_t last_popped_seq = 0;
  bool have_popped = false;
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < burst; ++i) {
      // Times on a coarse grid, so ties are common; never before the last pop.
      const double t =
          now + static_cast<double>(rng() % static_cast<std::uint64_t>(distinct_times));
      const auto kind = static_cast<EventKind>(rng() % 4);
      const auto target = static_cast<std::uint32_t>(rng() % 1000);
      const auto aux = static_cast<std::uint32_t>(rng() % 7);
      if (have_popped && i == 0 && rng() % 3 == 0) {
        // The engine re-queues a popped event with its own (older) number.
        q.push_with_seq(t, last_popped_seq, kind, target, aux);
        ref.insert({t, last_popped_seq, target, aux, static_cast<int>(kind)});
        have_popped = false;
      } else {
        const std::uint64_t seq = q.next_seq();
        q.push_with_seq(t, seq, kind, target, aux);
        ref.insert({t, seq, target, aux, static_cast<int>(kind)});
      }
      peak = std::max(peak, ref.size());
    }
    for (int i = 0; i < drain && !ref.empty(); ++i) {
      ASSERT_EQ(q.size(), ref.size());
      ASSERT_TRUE(q.due_by(std::get<0>(*ref.begin())));
      ASSERT_EQ(key(q.top()), *ref.begin());
      const Event e = q.pop();
      ASSERT_EQ(key(e), *ref.begin()) << "pop " << popped;
      ref.erase(ref.begin());
      now = e.time;
      last_popped_seq = e.seq;
      have_popped = true;
      ++popped;
    }
  }
  while (!ref.empty()) {
    const Event e = q.pop();
    ASSERT_EQ(key(e), *ref.begin());
    ref.erase(ref.begin());
  }
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.peak(), peak);
}

TEST(InterpEventQueue, SmallQueueWithTiesPopsInTimeThenSequenceOrder) { run(1, 20000, 3, 3, 5); }

TEST(InterpEventQueue, GrowingPastTheBucketThresholdAndBackKeepsTheOrder) {
  // Grows to ~20,000 events (buckets), then drains to empty (back to the heap), twice.
  run(2, 400, 100, 50, 40);
  run(3, 400, 100, 50, 100000);
}

TEST(InterpEventQueue, OscillatingAroundTheThresholdsKeepsTheOrder) { run(4, 3000, 60, 55, 3); }

// The engine's usual pattern: a pop, then at once a push or two (a send's envelope, a wake-up),
// sometimes a look at the next event in between; the queue hovers around 64 events.
TEST(InterpEventQueue, PushesRightAfterPopsKeepTheOrder) {
  std::mt19937_64 rng(6);
  EventQueue q;
  std::set<Key> ref;
  for (std::uint32_t r = 0; r < 64; ++r) {
    const std::uint64_t seq = q.next_seq();
    q.push_with_seq(0.0, seq, EventKind::Resume, r, 0);
    ref.insert({0.0, seq, r, 0, 0});
  }
  for (int i = 0; i < 200000 && !ref.empty(); ++i) {
    const Event e = q.pop();
    ASSERT_EQ(key(e), *ref.begin()) << "pop " << i;
    ref.erase(ref.begin());
    const auto roll = rng() % 16;
    if (roll == 0 && !ref.empty()) {
      ASSERT_EQ(key(q.top()), *ref.begin()); // a look before the pushes
      ASSERT_TRUE(q.due_by(std::get<0>(*ref.begin())));
    }
    // Mostly one push, sometimes none or two, now and then at the popped time; the queue
    // hovers around 64 events and crosses no layout threshold.
    const int pushes = roll < 2 ? 0 : roll < 14 ? 1 : 2;
    for (int k = 0; k < pushes && ref.size() < 120; ++k) {
      const double t = e.time + (rng() % 4 == 0 ? 0.0 : static_cast<double>(rng() % 50));
      const std::uint64_t seq = q.next_seq();
      const auto kind = static_cast<EventKind>(rng() % 2);
      q.push_with_seq(t, seq, kind, e.target, static_cast<std::uint32_t>(k));
      ref.insert({t, seq, e.target, static_cast<std::uint32_t>(k), static_cast<int>(kind)});
    }
    if (ref.size() < 32) {
      const std::uint64_t seq = q.next_seq();
      q.push_with_seq(e.time + 1.0, seq, EventKind::Envelope, 7, 9);
      ref.insert({e.time + 1.0, seq, 7, 9, 1});
    }
    ASSERT_EQ(q.size(), ref.size());
    if (!ref.empty()) {
      ASSERT_EQ(q.due_by(std::get<0>(*ref.begin()) - 0.5), false);
    }
  }
  while (!ref.empty()) {
    ASSERT_EQ(key(q.pop()), *ref.begin());
    ref.erase(ref.begin());
  }
  EXPECT_TRUE(q.empty());
}

// The small layout's keys hold sequence numbers below 2^46; past that the queue keeps to the
// buckets, which hold whole numbers. Pushed directly with such numbers: the order is the same.
TEST(InterpEventQueue, SequenceNumbersBeyondTheKeyFieldKeepTheOrder) {
  constexpr std::uint64_t big = std::uint64_t{1} << 46U;
  EventQueue q;
  std::set<Key> ref;
  std::mt19937_64 rng(5);
  for (int i = 0; i < 40; ++i) {
    // Small numbers first, then numbers past the field, then small ones again (re-queued).
    const std::uint64_t seq = i < 10   ? static_cast<std::uint64_t>(i)
                              : i < 30 ? big + static_cast<std::uint64_t>(i)
                                       : static_cast<std::uint64_t>(100 + i);
    const double t = static_cast<double>(rng() % 4);
    const auto kind = static_cast<EventKind>(rng() % 4);
    const auto target = static_cast<std::uint32_t>(rng() % 1000);
    q.push_with_seq(t, seq, kind, target, 3);
    ref.insert({t, seq, target, 3, static_cast<int>(kind)});
  }
  while (!ref.empty()) {
    ASSERT_EQ(key(q.top()), *ref.begin());
    ASSERT_EQ(key(q.pop()), *ref.begin());
    ref.erase(ref.begin());
  }
  EXPECT_TRUE(q.empty());
}

} // namespace
