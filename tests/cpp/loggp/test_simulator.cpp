// The LogGP engine against (a) figures measured with LogGOPSim 76451de, (b) the naive reference
// transcription of anchor §4 on random schedules, (c) hand-computed quirks and reports.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "parjava/error.hpp"
#include "parjava/loggp/goal_patterns.hpp"
#include "parjava/loggp/goal_reader.hpp"
#include "parjava/loggp/simulator.hpp"
#include "reference_loggopsim.hpp"

namespace {

using namespace parjava::loggp; // NOLINT(google-build-using-namespace): test brevity

SimulationResult run(const GoalSchedule &s, LogGPParameters p = {},
                     ReadyOrder order = ReadyOrder::Stable) {
  SimulationOptions options;
  options.parameters = p;
  options.order = order;
  return simulate(s, options);
}

// Host 0 has 20 sends and 3 recvs ready at once (more than 16), so LogGOPSim's unstable
// std::sort decides the order in which the sends go out. Written by the test so that the
// expected values below, printed by LogGOPSim itself for this exact text, pin the order.
std::string many_ready_ops_schedule() {
  std::vector<std::string> rank0;
  std::vector<int> dest;
  for (int i = 0; i < 20; ++i) {
    dest.push_back(i % 15 + 1);
    rank0.push_back("send " + std::to_string(8 + 100 * i) + "b to " + std::to_string(dest.back()));
  }
  for (const int k : {2, 7, 12}) {
    rank0.insert(rank0.begin() + k, "recv 8b from 15");
  }
  std::string text = "num_ranks 16\nrank 0 {\n";
  for (const auto &line : rank0) {
    text += line + "\n";
  }
  text += "}\n";
  for (int h = 1; h < 16; ++h) {
    text += "rank " + std::to_string(h) + " {\n";
    for (int i = 0; i < 20; ++i) {
      if (dest[i] == h) {
        text += "recv " + std::to_string(8 + 100 * i) + "b from 0\n";
      }
    }
    if (h == 15) {
      text += "send 8b to 0\nsend 8b to 0\nsend 8b to 0\n";
    }
    text += "}\n";
  }
  return text;
}

TEST(Simulator, MoreThanSixteenReadyOpsFollowLibstdcxxSortInLogGOPSimOrder) {
  const auto s = parse_goal_text(many_ready_ops_schedule(), "tie");
  // LogGOPSim 76451de, default parameters: `LogGOPSim -f tie.bin`.
  const std::vector<SimTime> loggopsim = {135798, 110046, 140440, 138798, 136556, 133714,
                                          130272, 126230, 121588, 116346, 10942,  109004,
                                          101962, 94320,  86078,  77236};
  const auto compatible = run(s, {}, ReadyOrder::LogGOPSim);
  EXPECT_EQ(compatible.end_times, loggopsim);
  EXPECT_EQ(compatible.events, 69U);
  // The stable order sends in schedule order (host 1 first), unlike LogGOPSim.
  const auto stable = run(s, {}, ReadyOrder::Stable);
  EXPECT_EQ(stable.events, 69U);
  EXPECT_TRUE(stable.complete);
  EXPECT_NE(stable.end_times, loggopsim);
  EXPECT_EQ(stable.end_times, reference::simulate(s, {}, ReadyOrder::Stable).end_times);
}

TEST(Simulator, SizeZeroMessagesWrapLikeLogGOPSim) {
  // allreduce_recursive_doubling halves 8 bytes down to 0 for P >= 16 (anchor §4 quirk 1).
  PatternOptions o;
  o.ranks = 16;
  o.bytes = 8;
  const auto s = generate_pattern("allreduce_recursive_doubling", o);
  const auto r = run(s);
  // LogGOPSim 76451de: `schedgen -p allreduce_recdoub -s 16 -d 8` gives 43994 on every host.
  EXPECT_EQ(r.max_end_time, 43994U);
  for (const SimTime t : r.end_times) {
    EXPECT_EQ(t, 43994U);
  }
  // A single size-0 message with O > G: the receiver is charged o - O, the sender o - O.
  LogGPParameters p;
  p.O = 10;
  p.G = 4;
  const auto one = parse_goal_text("num_ranks 2\nrank 0 {\nsend 0b to 1\n}\nrank 1 {\nrecv 0b "
                                   "from 0\n}\n");
  const auto r1 = run(one, p);
  // Receiver: o + max((s-1)O, (s-1)G) taken unsigned = o - min(O, G) = 1496 after 4000.
  EXPECT_EQ(r1.end_times, (std::vector<SimTime>{1490, 4000 + 1496}));
}

TEST(Simulator, CalcOfSizeZeroAndZeroOverheadsKeepOrder) {
  LogGPParameters p;
  p.o = 0;
  p.g = 0;
  p.L = 0;
  p.G = 0;
  const auto s = parse_goal_text("num_ranks 2\nrank 0 {\na: send 1b to 1\nb: send 1b to 1\n"
                                 "c: calc 0\nc requires b\n}\nrank 1 {\nrecv 1b from 0\n"
                                 "recv 1b from 0\n}\n");
  const auto r = run(s, p);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.end_times, (std::vector<SimTime>{0, 0}));
  EXPECT_EQ(r.events, 7U);
}

