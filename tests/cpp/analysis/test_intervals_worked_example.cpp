// The seed-004 worked example (notes 004 §4.4, §6.1, interval exch.c:153, P = 4): a hand-built
// trace whose per-process MPI, communication, idle, skew and variation times are those the
// sample output implies, analysed with the default options, must give the sample's main and
// comparative characteristics to the microsecond.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <sstream>
#include <string>
#include <vector>

#include "interval_test_traces.hpp"
#include "parjava/analysis/intervals/interval_report.hpp"

namespace parjava::analysis {
namespace {

using testing::Program;
using testing::us;
using C = Characteristic;

// Per process (µs): MPI_Init, the two skewed barriers A and B, the p2p time, the end of run.
constexpr std::array<double, 4> kInit{24305, 23480, 23480, 25662};
constexpr std::array<double, 4> kStartA{0, 18797, 18797, 29369};
constexpr std::array<double, 4> kEndA{29819, 29469, 29980, 29915};
constexpr std::array<double, 4> kStartB{1800, 0, 0, 0};
constexpr std::array<double, 4> kEndB{2011, 2011, 1850, 2011};
constexpr double kBarrierC = 1241.25; // everyone together
constexpr std::array<double, 4> kSendRecv{3582.75, 3631.75, 3281.75, 2798.75};
constexpr std::array<double, 4> kRunTime{2079077, 2079975, 2079085, 2079147};
constexpr std::array<int, 4> kPartner{1, 0, 3, 2};

trace::Trace worked_example() {
  Program prog(4);
  for (int p = 0; p < 4; ++p) {
    const auto i = static_cast<std::size_t>(p);
    prog.begin(p, 0);
    prog.call(p, "MPI_Init", 0, us(kInit[i]));
    prog.barrier(p, us(100000 + kStartA[i]), us(100000 + kEndA[i]));
    prog.barrier(p, us(200000 + kStartB[i]), us(200000 + kEndB[i]));
    prog.barrier(p, us(300000), us(300000 + kBarrierC));
    // Sends finish before the receives are posted: no waiting, no potential synchronisation.
    prog.send(p, kPartner[i], 7, us(400000), us(401000));
    prog.recv(p, kPartner[i], 7, us(500000), us(500000 + kSendRecv[i] - 1000));
    prog.end(p, us(kRunTime[i]));
  }
  return prog.finish();
}

TEST(IntervalsWorkedExample, MainCharacteristicsMatchTheSeedSample) {
  const auto trace = worked_example();
  const auto tree = analyze_intervals(trace);
  testing::expect_identities(tree);
  ASSERT_EQ(tree.nodes.size(), 1U);
  const auto &s = tree.root().summary;
  EXPECT_EQ(s.processes, 4U);
  EXPECT_EQ(s.execution_time, us(2079975));
  EXPECT_EQ(s.total_time, us(8319900));
  EXPECT_EQ(s.productive_time, us(8143794));
  EXPECT_EQ(s.lost_time, us(176106));
  EXPECT_EQ(s.lost_mpi, us(173490));
  EXPECT_EQ(s.lost_idle, us(2616));
  EXPECT_EQ(s[C::Communication].sum, us(76563));
  EXPECT_EQ(s[C::SendRecv].sum, us(13295));
  EXPECT_EQ(s[C::Collective].sum, us(63268));
  EXPECT_EQ(s[C::AllToAll].sum, 0);
  EXPECT_EQ(s[C::PotentialSync].sum, us(68763));
  EXPECT_EQ(s[C::TimeVariation].sum, us(1790));
  EXPECT_EQ(s[C::TimeOfStart].sum, 0);
  EXPECT_NEAR(s.efficiency, 0.978833, 5e-7);
}

TEST(IntervalsWorkedExample, ComparativeCharacteristicsMatchTheSeedSample) {
  const auto trace = worked_example();
  const auto tree = analyze_intervals(trace);
  const auto &s = tree.root().summary;
  struct Row {
    C characteristic;
    double min;
    std::uint32_t min_process;
    double max;
    std::uint32_t max_process;
    double mean;
  };
  // notes 004 §6.1, "Comparative Characteristics" (Tmin Nproc Tmax Nproc Tmid), in µs.
  const std::array<Row, 7> rows{{
      {C::Lost, 33087, 3, 60057, 0, 44026},
      {C::Idle, 0, 1, 898, 0, 654},
      {C::Communication, 6597, 3, 34854, 0, 19140},
      {C::Mpi, 32259, 3, 59159, 0, 43372},
      {C::PotentialSync, 1800, 0, 29369, 3, 17190},
      {C::TimeVariation, 161, 1, 607, 3, 447},
      {C::TimeOfStart, 0, 0, 0, 0, 0},
  }};
  for (const auto &row : rows) {
    SCOPED_TRACE(std::string(characteristic_name(row.characteristic)));
    const auto &c = s[row.characteristic];
    EXPECT_EQ(c.min, us(row.min));
    EXPECT_EQ(c.min_process, row.min_process);
    EXPECT_EQ(c.max, us(row.max));
    EXPECT_EQ(c.max_process, row.max_process);
    // The sample's means are rounded from its own integer data: within a microsecond.
    EXPECT_NEAR(c.mean, static_cast<double>(us(row.mean)), 1000.0);
  }
}

TEST(IntervalsWorkedExample, ModeBCountsOneProcessMpiAsProductive) {
  const auto trace = worked_example();
  IntervalOptions options;
  options.productive = ProductiveTime::UserCodeOneMpi;
  const auto tree = analyze_intervals(trace, options);
  testing::expect_identities(tree);
  const auto &s = tree.root().summary;
  // p* = process 3, the least MPI time (32259 µs), now productive.
  EXPECT_EQ(s.least_mpi_process, 3U);
  EXPECT_EQ(s.productive_mpi, us(32259));
  EXPECT_EQ(s.productive_time, us(8143794 + 32259));
  EXPECT_EQ(s.lost_time, us(176106 - 32259));
  EXPECT_EQ(testing::value_of(tree.root(), 3, C::Lost), us(828));
}

TEST(IntervalsWorkedExample, WaitingAttributionMovesSkewToTheEarlyProcesses) {
  const auto trace = worked_example();
  IntervalOptions options;
  options.attribution = SkewAttribution::WaitingProcess;
  const auto tree = analyze_intervals(trace, options);
  testing::expect_identities(tree);
  const auto &root = tree.root();
  // Barrier A: latest start 29369 µs; B: latest start 1800 µs (process 0).
  EXPECT_EQ(testing::value_of(root, 0, C::PotentialSync), us(29369 + 0));
  EXPECT_EQ(testing::value_of(root, 3, C::PotentialSync), us(0 + 1800));
  EXPECT_EQ(testing::value_of(root, 1, C::PotentialSync), us(29369 - 18797 + 1800));
  // Ends: A latest 29980 (process 2), B latest 2011.
  EXPECT_EQ(testing::value_of(root, 2, C::TimeVariation), us(0 + 2011 - 1850));
  EXPECT_EQ(testing::value_of(root, 1, C::TimeVariation), us(29980 - 29469 + 0));
}

TEST(IntervalsWorkedExample, ReportReadsLikeTheSeedSample) {
  const auto trace = worked_example();
  const auto tree = analyze_intervals(trace);
  ReportOptions options;
  options.per_process = false;
  const auto report = interval_report(tree, options);
  std::vector<std::string> lines;
  std::istringstream in(report);
  for (std::string l; std::getline(in, l);) {
    lines.push_back(l);
  }
  // notes 004 §6.1, line by line (the header names our root; the sample's "(CPU MPI)" gets
  // its values; Tmid is compared separately since the sample rounds from its own data).
  const std::vector<std::string> sample{
      " ---Main Characteristics---",
      "Parallelization Efficiency   0.978833",
      "Execution Time               2.079975",
      "Processors                   4",
      "Total Time                   8.319900",
      "Productive Time              8.143794 (CPU 8.143794 MPI 0.000000)",
      "Lost Time                    0.176106",
      "---MPI Time                  0.173490",
      "---Idle Time                 0.002616",
      "Communication Time           0.076563",
      "*****SendRecv Time           0.013295",
      "*****CollectiveAll Time      0.063268",
      "*****AllToAll Time           0.000000",
      "Potential Sync.              0.068763",
      "Time Variation               0.001790",
      "Time of Start                0.000000",
  };
  ASSERT_GT(lines.size(), sample.size() + 1);
  EXPECT_EQ(lines[0].rfind("Interval (LineNumber = 0 SourceFile = ) Level=0 EXE_Count=1", 0), 0U);
  for (std::size_t i = 0; i < sample.size(); ++i) {
    EXPECT_EQ(lines[i + 1], sample[i]);
  }
  const std::vector<std::string> comparative{
      "---Comparative Characteristics---",
      "                 Tmin      Nproc  Tmax      Nproc  Tmid",
      "Lost Time        0.033087  3      0.060057  0      0.04402",
      "Idle Time        0.000000  1      0.000898  0      0.000654",
      "Comm. Time       0.006597  3      0.034854  0      0.01914",
      "MPI Time         0.032259  3      0.059159  0      0.04337",
      "Potential Sync.  0.001800  0      0.029369  3      0.01719",
      "Time variation   0.000161  1      0.000607  3      0.00044",
      "Time of Start    0.000000  0      0.000000  0      0.000000",
  };
  const auto start = std::find(lines.begin(), lines.end(), comparative[0]);
  ASSERT_NE(start, lines.end());
  for (std::size_t i = 0; i < comparative.size(); ++i) {
    ASSERT_LT(static_cast<std::size_t>(start - lines.begin()) + i, lines.size());
    EXPECT_EQ(start[static_cast<std::ptrdiff_t>(i)].rfind(comparative[i], 0), 0U)
        << start[static_cast<std::ptrdiff_t>(i)];
  }
}

} // namespace
} // namespace parjava::analysis
