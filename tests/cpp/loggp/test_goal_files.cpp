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
  EXPECT_EQ(a.num_edges(), b.num_edges());
  ASSERT_EQ(a.ops().size(), b.ops().size());
  EXPECT_EQ(std::memcmp(a.ops().data(), b.ops().data(), a.ops().size_bytes()), 0);
  ASSERT_EQ(a.shapes().size(), b.shapes().size());
  EXPECT_TRUE(std::equal(a.shapes().begin(), a.shapes().end(), b.shapes().begin()));
  EXPECT_EQ(a.large_counts(), b.large_counts());
  EXPECT_EQ(a.large_splits(), b.large_splits());
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
  // First op record: after the 56 + 32-byte header, the source name, the rank table and the
  // two shapes (send 8 B, recv 8 B); its peer is its first field.
  const std::size_t source_length = std::string("pattern dissemination ranks=4 bytes=8").size();
  const std::size_t first_op = 88 + source_length + 5 * 4 + 2 * 16;
  wrong_peer[first_op] = 9; // peer of a send = 9 >= 4 ranks
  expect_rejected(wrong_peer, "invalid kind, peer");
  std::string implied = bytes;
  implied[first_op + 13] = 0x7f; // requires_at of the first op: 127 ops ahead, past its rank
  expect_rejected(implied, "implied dependencies of operation 0 out of range");
  std::string future = bytes;
  future[8] = 3; // format version 3
  expect_rejected(future, "format version 3, this parjava reads 1 and 2");
  expect_rejected("not a schedule at all", "missing magic bytes");
  std::remove(path.c_str());
}

// A file of format version 1 (32-byte op records, every dependency listed), as parjava wrote
// before issue 18, is still read: rank 0 = {send 8b to 1; calc 5 requires send; recv 4b from 1
// irequires send}, rank 1 = {recv 8b from 0; send 4b to 0 tag 3 requires recv}.
TEST(GoalFiles, VersionOneFileIsConverted) {
  struct OpV1 {
    std::uint64_t size;
    std::uint32_t peer, tag, requires_begin, irequires_begin, dependency_count;
    std::uint8_t kind, cpu, nic, reserved;
  };
  static_assert(sizeof(OpV1) == 32);
  const std::string source = "v1";
  const std::uint32_t rank_begin[] = {0, 3, 5};
  const OpV1 ops[] = {
      {8, 1, 0, 0, 1, 0, 1, 0, 0, 0}, // send: requires-dependents [1], irequires [2]
      {5, 0, 0, 2, 2, 1, 3, 0, 0, 0}, // calc
      {4, 1, 0, 2, 2, 1, 2, 0, 0, 0}, // recv
      {8, 0, 0, 2, 3, 0, 2, 0, 0, 0}, // recv: requires-dependents [4]
      {4, 0, 3, 3, 3, 1, 1, 0, 0, 0}, // send
      {0, 0, 0, 3, 3, 0, 0, 0, 0, 0}, // sentinel
  };
  const std::uint32_t deps[] = {1, 2, 4};
  std::string bytes(56, '\0');
  std::memcpy(bytes.data(), "PJGOAL\x1a\x01", 8);
  const std::uint32_t h32[] = {1, 2};                   // version, ranks
  const std::uint64_t h64[] = {6, 3, 0, source.size()}; // ops, edges, rank offsets, source
  const std::uint32_t units[] = {1, 1};                 // cpus, nics
  std::memcpy(bytes.data() + 8, h32, sizeof(h32));
  std::memcpy(bytes.data() + 16, h64, sizeof(h64));
  std::memcpy(bytes.data() + 48, units, sizeof(units));
  bytes += source;
  bytes.append(reinterpret_cast<const char *>(rank_begin), sizeof(rank_begin)); // NOLINT
  bytes.append(reinterpret_cast<const char *>(ops), sizeof(ops));               // NOLINT
  bytes.append(reinterpret_cast<const char *>(deps), sizeof(deps));             // NOLINT
  const std::string path = testing::TempDir() + "pj_v1.pjgoal";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
  }
  const auto s = read_goal_binary(path);
  const auto text = parse_goal_text("num_ranks 2\nrank 0 {\nl1: send 8b to 1\nl2: calc 5\n"
                                    "l3: recv 4b from 1\nl2 requires l1\nl3 irequires l1\n}\n"
                                    "rank 1 {\nl1: recv 8b from 0\nl2: send 4b to 0 tag 3\n"
                                    "l2 requires l1\n}\n",
                                    "v1");
  expect_same(s, text);
  EXPECT_EQ(s.source(), "v1");
  EXPECT_EQ(s.dependents().size(), 0U); // all three edges are implied now
  EXPECT_EQ(simulate(s, {}).end_times, simulate(text, {}).end_times);
  std::remove(path.c_str());
}