TEST(Simulator, FacingRendezvousSendsDeadlockAndAreReported) {
  const auto s = parse_goal_text("num_ranks 2\n"
                                 "rank 0 {\ns: send 100000b to 1\nr: recv 100000b from 1\n"
                                 "r requires s\n}\n"
                                 "rank 1 {\ns: send 100000b to 0\nr: recv 100000b from 0\n"
                                 "r requires s\n}\n",
                                 "facing");
  const auto r = run(s);
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.unfinished_count, 4U);
  EXPECT_EQ(r.unexpected_queue_left, 2U);
  EXPECT_EQ(r.receive_queue_left, 0U);
  ASSERT_EQ(r.unfinished.size(), 4U);
  EXPECT_EQ(r.unfinished[0].reason, UnfinishedReason::MessageNotReceived);
  EXPECT_EQ(r.unfinished[0].rank, 0U);
  EXPECT_EQ(r.unfinished[1].reason, UnfinishedReason::NeverReady);
  EXPECT_EQ(r.unfinished[1].waiting_for, 1U);
  const std::string text = describe_unfinished(s, r);
  EXPECT_NE(text.find("rank 0 op #1 (recv 100000b from 1 tag 0): never became ready"),
            std::string::npos)
      << text;
  // The eager version of the same program completes.
  LogGPParameters eager;
  eager.S = 100000;
  EXPECT_TRUE(run(s, eager).complete);
}

TEST(Simulator, UnmatchedRecvAndCycleAreReported) {
  const auto s = parse_goal_text("num_ranks 2\nrank 0 {\nrecv 8b from 1 tag 3\n"
                                 "a: calc 1\nb: calc 1\na requires b\nb requires a\n}\n"
                                 "rank 1 {\nsend 8b to 0 tag 4\n}\n");
  const auto r = run(s);
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.receive_queue_left, 1U);
  EXPECT_EQ(r.unexpected_queue_left, 1U);
  ASSERT_EQ(r.unfinished.size(), 4U);
  EXPECT_EQ(r.unfinished[0].reason, UnfinishedReason::ReceiveNotMatched);
  EXPECT_EQ(r.unfinished[1].reason, UnfinishedReason::NeverReady);
  EXPECT_EQ(r.unfinished[2].reason, UnfinishedReason::NeverReady);
  EXPECT_EQ(r.unfinished[3].reason, UnfinishedReason::MessageNotReceived);
  EXPECT_EQ(r.ops_completed, 0U);
}

