// The GOAL text reader: what txt2bin accepts parses to the same schedule; everything else is
// rejected with file:line:column and what was expected.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "../../../cpp/src/loggp/mapped_file.hpp"
#include "parjava/error.hpp"
#include "parjava/loggp/goal_patterns.hpp"
#include "parjava/loggp/goal_reader.hpp"
#include "parjava/loggp/goal_schedule.hpp"
#include "parjava/loggp/goal_writer.hpp"

namespace {

using parjava::loggp::GoalSchedule;
using parjava::loggp::kAnySource;
using parjava::loggp::kAnyTag;
using parjava::loggp::OpKind;
using parjava::loggp::parse_goal_text;

std::string error_of(const std::string &text) {
  try {
    (void)parse_goal_text(text, "x.goal");
  } catch (const parjava::Error &e) {
    EXPECT_EQ(e.kind(), parjava::ErrorKind::Model);
    return e.what();
  }
  ADD_FAILURE() << "expected a parse error for:\n" << text;
  return "";
}

// Every array of two schedules, field by field.
void expect_same_schedule(const GoalSchedule &a, const GoalSchedule &b) {
  ASSERT_EQ(a.num_ranks(), b.num_ranks());
  ASSERT_EQ(a.num_ops(), b.num_ops());
  EXPECT_EQ(a.num_cpus(), b.num_cpus());
  EXPECT_EQ(a.num_nics(), b.num_nics());
  EXPECT_EQ(a.num_edges(), b.num_edges());
  for (std::uint32_t r = 0; r <= a.num_ranks(); ++r) {
    ASSERT_EQ(a.rank_begins()[r], b.rank_begins()[r]) << "rank " << r;
  }
  for (std::uint32_t i = 0; i <= a.num_ops(); ++i) {
    const auto &x = a.ops()[i];
    const auto &y = b.ops()[i];
    ASSERT_EQ(x.peer, y.peer) << "op " << i;
    ASSERT_EQ(x.shape, y.shape) << "op " << i;
    ASSERT_EQ(x.edges, y.edges) << "op " << i;
    ASSERT_EQ(x.links, y.links) << "op " << i;
  }
  ASSERT_EQ(a.shapes().size(), b.shapes().size());
  for (std::size_t i = 0; i < a.shapes().size(); ++i) {
    EXPECT_EQ(a.shapes()[i], b.shapes()[i]) << "shape " << i;
  }
  ASSERT_EQ(a.dependents().size(), b.dependents().size());
  for (std::size_t i = 0; i < a.dependents().size(); ++i) {
    EXPECT_EQ(a.dependents()[i], b.dependents()[i]) << "dependent " << i;
  }
  EXPECT_EQ(a.large_counts(), b.large_counts());
  EXPECT_EQ(a.large_splits(), b.large_splits());
}

// The same text with every line longer than the reader's fast path takes (goal_line_scanner.hpp:
// 95 bytes), so that the general scanner reads all of it.
std::string padded(const std::string &text) {
  std::istringstream in(text);
  std::string out;
  std::string line;
  while (std::getline(in, line)) {
    const bool cr = !line.empty() && line.back() == '\r';
    if (cr) {
      line.pop_back();
    }
    out += line + std::string(100, ' ') + (cr ? "\r\n" : "\n");
  }
  return out;
}

// The fast path reads the lines generators write; it must build what the general scanner builds
// from the same lines, for every clause it takes (labels, tags, -1, cpu, nic, irequires, CRLF,
// unlabelled ops, blanks and tabs, a last line without a newline).
TEST(GoalReader, FastPathBuildsWhatTheGeneralScannerBuilds) {
  const std::string text = "num_ranks 3\n"
                           "rank 0 {\n"
                           "l1: send 8b to 1 tag 5 cpu 1 nic 2\n"
                           "l2:recv 16b from -1 tag -1\r\n"
                           "l3: calc 100 cpu 3\n"
                           "calc 7\n"
                           "send\t0b to 2 nic 1\n"
                           "l0: recv 4294967295b from 2 tag 4294967295\n"
                           "l1234567: send 18446744073709551615b to 2 cpu 255\n"
                           "l4: send8b to 1\n"
                           "l2 requires l1\n"
                           "l3 irequires l2\n"
                           "l3 requires l1\n"
                           "  l1234567   requires\tl0  \n"
                           "l4 requiresl3\n"
                           "}\n"
                           "rank 1 {\n"
                           "recv 8b from 0 tag 5\n"
                           "}\n"
                           "rank 2 {\n"
                           "l1: send 0b to 0\n"
                           "l2: recv 0b from 0\n"
                           "l2 irequires l1\n"
                           "}";
  const GoalSchedule fast = parse_goal_text(text);
  const GoalSchedule general = parse_goal_text(padded(text));
  expect_same_schedule(fast, general);
  EXPECT_EQ(fast.num_ops(), 11U);
  EXPECT_EQ(fast.op(0).nic, 2U);
  EXPECT_EQ(fast.op(1).peer, kAnySource);
  EXPECT_EQ(fast.op(5).tag, kAnyTag);
  EXPECT_EQ(fast.op(6).size, 18446744073709551615ULL);
  EXPECT_EQ(fast.op(6).dependency_count, 1U);
  EXPECT_EQ(fast.op(7).dependency_count, 1U);
  EXPECT_EQ(fast.irequires_dependents(1), std::vector<parjava::loggp::OpId>{2U});
  // Schedules as the generators write them, at sizes where ranks hold many ops.
  for (const char *name : {"dissemination", "allreduce_recursive_doubling", "binomial_tree_reduce",
                           "linear_alltoall"}) {
    parjava::loggp::PatternOptions options;
    options.ranks = 16;
    options.bytes = 1024;
    const std::string generated =
        parjava::loggp::goal_text(parjava::loggp::generate_pattern(name, options));
    SCOPED_TRACE(name);
    expect_same_schedule(parse_goal_text(generated), parse_goal_text(padded(generated)));
  }
}

// Ranks with no edge or a single one (most ranks of trees and rings) skip end_rank()'s counting
// sort: whatever the path, every op must decode to the dependents and counts it was given, in
// declaration order -- edges backwards, implied (near) and explicit (beyond the 127 and 63 ops
// a record can point ahead), requires and irequires, beside ranks of several edges.
TEST(GoalReader, RanksWithOneEdgeAtMostDecodeAsDeclared) {
  using parjava::loggp::OpId;
  struct Declared {
    std::uint32_t dependent;
    std::uint32_t prerequisite;
    bool start;
  };
  std::mt19937 random(18);
  const std::uint32_t sizes[] = {1, 2, 3, 5, 70, 140};
  const std::uint32_t edge_counts[] = {0, 1, 1, 1, 2, 3};
  constexpr std::uint32_t kRanks = 400;
  parjava::loggp::GoalScheduleBuilder builder(kRanks);
  std::vector<std::vector<Declared>> declared(kRanks);
  for (std::uint32_t rank = 0; rank < kRanks; ++rank) {
    builder.begin_rank(rank);
    const std::uint32_t n = sizes[random() % std::size(sizes)];
    for (std::uint32_t i = 0; i < n; ++i) {
      if (i % 2 == 0) {
        builder.add_send(8, (rank + 1U) % kRanks);
      } else {
        builder.add_recv(8, kAnySource);
      }
    }
    const std::uint32_t edges = n < 2 ? 0U : edge_counts[random() % std::size(edge_counts)];
    for (std::uint32_t k = 0; k < edges; ++k) {
      const std::uint32_t prerequisite = random() % n;
      std::uint32_t dependent = random() % n;
      if (dependent == prerequisite) {
        dependent = (dependent + 1U) % n;
      }
      const bool start = random() % 3 == 0;
      declared[rank].push_back({dependent, prerequisite, start});
      if (start) {
        builder.add_irequires(dependent, prerequisite);
      } else {
        builder.add_requires(dependent, prerequisite);
      }
    }
    builder.end_rank();
  }
  const GoalSchedule schedule = builder.finish();
  std::uint64_t edges = 0;
  for (std::uint32_t rank = 0; rank < kRanks; ++rank) {
    const OpId base = schedule.rank_begin(rank);
    const std::uint32_t n = schedule.rank_begin(rank + 1U) - base;
    for (std::uint32_t i = 0; i < n; ++i) {
      std::vector<OpId> requires_dependents;
      std::vector<OpId> irequires_dependents;
      std::uint32_t incoming = 0;
      for (const Declared &d : declared[rank]) {
        if (d.prerequisite == i) {
          (d.start ? irequires_dependents : requires_dependents).push_back(base + d.dependent);
        }
        incoming += d.dependent == i ? 1U : 0U;
      }
      SCOPED_TRACE("rank " + std::to_string(rank) + " op " + std::to_string(i));
      EXPECT_EQ(schedule.requires_dependents(base + i), requires_dependents);
      EXPECT_EQ(schedule.irequires_dependents(base + i), irequires_dependents);
      EXPECT_EQ(schedule.dependency_count(base + i), incoming);
    }
    edges += declared[rank].size();
  }
  EXPECT_EQ(schedule.num_edges(), edges);
}

// Lines the fast path reads still count for the positions of later errors, and a label it
// recorded is found by the general scanner (and the other way round).
TEST(GoalReader, ErrorsAfterFastPathLinesNameTheirLine) {
  EXPECT_EQ(error_of("num_ranks 2\nrank 0 {\nl1: send 8b to 1\nl2: recv 8b from 1\n"
                     "l3: send 8b to 2\n}\nrank 1 {\n}\n"),
            "x.goal:5:16: send to rank 2, but the schedule has ranks 0..1");
  EXPECT_EQ(error_of("num_ranks 1\nrank 0 {\nl1: calc 1\nl2: calc 1\nl1: calc 2\n}\n"),
            "x.goal:5:1: label 'l1' is already defined at line 3 of this rank (txt2bin would "
            "silently keep the first one)");
  EXPECT_EQ(error_of("num_ranks 1\nrank 0 {\nl1: calc 1\nl2: calc 1\nl2 requires l1\n"
                     "l3 requires l2\n}\n"),
            "x.goal:6:1: label 'l3' is not defined in this rank (a dependency line must come "
            "after both of its labels)");
  EXPECT_EQ(error_of("num_ranks 1\nrank 0 {\nl1: calc 1\nl1 requires l1\n}\n"),
            "x.goal:4:1: 'l1' depends on itself, so it could never start");
  EXPECT_EQ(error_of("num_ranks 1\nrank 0 {\nl1: calc 1\nl2: calc 1 // why\n}\n"),
            "x.goal:4:12: expected 'cpu' or end of line (calc takes only a cpu clause), found "
            "'/'");
  const auto s = parse_goal_text("num_ranks 1\nrank 0 {\nname: calc 1\nl1: calc 2\n"
                                 "l1 requires name\nname irequires l1\n}\n");
  EXPECT_EQ(s.op(1).dependency_count, 1U);
  EXPECT_EQ(s.op(0).dependency_count, 1U);
}

TEST(GoalReader, AcceptsTxt2binGrammar) {
  const auto s = parse_goal_text("// leading comment\n"
                                 "/* block\n comment */ num_ranks 3\n"
                                 "\n"
                                 "rank 0 {\r\n"
                                 "l1: send 8b to 1 tag 5 cpu 1 nic 2\r\n"
                                 "  l2 :recv 16 b from -1 tag -1\n"
                                 "calc 100 cpu 3\n"
                                 "\tlabel_B: calc 7\n"
                                 "/* before an op */ x9: send 0b to 2\n"
                                 "l2 requires l1\n"
                                 "label_B irequires l2\n"
                                 "x9 requires label_B\n"
                                 "}\n"
                                 "rank 1 { send 8b to 0\n"
                                 "recv 1b from 4294967295 tag 4294967295\n"
                                 "} rank 2 {\n"
                                 "}",
                                 "ok.goal");
  ASSERT_EQ(s.num_ranks(), 3U);
  ASSERT_EQ(s.num_ops(), 7U);
  EXPECT_EQ(s.num_cpus(), 4U); // max cpu over the whole file + 1
  EXPECT_EQ(s.num_nics(), 3U);
  EXPECT_EQ(s.num_edges(), 3U);
  const auto &send = s.op(0);
  EXPECT_EQ(send.kind, OpKind::Send);
  EXPECT_EQ(send.size, 8U);
  EXPECT_EQ(send.peer, 1U);
  EXPECT_EQ(send.tag, 5U);
  EXPECT_EQ(send.cpu, 1U);
  EXPECT_EQ(send.nic, 2U);
  const auto &recv = s.op(1);
  EXPECT_EQ(recv.kind, OpKind::Recv);
  EXPECT_EQ(recv.size, 16U);
  EXPECT_EQ(recv.peer, kAnySource);
  EXPECT_EQ(recv.tag, kAnyTag);
  EXPECT_EQ(s.op(2).kind, OpKind::Calc);
  EXPECT_EQ(s.op(2).cpu, 3U);
  EXPECT_EQ(s.op(4).size, 0U);
  // Dependencies: l2 requires l1, label_B irequires l2, x9 requires label_B.
  ASSERT_EQ(s.requires_dependents(0).size(), 1U);
  EXPECT_EQ(s.requires_dependents(0)[0], 1U);
  ASSERT_EQ(s.irequires_dependents(1).size(), 1U);
  EXPECT_EQ(s.irequires_dependents(1)[0], 3U);
  EXPECT_EQ(s.op(1).dependency_count, 1U);
  EXPECT_EQ(s.op(3).dependency_count, 1U);
  EXPECT_EQ(s.op(4).dependency_count, 1U);
  EXPECT_EQ(s.rank_begin(1), 5U);
  EXPECT_EQ(s.op(6).peer, kAnySource);
  EXPECT_EQ(s.op(6).tag, kAnyTag);
  EXPECT_EQ(s.rank_begin(2), 7U);
  EXPECT_EQ(s.rank_begin(3), 7U);
}

TEST(GoalReader, KeepsDependencyLineOrderPerPrerequisite) {
  // The order of dependents decides ties in the ready list (anchor §2): requires-dependents in
  // line order, irequires-dependents in line order.
  const auto s = parse_goal_text("num_ranks 1\nrank 0 {\na: calc 1\nb: calc 1\nc: calc 1\n"
                                 "d: calc 1\nd requires a\nb irequires a\nc requires a\n"
                                 "b requires c\n}\n");
  const auto req = s.requires_dependents(0);
  ASSERT_EQ(req.size(), 2U);
  EXPECT_EQ(req[0], 3U);
  EXPECT_EQ(req[1], 2U);
  ASSERT_EQ(s.irequires_dependents(0).size(), 1U);
  EXPECT_EQ(s.irequires_dependents(0)[0], 1U);
  EXPECT_EQ(s.op(1).dependency_count, 2U);
}

TEST(GoalReader, KeywordsArePrefixesAfterTheFirstWord) {
  // txt2bin matches "requires", "to", "b" as literal prefixes: "l2 requiresl1" is valid.
  const auto s = parse_goal_text("num_ranks 2\nrank 0 {\nl1: send 8bto1\nl2: calc 5\n"
                                 "l2 requiresl1\n}\nrank 1 {\nrecv 8b from0\n}\n");
  EXPECT_EQ(s.op(0).peer, 1U);
  EXPECT_EQ(s.op(1).dependency_count, 1U);
  EXPECT_EQ(s.op(2).peer, 0U);
}

TEST(GoalReader, ReportsPositionAndExpectation) {
  EXPECT_EQ(error_of("rank 0 {\n}\n"),
            "x.goal:1:1: expected 'num_ranks N' at the start of the schedule, found 'rank'");
  EXPECT_EQ(error_of("num_ranks 1\nrank 0 {\nsend 8 to 0\n}\n"),
            "x.goal:3:8: expected 'b' after the message size, found 'to'");
  EXPECT_EQ(error_of("num_ranks 1\nrank 0 {\nrecv 8b to 0\n}\n"),
            "x.goal:3:9: expected 'from' after the size of a recv, found 'to'");
  EXPECT_EQ(error_of("num_ranks 1\nrank 0 {\nl1: sendx 8b to 0\n}\n"),
            "x.goal:3:9: expected an integer size in bytes after 'send', found 'x'");
  EXPECT_EQ(error_of("num_ranks 1\nrank 0 {\nsend 8b to 0 nic 1 cpu 0\n}\n"),
            "x.goal:3:20: expected end of line (clauses come in the order tag, cpu, nic), "
            "found 'cpu'");
  EXPECT_EQ(error_of("num_ranks 1\nrank 0 {\ncalc 5 tag 1\n}\n"),
            "x.goal:3:8: expected 'cpu' or end of line (calc takes only a cpu clause), found "
            "'tag'");
  EXPECT_EQ(error_of("num_ranks 1\nrank 0 {\nl1 calc 5\n}\n"),
            "x.goal:3:4: expected ':', 'requires' or 'irequires' after the label 'l1', found "
            "'calc'");
  EXPECT_EQ(error_of("num_ranks 1\nrank 0 {\n5: calc 5\n}\n"),
            "x.goal:3:1: expected an operation (send, recv, calc), a label, a comment or '}', "
            "found '5'");
}

TEST(GoalReader, RejectsWhatTxt2binWouldMisbuild) {
  EXPECT_EQ(error_of("num_ranks 2\nrank 0 {\nsend 8b to -1\n}\nrank 1 {\n}\n"),
            "x.goal:3:12: 'send ... to -1' is invalid: a send needs a destination rank; -1 (any "
            "source) is only valid in 'recv ... from -1'");
  EXPECT_EQ(error_of("num_ranks 2\nrank 0 {\nsend 8b to 2\n}\nrank 1 {\n}\n"),
            "x.goal:3:12: send to rank 2, but the schedule has ranks 0..1");
  EXPECT_EQ(error_of("num_ranks 2\nrank 0 {\n}\nrank 1 {\nrecv 8b from 7\n}\n"),
            "x.goal:5:14: recv from rank 7, but the schedule has ranks 0..1");
  EXPECT_EQ(error_of("num_ranks 2\nrank 1 {\n}\nrank 0 {\n}\n"),
            "x.goal:2:6: rank blocks must appear in order 0..1: expected rank 0, found rank 1");
  EXPECT_EQ(error_of("num_ranks 2\nrank 0 {\n}\n"),
            "x.goal:4:1: expected 'rank 1 {', found end of file (the file ends after 1 rank "
            "block(s) but num_ranks is 2)");
  EXPECT_EQ(error_of("num_ranks 1\nrank 0 {\n}\nrank 1 {\n}\n"),
            "x.goal:4:1: expected end of file, found 'rank' (the schedule declares num_ranks 1 "
            "and all of them have been read; txt2bin would silently ignore the rest of the "
            "file)");
  EXPECT_EQ(error_of("num_ranks 1\nrank 0 {\ncalc 5\n"),
            "x.goal:4:1: expected '}', found end of file (rank 0 is not closed)");
  EXPECT_EQ(error_of("num_ranks 1\nrank 0 {\nsend 8b to 0 cpu 256\n}\n"),
            "x.goal:3:18: an integer (0..255) after 'cpu' must be at most 255, found 256");
  EXPECT_EQ(error_of("num_ranks 1\nrank 0 {\ncalc 99999999999999999999\n}\n"),
            "x.goal:3:6: an integer duration after 'calc' must be at most 18446744073709551615, "
            "found 99999999999999999999");
  EXPECT_EQ(error_of("num_ranks 0\n"), "x.goal:1:11: num_ranks must be at least 1");
  // A count the file cannot hold is refused before memory is reserved for it (libFuzzer found
  // a 60-byte file declaring 1.5 billion ranks).
  EXPECT_EQ(error_of("num_ranks 1531723500\nrank 0 {\n}\n"),
            "x.goal:1:20: num_ranks 1531723500 cannot be right: each rank needs a 'rank r { ... "
            "}' block of at least 8 bytes, and the file has 32 bytes");
  EXPECT_EQ(error_of("num_ranks 1\nnum_ranks 1\n"),
            "x.goal:2:1: num_ranks is given twice; it must appear once, before the first rank");
  EXPECT_EQ(error_of("num_ranks 1\n/* never closed\nrank 0 {\n}\n"),
            "x.goal:2:1: comment opened here is never closed with '*/'");
}

TEST(GoalReader, RejectsBadLabels) {
  EXPECT_EQ(error_of("num_ranks 1\nrank 0 {\nl1: calc 1\nl2 requires l1\n}\n"),
            "x.goal:4:1: label 'l2' is not defined in this rank (a dependency line must come "
            "after both of its labels)");
  EXPECT_EQ(error_of("num_ranks 1\nrank 0 {\nl1: calc 1\nl1 requires lost\n}\n"),
            "x.goal:4:13: label 'lost' is not defined in this rank (a dependency line must come "
            "after both of its labels)");
  EXPECT_EQ(error_of("num_ranks 1\nrank 0 {\nl1: calc 1\nl1 irequires l1\n}\n"),
            "x.goal:4:1: 'l1' depends on itself, so it could never start");
  EXPECT_EQ(error_of("num_ranks 1\nrank 0 {\nname: calc 1\nname: calc 2\n}\n"),
            "x.goal:4:1: label 'name' is already defined at line 3 of this rank (txt2bin would "
            "silently keep the first one)");
  EXPECT_EQ(error_of("num_ranks 1\nrank 0 {\nl7: calc 1\nl7: calc 2\n}\n"),
            "x.goal:4:1: label 'l7' is already defined at line 3 of this rank (txt2bin would "
            "silently keep the first one)");
  // Labels are per rank: the same name in two ranks is fine, a reference across ranks is not.
  EXPECT_NO_THROW(
      (void)parse_goal_text("num_ranks 2\nrank 0 {\nl1: calc 1\n}\nrank 1 {\nl1: calc 1\n}\n"));
  EXPECT_EQ(error_of("num_ranks 2\nrank 0 {\nl1: calc 1\n}\nrank 1 {\nl2: calc 1\n"
                     "l2 requires l1\n}\n"),
            "x.goal:7:13: label 'l1' is not defined in this rank (a dependency line must come "
            "after both of its labels)");
}

TEST(GoalReader, ReadsFilesAndLocatesOps) {
  const std::string path = testing::TempDir() + "parjava_reader_test.goal";
  {
    std::ofstream out(path);
    out << "num_ranks 2\n\nrank 0 {\nl1: send 8b to 1\n}\n\nrank 1 {\n// c\nl1: calc 3\n"
           "  l2: recv 8b from 0\n}\n";
  }
  const GoalSchedule s = parjava::loggp::read_goal_file(path);
  EXPECT_EQ(s.num_ops(), 3U);
  EXPECT_EQ(s.source(), path);
  const auto pos = parjava::loggp::locate_goal_ops(s, path, {0U, 2U});
  ASSERT_EQ(pos.size(), 2U);
  EXPECT_EQ(pos[0].rank, 0U);
  EXPECT_EQ(pos[0].line, 4U);
  EXPECT_EQ(pos[1].rank, 1U);
  EXPECT_EQ(pos[1].op_offset, 1U);
  EXPECT_EQ(pos[1].line, 10U);
  EXPECT_EQ(pos[1].column, 3U);
  std::remove(path.c_str());
  try {
    (void)parjava::loggp::read_goal_file(path);
    ADD_FAILURE() << "reading a missing file must fail";
  } catch (const parjava::Error &e) {
    EXPECT_NE(std::string(e.what()).find("cannot open " + path), std::string::npos);
  }
}

// The reader gives back the pages of parsed ranks while it parses: the text must read the same
// afterwards (a private file mapping faults dropped pages in from the file again), whether the
// boundary is inside a page or not.
TEST(GoalReader, ReleasedPagesOfAMappedFileReadTheSame) {
  const std::string path = testing::TempDir() + "parjava_mapped_release.txt";
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  std::string text(3 * page + 123, ' ');
  for (std::size_t i = 0; i < text.size(); ++i) {
    text[i] = static_cast<char>('a' + (i * 7U) % 26U);
  }
  {
    std::ofstream out(path, std::ios::binary);
    out << text;
  }
  {
    parjava::loggp::MappedFile file(path, parjava::ErrorKind::Model);
    ASSERT_EQ(file.size(), text.size());
    EXPECT_EQ(std::string(file.data(), file.size()), text);
    file.release_before(file.data() + page + 17);
    EXPECT_EQ(std::string(file.data(), file.size()), text);
    file.release_before(file.data() + 2 * page);
    file.release_before(file.data() + page); // behind what was released: nothing to do
    file.release_before(file.data() + file.size());
    EXPECT_EQ(std::string(file.data(), file.size()), text);
    // Read-ahead requests past either end are clipped (advice only: the text is unchanged).
    file.will_need(0, std::size_t{1} << 40U);
    file.will_need(file.size() - 1, 4096);
    file.will_need(file.size(), 4096);
    file.will_need(page + 5, 2 * page);
    EXPECT_EQ(std::string(file.data(), file.size()), text);
  }
  std::remove(path.c_str());
}

} // namespace
