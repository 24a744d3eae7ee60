// The worked examples of shared/anchors/loggopsim-semantics.md §6, each verified there against
// LogGOPSim itself (defaults L=2500 o=1500 g=1000 G=6 O=0 S=65535), plus the README example.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "parjava/loggp/goal_patterns.hpp"
#include "parjava/loggp/goal_reader.hpp"
#include "parjava/loggp/simulator.hpp"

namespace {

using parjava::loggp::LogGPParameters;
using parjava::loggp::parse_goal_text;
using parjava::loggp::ReadyOrder;
using parjava::loggp::SimTime;
using parjava::loggp::simulate;
using parjava::loggp::SimulationOptions;
using parjava::loggp::SimulationResult;

SimulationResult run(const std::string &text, LogGPParameters p = {},
                     ReadyOrder order = ReadyOrder::Stable) {
  const auto schedule = parse_goal_text(text, "example");
  SimulationOptions options;
  options.parameters = p;
  options.order = order;
  SimulationResult r = simulate(schedule, options);
  EXPECT_TRUE(r.complete);
  return r;
}

std::vector<SimTime> times(const SimulationResult &r) { return r.end_times; }

const char *const kEx1 = "num_ranks 2\nrank 0 {\nsend 8b to 1\n}\nrank 1 {\nrecv 8b from 0\n}\n";

TEST(AnchorExamples, Ex1OneEagerMessage) {
  const auto r = run(kEx1);
  EXPECT_EQ(times(r), (std::vector<SimTime>{1500, 5542}));
  EXPECT_EQ(r.events, 3U);
  EXPECT_EQ(r.max_end_time, 5542U);
  EXPECT_EQ(r.max_host, 1U);
}

TEST(AnchorExamples, Ex1RendezvousWithPerByteOverhead) {
  LogGPParameters p;
  p.O = 1;
  p.S = 0;
  EXPECT_EQ(times(run(kEx1, p)), (std::vector<SimTime>{4000, 5542}));
}

TEST(AnchorExamples, Ex1SizeZeroWrapsAround) {
  const std::string zero = "num_ranks 2\nrank 0 {\nsend 0b to 1\n}\nrank 1 {\nrecv 0b from 0\n}\n";
  EXPECT_EQ(times(run(zero)), (std::vector<SimTime>{1500, 5494}));
  LogGPParameters p;
  p.O = 2;
  EXPECT_EQ(times(run(zero, p)), (std::vector<SimTime>{1498, 5498}));
}

TEST(AnchorExamples, Ex2RendezvousReleasesSenderAtMatch) {
  const std::string rendezvous = "num_ranks 2\nrank 0 {\nl1: send 100000b to 1\nl2: calc 100\n"
                                 "l2 requires l1\n}\nrank 1 {\nrecv 100000b from 0\n}\n";
  EXPECT_EQ(times(run(rendezvous)), (std::vector<SimTime>{4100, 605494}));
  const std::string eager = "num_ranks 2\nrank 0 {\nl1: send 65535b to 1\nl2: calc 100\n"
                            "l2 requires l1\n}\nrank 1 {\nrecv 65535b from 0\n}\n";
  EXPECT_EQ(times(run(eager)), (std::vector<SimTime>{1600, 398704}));
}

TEST(AnchorExamples, Ex3UnexpectedMessageChargedOnArrival) {
  const std::string text = "num_ranks 2\nrank 0 {\nsend 8b to 1\n}\nrank 1 {\nl1: calc 10000\n"
                           "l2: recv 8b from 0\nl2 requires l1\n}\n";
  EXPECT_EQ(times(run(text)), (std::vector<SimTime>{1500, 11542}));
}

TEST(AnchorExamples, Ex4SendGap) {
  const std::string text = "num_ranks 3\nrank 0 {\nsend 8b to 1\nsend 8b to 2\n}\n"
                           "rank 1 {\nrecv 8b from 0\n}\nrank 2 {\nrecv 8b from 0\n}\n";
  EXPECT_EQ(times(run(text)), (std::vector<SimTime>{3000, 5542, 7042}));
  LogGPParameters p;
  p.g = 2000;
  EXPECT_EQ(times(run(text, p)), (std::vector<SimTime>{3542, 5542, 7584}));
}

TEST(AnchorExamples, Ex5TagsWildcardsFifo) {
  const std::string text = "num_ranks 2\nrank 0 {\nsend 60000b to 1 tag 5\nsend 8b to 1 tag 6\n}\n"
                           "rank 1 {\nrecv 8b from -1 tag 6\nrecv 60000b from 0 tag -1\n}\n";
  EXPECT_EQ(times(run(text)), (std::vector<SimTime>{362494, 367036}));
}

TEST(AnchorExamples, Ex6IrequiresSameCpu) {
  const std::string text = "num_ranks 2\nrank 0 {\na: send 8b to 1\nb: calc 5000\nc: calc 7\n"
                           "b irequires a\nc requires a\n}\nrank 1 {\nrecv 8b from 0\n}\n";
  EXPECT_EQ(run(text).end_times[0], 6507U);
}

TEST(AnchorExamples, Ex7IrequiresOtherCpuStartsInThePast) {
  const std::string text =
      "num_ranks 2\nrank 0 {\na: send 8b to 1\nb: calc 5000 cpu 1\n"
      "c: calc 7\nb irequires a\nc requires a\n}\nrank 1 {\nrecv 8b from 0\n}\n";
  const auto schedule = parse_goal_text(text, "ex7");
  EXPECT_EQ(schedule.num_cpus(), 2U);
  EXPECT_EQ(run(text).end_times[0], 5000U);
}

TEST(AnchorExamples, Ex8RendezvousUnexpectedDecidedByRecvSize) {
  const std::string text = "num_ranks 2\nrank 0 {\nl1: send 100000b to 1\nl2: calc 10\n"
                           "l2 requires l1\n}\nrank 1 {\nl1: calc 20000\nl2: recv 100000b from 0\n"
                           "l2 requires l1\n}\n";
  EXPECT_EQ(times(run(text)), (std::vector<SimTime>{20010, 621494}));
}

// schedgen -p binomialtreereduce -s 8 -d 1024, verbatim.
const char *const kBinomialTreeReduce8 = R"(num_ranks 8

rank 0 {
l1: recv 1024b from 1 tag 0
l2: recv 1024b from 2 tag 0
l3: recv 1024b from 4 tag 0
}

rank 1 {
l1: send 1024b to 0 tag 0
l2: recv 1024b from 3 tag 0
l1 requires l2
l3: recv 1024b from 5 tag 0
l1 requires l3
}

rank 2 {
l1: send 1024b to 0 tag 0
l2: recv 1024b from 6 tag 0
l1 requires l2
}

rank 3 {
l1: send 1024b to 1 tag 0
l2: recv 1024b from 7 tag 0
l1 requires l2
}

rank 4 {
l1: send 1024b to 0 tag 0
}

rank 5 {
l1: send 1024b to 1 tag 0
}

rank 6 {
l1: send 1024b to 2 tag 0
}

rank 7 {
l1: send 1024b to 3 tag 0
}
)";

TEST(AnchorExamples, ReadmeBinomialTreeReduce) {
  const auto r = run(kBinomialTreeReduce8);
  EXPECT_EQ(times(r), (std::vector<SimTime>{34914, 24776, 13138, 13138, 1500, 1500, 1500, 1500}));
  EXPECT_EQ(r.events, 21U);
}

TEST(AnchorExamples, GeneratedBinomialTreeReduceEqualsSchedgenText) {
  parjava::loggp::PatternOptions o;
  o.ranks = 8;
  o.bytes = 1024;
  const auto generated = parjava::loggp::generate_pattern("binomial_tree_reduce", o);
  const auto r = simulate(generated, SimulationOptions{});
  EXPECT_EQ(times(r), (std::vector<SimTime>{34914, 24776, 13138, 13138, 1500, 1500, 1500, 1500}));
  EXPECT_EQ(r.events, 21U);
}

} // namespace