TEST(Simulator, MismatchedSizesDoubleDoneIsNotReportedAsNeverReady) {
  // Anchor §4 quirk 3: an eager 8 B send is done when it starts; its message is unexpected
  // and matched by a recv of 100000 B, so the recv size makes it a rendezvous and the send is
  // done a second time. Its dependent's counter wraps below zero; b did run, so the run is
  // complete and nothing may be reported as never ready.
  const auto s =
      parse_goal_text("num_ranks 2\nrank 0 {\na: send 8b to 1\nb: calc 5\n"
                      "b requires a\n}\nrank 1 {\nc: calc 10000\nr: recv 100000b from 0\n"
                      "r requires c\n}\n");
  const auto r = run(s);
  const auto ref = reference::simulate(s, {}, ReadyOrder::Stable);
  EXPECT_EQ(r.end_times, ref.end_times);
  EXPECT_EQ(r.events, ref.events);
  EXPECT_TRUE(r.complete);
}

TEST(Simulator, ProgressCallbackCanStop) {
  PatternOptions o;
  o.ranks = 32768; // 1.5 M queue entries: one progress call after the first million
  o.bytes = 8;
  const auto s = generate_pattern("dissemination", o);
  SimulationOptions options;
  std::uint64_t calls = 0;
  options.progress = [&calls](std::uint64_t) { return ++calls < 1; };
  EXPECT_THROW((void)simulate(s, options), parjava::Error);
  EXPECT_EQ(calls, 1U);
}

TEST(Simulator, BlockedSendsAreQueuedNotRetried) {
  PatternOptions o;
  o.ranks = 64;
  o.bytes = 8;
  const auto s = generate_pattern("linear_alltoall", o);
  const auto r = run(s, {}, ReadyOrder::LogGOPSim);
  const auto ref = reference::simulate(s, {}, ReadyOrder::LogGOPSim);
  EXPECT_EQ(r.end_times, ref.end_times);
  EXPECT_EQ(r.events, ref.events);
  EXPECT_EQ(r.events, 3U * 64U * 63U);
  // LogGOPSim would re-check blocked ops blocked_checks times; the groups process far fewer.
  EXPECT_GT(r.blocked_checks, 10U * r.queue_pops);
}

// ---- random schedules against the reference transcription ------------------------------

std::string random_schedule(std::mt19937 &rng) {
  auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int P = pick(2, 6);
  const int cpus = pick(1, 3);
  const int nics = pick(1, 2);
  const std::vector<std::uint64_t> sizes = {0, 1, 2, 8, 100, 1000, 65535, 65536, 70000};
  std::vector<std::vector<std::string>> ops(static_cast<std::size_t>(P));
  const int messages = pick(1, 30);
  for (int m = 0; m < messages; ++m) {
    const int a = pick(0, P - 1);
    const int b = pick(0, P - 1);
    const int tag = pick(0, 2);
    const std::uint64_t size = sizes[static_cast<std::size_t>(pick(0, 8))];
    const std::uint64_t rsize =
        pick(0, 9) == 0 ? sizes[static_cast<std::size_t>(pick(0, 8))] : size;
    ops[static_cast<std::size_t>(a)].push_back(
        "send " + std::to_string(size) + "b to " + std::to_string(b) + " tag " +
        (pick(0, 19) == 0 ? std::string("-1") : std::to_string(tag)));
    ops[static_cast<std::size_t>(b)].push_back(
        "recv " + std::to_string(rsize) + "b from " +
        (pick(0, 4) == 0 ? std::string("-1") : std::to_string(a)) + " tag " +
        (pick(0, 6) == 0 ? std::string("-1") : std::to_string(tag)));
  }
  for (auto &rank : ops) {
    for (int c = pick(0, 4); c > 0; --c) {
      rank.push_back("calc " + std::to_string(std::vector<int>{0, 1, 10, 500, 5000}[pick(0, 4)]));
    }
    std::shuffle(rank.begin(), rank.end(), rng);
  }
  std::string text = "num_ranks " + std::to_string(P) + "\n";
  for (int r = 0; r < P; ++r) {
    const auto &rank = ops[static_cast<std::size_t>(r)];
    text += "rank " + std::to_string(r) + " {\n";
    for (std::size_t i = 0; i < rank.size(); ++i) {
      text += "l" + std::to_string(i) + ": " + rank[i];
      text += " cpu " + std::to_string(pick(0, cpus - 1));
      if (rank[i].rfind("calc", 0) != 0) {
        text += " nic " + std::to_string(pick(0, nics - 1));
      }
      text += "\n";
    }
    const int n = static_cast<int>(rank.size());
    for (int d = n >= 2 ? pick(0, n / 2 + 1) : 0; d > 0; --d) {
      const int i = pick(1, n - 1);
      const int j = pick(0, i - 1);
      text += "l" + std::to_string(i) + (pick(0, 2) == 0 ? " irequires l" : " requires l") +
              std::to_string(j) + "\n";
    }
    text += "}\n";
  }
  return text;
}

