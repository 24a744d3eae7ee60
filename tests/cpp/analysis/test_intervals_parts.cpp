// The interval analysis in parts (interval_parts.hpp): on the real archives of tests/data/otf2,
// walking disjoint sets of processes — interleaved, uneven, one empty — sending each part as
// bytes and merging gives the serial tree field for field, under every option. (The parallel
// path on MPI, where each part also holds only its own events, is tested by
// tests/python/test_parallel_scan.py.)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "interval_test_traces.hpp"
#include "parjava/analysis/intervals/analyze_intervals.hpp"
#include "parjava/analysis/intervals/interval_parts.hpp"
#include "parjava/error.hpp"
#include "parjava/trace/otf2.hpp"

namespace parjava::analysis {
namespace {

trace::Trace open_archive(const std::string &name) {
  return trace::open(std::string(PARJAVA_SOURCE_DIR) + "/tests/data/otf2/" + name + "/traces.otf2");
}

void expect_same(const IntervalTree &a, const IntervalTree &b) {
  ASSERT_EQ(a.processes.size(), b.processes.size());
  for (std::size_t p = 0; p < a.processes.size(); ++p) {
    EXPECT_EQ(a.processes[p].location, b.processes[p].location);
    EXPECT_EQ(a.processes[p].name, b.processes[p].name);
  }
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    const auto &x = a.nodes[i];
    const auto &y = b.nodes[i];
    EXPECT_EQ(x.name, y.name) << i;
    EXPECT_EQ(x.parent, y.parent) << i;
    EXPECT_EQ(x.children, y.children) << i;
    EXPECT_EQ(x.file, y.file) << i;
    EXPECT_EQ(x.line, y.line) << i;
    EXPECT_EQ(x.exe_count, y.exe_count) << i;
    EXPECT_EQ(x.processes, y.processes) << i;
    EXPECT_EQ(x.executions, y.executions) << i;
    EXPECT_EQ(x.values, y.values) << i;
    EXPECT_EQ(x.exclusive, y.exclusive) << i;
    EXPECT_EQ(x.summary.execution_time, y.summary.execution_time) << i;
    EXPECT_EQ(x.summary.efficiency, y.summary.efficiency) << i;
    EXPECT_EQ(x.summary.least_mpi_process, y.summary.least_mpi_process) << i;
    for (std::size_t c = 0; c < kCharacteristicCount; ++c) {
      EXPECT_EQ(x.summary.characteristics[c].min_process, y.summary.characteristics[c].min_process);
      EXPECT_EQ(x.summary.characteristics[c].mean, y.summary.characteristics[c].mean);
    }
  }
  ASSERT_EQ(a.executions.size(), b.executions.size());
  for (std::size_t e = 0; e < a.executions.size(); ++e) {
    EXPECT_EQ(a.executions[e].node, b.executions[e].node);
    EXPECT_EQ(a.executions[e].process, b.executions[e].process);
    EXPECT_EQ(a.executions[e].begin, b.executions[e].begin);
    EXPECT_EQ(a.executions[e].end, b.executions[e].end);
  }
  EXPECT_EQ(a.begin, b.begin);
  EXPECT_EQ(a.end, b.end);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.warnings, b.warnings);
}

// Parts of `trace`: location l goes to part (l * l) % 3 (interleaved, uneven, part 2 empty as
// squares mod 3 are 0 or 1) and part 3 gets nothing. The parts arrive last first, so the merge
// meets nodes out of the serial order and must restore it from where each was first met.
IntervalTree merged_parts(const trace::Trace &trace, const IntervalOptions &options) {
  const std::size_t parts = 4;
  std::vector<IntervalTree> trees;
  for (std::size_t k = parts; k-- > 0;) {
    std::vector<std::uint8_t> owned(trace.locations.size(), 0);
    for (std::size_t l = 0; l < owned.size(); ++l) {
      owned[l] = static_cast<std::uint8_t>((l * l) % 3 == k ? 1 : 0);
    }
    trees.push_back(interval_part_from_bytes(
        interval_part_bytes(analyze_interval_part(trace, options, owned))));
  }
  return merge_interval_parts(trace, options, std::move(trees));
}