// The 16-byte record (issue 18): a pattern's dependents follow their prerequisite, so no edge is
// listed and the schedule costs 16 bytes per op, its shapes and its rank table.
TEST(GoalFiles, PatternsNeedSixteenBytesPerOp) {
  PatternOptions o;
  o.ranks = 1024;
  o.bytes = 8;
  o.chain_receives = true;
  for (const char *name : {"binomial_tree_bcast", "dissemination", "allreduce_recursive_doubling",
                           "pipelined_ring", "linear_alltoall"}) {
    const auto s = generate_pattern(name, o);
    EXPECT_EQ(s.dependents().size(), 0U) << name;
    EXPECT_LE(s.shapes().size(), 64U) << name;
    const double per_op = static_cast<double>(s.memory_bytes() - 4U * (o.ranks + 1U) -
                                              s.shapes().size() * sizeof(OpShape)) /
                          s.num_ops();
    EXPECT_LE(per_op, 16.5) << name;
  }
  // The reduction's send comes before the recvs of later rounds it waits for (as Schedgen writes
  // it): those edges point backwards and are listed, at most one per rank.
  const auto reduce = generate_pattern("binomial_tree_reduce", o);
  EXPECT_GT(reduce.dependents().size(), 0U);
  EXPECT_LE(reduce.dependents().size(), o.ranks);
  // Mixed lists keep their order: implied run first, then the listed ones.
  const auto mixed = parse_goal_text(kMixed);
  EXPECT_EQ(mixed.requires_dependents(0), (std::vector<OpId>{1, 2}));
  EXPECT_EQ(mixed.irequires_dependents(1), (std::vector<OpId>{3}));
  EXPECT_EQ(mixed.requires_dependents(2), (std::vector<OpId>{3}));
  // A dependent before its prerequisite, and a long fan-out, go to the list.
  std::string text = "num_ranks 1\nrank 0 {\n";
  for (int i = 1; i <= 300; ++i) {
    text += "l" + std::to_string(i) + ": calc 1\n";
  }
  for (int i = 2; i <= 300; ++i) {
    text += "l" + std::to_string(i) + " requires l1\n";
  }
  for (int i = 2; i <= 200; ++i) { // op 298 waits for 200 ops: its count is looked up
    text += "l299 requires l" + std::to_string(i) + "\n";
  }
  text += "l1 irequires l300\n}\n";
  const auto fan = parse_goal_text(text);
  EXPECT_EQ(fan.requires_dependents(0).size(), 299U);
  EXPECT_EQ(fan.requires_dependents(0).back(), 299U);
  EXPECT_EQ(fan.irequires_dependents(299), (std::vector<OpId>{0}));
  EXPECT_EQ(fan.dependency_count(0), 1U);
  EXPECT_EQ(fan.dependency_count(298), 200U);
  EXPECT_EQ(fan.op(298).dependency_count, 200U);
  EXPECT_EQ(fan.num_edges(), 299U + 199U + 1U);
  // Listed: l1's dependents after its implied run of 63, the 170 prerequisites of l299 more
  // than 127 ops before it, and l1 irequires l300.
  EXPECT_EQ(fan.dependents().size(), 236U + 170U + 1U);
  const std::string path = testing::TempDir() + "pj_fan.pjgoal";
  write_goal_binary(fan, path);
  expect_same(fan, read_goal_binary(path));
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