TEST(Simulator, RandomSchedulesEqualTheReferenceTranscription) {
  std::mt19937 rng(20261122U);
  const std::vector<LogGPParameters> parameter_sets = [] {
    std::vector<LogGPParameters> v(5);
    v[1].S = 0;
    v[2].O = 3;
    v[2].G = 1;
    v[3].o = 100;
    v[3].g = 3000;
    v[3].L = 10;
    v[3].G = 0;
    v[4].o = 0;
    v[4].g = 0;
    v[4].O = 7;
    v[4].G = 2;
    return v;
  }();
  int compared = 0;
  int complete = 0;
  for (int i = 0; i < 600; ++i) {
    const std::string text = random_schedule(rng);
    const auto s = parse_goal_text(text, "random");
    const auto &p = parameter_sets[static_cast<std::size_t>(i) % parameter_sets.size()];
    for (const ReadyOrder order : {ReadyOrder::Stable, ReadyOrder::LogGOPSim}) {
      const auto mine = run(s, p, order);
      const auto ref = reference::simulate(s, p, order);
      ASSERT_EQ(mine.end_times, ref.end_times) << text;
      ASSERT_EQ(mine.events, ref.events) << text;
      ASSERT_EQ(mine.receive_queue_left + mine.unexpected_queue_left == 0, ref.queues_empty)
          << text;
      ++compared;
      complete += mine.complete ? 1 : 0;
    }
  }
  EXPECT_EQ(compared, 1200);
  EXPECT_GT(complete, 200); // enough of them run to the end to compare meaningful times
}

// Many recvs posted per rank, to exercise every form of a receive queue (match_queue.hpp): a
// run of recvs in op order (chained by irequires, or few enough to be ready in op order), the
// compact form (more than 16 ready at once, which LogGOPSim's sort posts out of op order, or a
// match other than the oldest), 16-byte entries (more than 48 posted, or ops more than 190
// apart: long calc padding), wildcards, and recvs left unmatched (reported from each form).
std::string many_recvs_schedule(std::mt19937 &rng) {
  auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int P = pick(2, 4);
  const int posted = std::vector<int>{3, 12, 20, 40, 70}[static_cast<std::size_t>(pick(0, 4))];
  const bool chain = pick(0, 1) == 0;
  const int padding = std::vector<int>{0, 0, 2, 20, 120}[static_cast<std::size_t>(pick(0, 4))];
  std::string text = "num_ranks " + std::to_string(P) + "\n";
  for (int r = 0; r < P; ++r) {
    text += "rank " + std::to_string(r) + " {\n";
    std::vector<std::string> sends;
    for (int other = 0; other < P; ++other) {
      if (other == r) {
        continue;
      }
      // What rank `other` posts from r: the same count, tags 0-2.
      for (int k = 0; k < posted / (P - 1); ++k) {
        sends.push_back("send " + std::to_string(pick(0, 3) == 0 ? 70000 : 8) + "b to " +
                        std::to_string(other) + " tag " + std::to_string(k % 3));
      }
    }
    std::shuffle(sends.begin(), sends.end(), rng);
    int label = 0;
    int previous_recv = -1;
    std::string edges;
    for (int other = 0; other < P; ++other) {
      if (other == r) {
        continue;
      }
      for (int k = 0; k < posted / (P - 1); ++k) {
        for (int c = pick(0, padding); c > 0; --c) {
          text += "l" + std::to_string(label++) + ": calc 0\n"; // never blocks
        }
        const bool any_source = pick(0, 9) == 0;
        const bool any_tag = pick(0, 9) == 0;
        text += "l" + std::to_string(label) + ": recv 8b from " +
                (any_source ? std::string("-1") : std::to_string(other)) + " tag " +
                (any_tag ? std::string("-1") : std::to_string(k % 3)) + "\n";
        if (chain && previous_recv >= 0) {
          edges +=
              "l" + std::to_string(label) + " irequires l" + std::to_string(previous_recv) + "\n";
        }
        previous_recv = label++;
      }
    }
    const int first_send = label;
    for (const auto &send : sends) {
      text += "l" + std::to_string(label++) + ": " + send + "\n";
    }
    if (pick(0, 1) == 0 && label > first_send + 1) { // the sends wait for a calc: late messages
      text += "l" + std::to_string(label) + ": calc " + std::to_string(pick(1, 5000)) + "\n";
      edges += "l" + std::to_string(first_send + 1) + " requires l" + std::to_string(label) + "\n";
    }
    text += edges + "}\n";
  }
  return text;
}