class PartsOfEveryArchive : public ::testing::TestWithParam<const char *> {};

TEST_P(PartsOfEveryArchive, MergedPartsEqualTheSerialTree) {
  const auto trace = open_archive(GetParam());
  std::vector<IntervalOptions> variants(3);
  variants[1].attribution = SkewAttribution::WaitingProcess;
  variants[1].sendrecv = SendRecvTime::MessageTime;
  variants[1].execution = ExecutionTimeBasis::PerExecution;
  variants[1].productive = ProductiveTime::UserCodeOneMpi;
  variants[1].sequential = {"*"};
  variants[2].max_depth = 1;
  for (const auto &options : variants) {
    expect_same(merged_parts(trace, options), analyze_intervals(trace, options));
  }
}

INSTANTIATE_TEST_SUITE_P(ScoreP, PartsOfEveryArchive,
                         ::testing::Values("pipit-ping-pong", "sstmacro-mpi-coverage",
                                           "sst-ember-otf2", "tracer-stencil4d-64",
                                           "fastotf2-mi300-hip"));

TEST(IntervalParts, NodesMetFirstByLaterProcessesKeepTheSerialOrder) {
  // Rank 0 runs "a" only; rank 1 "c" then "b" nested in a region; rank 2 "b" then "a"; rank 3
  // "d". Serial ids: a (rank 0), then c, region, b (rank 1), then d (rank 3).
  testing::Program p(4);
  using testing::us;
  for (int r = 0; r < 4; ++r) {
    p.begin(r, us(0));
  }
  p.interval_begin(0, us(1), 1, "a", "app.c", 10);
  p.interval_end(0, us(5), 1, "a", "app.c", 11);
  p.interval_begin(1, us(1), 3, "c", "app.c", 30);
  p.interval_end(1, us(2), 3, "c", "app.c", 31);
  p.region_enter(1, us(3), "solve");
  p.interval_begin(1, us(4), 2, "b", "app.c", 20);
  p.interval_end(1, us(6), 2, "b", "app.c", 21);
  p.region_leave(1, us(7), "solve");
  p.interval_begin(2, us(1), 2, "b", "app.c", 20);
  p.interval_end(2, us(2), 2, "b", "app.c", 21);
  p.interval_begin(2, us(3), 1, "a", "app.c", 10);
  p.interval_end(2, us(8), 1, "a", "app.c", 11);
  p.interval_begin(3, us(2), 4, "d", "app.c", 40);
  p.interval_end(3, us(3), 4, "d", "app.c", 41);
  for (int r = 0; r < 4; ++r) {
    p.end(r, us(9));
  }
  const auto trace = p.finish();
  const auto serial = analyze_intervals(trace);
  ASSERT_EQ(serial.nodes.size(), 7U); // root, a, c, solve, solve/b, b, d
  EXPECT_EQ(serial.nodes[1].name, "a");
  EXPECT_EQ(serial.nodes[6].name, "d");
  expect_same(merged_parts(trace, {}), serial);
}

TEST(IntervalParts, DamagedBytesAndOverlappingPartsAreErrors) {
  const auto trace = open_archive("pipit-ping-pong");
  const auto bytes = interval_part_bytes(analyze_interval_part(trace, {}, {}));
  EXPECT_THROW((void)interval_part_from_bytes(bytes.substr(0, bytes.size() / 2)), Error);
  EXPECT_THROW((void)interval_part_from_bytes("not a part"), Error);
  std::vector<IntervalTree> twice;
  twice.push_back(interval_part_from_bytes(bytes));
  twice.push_back(interval_part_from_bytes(bytes));
  EXPECT_THROW((void)merge_interval_parts(trace, {}, std::move(twice)), Error);
  std::vector<IntervalTree> none;
  none.push_back(analyze_interval_part(trace, {}, std::vector<std::uint8_t>(1, 0)));
  EXPECT_THROW((void)merge_interval_parts(trace, {}, std::move(none)), Error);
}

} // namespace
} // namespace parjava::analysis
