// Writing GOAL text and parjava's binary form, reading them back, and the pattern generator.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "parjava/error.hpp"
#include "parjava/loggp/goal_binary.hpp"
#include "parjava/loggp/goal_patterns.hpp"
#include "parjava/loggp/goal_reader.hpp"
#include "parjava/loggp/goal_writer.hpp"
#include "parjava/loggp/simulator.hpp"

namespace {

using namespace parjava::loggp; // NOLINT(google-build-using-namespace): test brevity

void expect_same(const GoalSchedule &a, const GoalSchedule &b) {
  ASSERT_EQ(a.num_ranks(), b.num_ranks());
  ASSERT_EQ(a.num_ops(), b.num_ops());
  EXPECT_EQ(a.num_cpus(), b.num_cpus());
  EXPECT_EQ(a.num_nics(), b.num_nics());
  ASSERT_EQ(a.ops().size(), b.ops().size());
  EXPECT_EQ(std::memcmp(a.ops().data(), b.ops().data(), a.ops().size_bytes()), 0);
  ASSERT_EQ(a.dependents().size(), b.dependents().size());
  EXPECT_TRUE(std::equal(a.dependents().begin(), a.dependents().end(), b.dependents().begin()));
  EXPECT_TRUE(std::equal(a.rank_begins().begin(), a.rank_begins().end(), b.rank_begins().begin()));
}

const char *const kMixed = "num_ranks 3\nrank 0 {\na: send 8b to 1 tag 5 cpu 1 nic 2\n"
                           "b: recv 16b from -1 tag -1\nc: calc 100 cpu 3\nd: calc 7\n"
                           "b requires a\nd irequires b\nc requires a\nd requires c\n}\n"
                           "rank 1 {\nrecv 8b from 0 tag 5\nsend 16b to 0 tag 9 nic 1\n}\n"
                           "rank 2 {\n}\n";

TEST(GoalFiles, TextRoundTripGivesTheSameSchedule) {
  const auto original = parse_goal_text(kMixed);
  const std::string text = goal_text(original);
  const auto again = parse_goal_text(text, "written");
  expect_same(original, again);
  EXPECT_NE(text.find("l1: send 8b to 1 tag 5 cpu 1 nic 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("l2: recv 16b from -1 tag -1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("l4 irequires l2\n"), std::string::npos) << text;
}

TEST(GoalFiles, PatternsSurviveTextAndBinaryRoundTrips) {
  const std::string dir = testing::TempDir();
  for (const std::string &name : pattern_names()) {
    PatternOptions o;
    o.ranks = 8;
    o.bytes = 4096;
    o.compute = 10;
    o.chain_receives = true;
    const auto s = generate_pattern(name, o);
    write_goal_file(s, dir + "pj_roundtrip.goal");
    expect_same(s, read_goal_file(dir + "pj_roundtrip.goal"));
    write_goal_binary(s, dir + "pj_roundtrip.pjgoal");
    EXPECT_TRUE(is_goal_binary(dir + "pj_roundtrip.pjgoal"));
    EXPECT_FALSE(is_goal_binary(dir + "pj_roundtrip.goal"));
    const auto b = read_goal_binary(dir + "pj_roundtrip.pjgoal");
    expect_same(s, b);
    EXPECT_EQ(b.source(), s.source());
    EXPECT_EQ(simulate(s, {}).end_times, simulate(b, {}).end_times);
  }
  std::remove((dir + "pj_roundtrip.goal").c_str());
  std::remove((dir + "pj_roundtrip.pjgoal").c_str());
}

TEST(GoalFiles, DamagedBinaryIsRejected) {
  const std::string path = testing::TempDir() + "pj_damaged.pjgoal";
  PatternOptions o;
  o.ranks = 4;
  write_goal_binary(generate_pattern("dissemination", o), path);
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream all;
    all << in.rdbuf();
    bytes = all.str();
  }
  auto expect_rejected = [&path](const std::string &content, const std::string &why) {
    {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out << content;
    }
    try {
      (void)read_goal_binary(path);
      ADD_FAILURE() << "accepted a damaged file: " << why;
    } catch (const parjava::Error &e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  expect_rejected(bytes.substr(0, bytes.size() - 3), "truncated");
  std::string wrong_peer = bytes;
  // First op record: after the 56-byte header, the source name and the rank table.
  const std::size_t source_length = std::string("pattern dissemination ranks=4 bytes=8").size();
  const std::size_t first_op = 56 + source_length + 5 * 4;
  wrong_peer[first_op + 8] = 9; // peer of a send = 9 >= 4 ranks
  expect_rejected(wrong_peer, "invalid kind, peer");
  expect_rejected("not a schedule at all", "missing magic bytes");
  std::remove(path.c_str());
}

TEST(GoalFiles, PatternShapes) {
  PatternOptions o;
  o.ranks = 16;
  o.bytes = 64;
  const auto recdoub = generate_pattern("allreduce_recursive_doubling", o);
  EXPECT_EQ(recdoub.num_ops(), 16U * 4U * 4U); // 2 phases x log2 16 steps x (send + recv)
  EXPECT_EQ(recdoub.count(OpKind::Send), 16U * 8U);
  EXPECT_EQ(recdoub.op(0).size, 32U); // reduce-scatter halves first
  const auto alltoall = generate_pattern("linear_alltoall", o);
  EXPECT_EQ(alltoall.count(OpKind::Send), 16U * 15U);
  EXPECT_EQ(alltoall.num_edges(), 0U);
  const auto ring = generate_pattern("allreduce_ring", o);
  EXPECT_EQ(ring.count(OpKind::Send), 16U * 2U * 15U);
  EXPECT_EQ(ring.op(0).size, 4U); // d / P
  o.compute = 5;
  const auto dissem = generate_pattern("dissemination", o);
  EXPECT_EQ(dissem.count(OpKind::Calc), 16U * 4U);
  o.segment = 10;
  const auto pipe = generate_pattern("pipelined_ring", o);
  EXPECT_EQ(pipe.count(OpKind::Send), 15U * 7U); // ceil(64 / 10) segments, last rank sends none
  EXPECT_EQ(generate_pattern("gather", o).count(OpKind::Recv), 15U);
  EXPECT_EQ(generate_pattern("linear_barrier", o).count(OpKind::Calc), 1U);
  o.ranks = 12;
  EXPECT_THROW((void)generate_pattern("allreduce_recursive_doubling", o), parjava::Error);
  EXPECT_THROW((void)generate_pattern("no_such_pattern", o), parjava::Error);
  o.root = 12;
  EXPECT_THROW((void)generate_pattern("gather", o), parjava::Error);
}

} // namespace