TEST(Simulator, ReceiveQueueFormsEqualTheReference) {
  std::mt19937 rng(20261125U);
  int compared = 0;
  int incomplete = 0;
  for (int i = 0; i < 150; ++i) {
    const std::string text = many_recvs_schedule(rng);
    const auto s = parse_goal_text(text, "recvs");
    for (const ReadyOrder order : {ReadyOrder::Stable, ReadyOrder::LogGOPSim}) {
      const auto mine = run(s, {}, order);
      const auto ref = reference::simulate(s, {}, order);
      ASSERT_EQ(mine.end_times, ref.end_times) << text;
      ASSERT_EQ(mine.events, ref.events) << text;
      ASSERT_EQ(mine.receive_queue_left + mine.unexpected_queue_left == 0, ref.queues_empty)
          << text;
      ++compared;
      incomplete += mine.complete ? 0 : 1;
    }
  }
  EXPECT_EQ(compared, 300);
  EXPECT_GT(incomplete, 10); // wildcards leave recvs posted: reports read every form
}

TEST(Simulator, GeneratedPatternsEqualTheReference) {
  for (const std::string &name : pattern_names()) {
    for (const std::uint32_t ranks : {2U, 7U, 16U, 32U}) {
      if (name == "allreduce_recursive_doubling" && (ranks & (ranks - 1U)) != 0) {
        continue;
      }
      for (const bool chain : {false, true}) {
        PatternOptions o;
        o.ranks = ranks;
        o.bytes = 1000;
        o.root = 1;
        o.segment = 300;
        o.compute = 20;
        o.chain_receives = chain;
        const auto s = generate_pattern(name, o);
        for (const ReadyOrder order : {ReadyOrder::Stable, ReadyOrder::LogGOPSim}) {
          const auto mine = run(s, {}, order);
          const auto ref = reference::simulate(s, {}, order);
          ASSERT_EQ(mine.end_times, ref.end_times) << name << " P=" << ranks;
          ASSERT_EQ(mine.events, ref.events) << name << " P=" << ranks;
        }
      }
    }
  }
}

TEST(Simulator, StockRingDeadlocksOnlyInLogGOPSimOrder) {
  // Anchor §7: stock allreduce_ring with P >= 9 makes 2(P-1) recvs ready at once; the unstable
  // sort permutes same-source receives and the schedule deadlocks in LogGOPSim.
  PatternOptions o;
  o.ranks = 9;
  o.bytes = 9000;
  const auto s = generate_pattern("allreduce_ring", o);
  EXPECT_FALSE(run(s, {}, ReadyOrder::LogGOPSim).complete);
  const auto stable = run(s, {}, ReadyOrder::Stable);
  EXPECT_TRUE(stable.complete);
  // Chaining the receives keeps the ready lists short: both orders agree and complete.
  o.chain_receives = true;
  const auto chained = generate_pattern("allreduce_ring", o);
  const auto a = run(chained, {}, ReadyOrder::LogGOPSim);
  const auto b = run(chained, {}, ReadyOrder::Stable);
  EXPECT_TRUE(a.complete);
  EXPECT_EQ(a.end_times, b.end_times);
  EXPECT_EQ(a.end_times, stable.end_times);
}

} // namespace
