// Timeline extraction: calls by category, window clipping, messages, bins for crowded rows.
#include <gtest/gtest.h>

#include <algorithm>

#include "interval_test_traces.hpp"
#include "parjava/analysis/intervals/timeline.hpp"
#include "parjava/error.hpp"

namespace parjava::analysis {
namespace {

using testing::Program;

trace::Trace two_ranks() {
  Program prog(2);
  prog.begin(0, 0);
  prog.begin(1, 0);
  prog.send(0, 1, 1, 100, 150);
  prog.recv(1, 0, 1, 120, 200);
  prog.barrier(0, 300, 400);
  prog.barrier(1, 350, 400);
  prog.irecv(0, 5, 500, 510);
  prog.send(1, 0, 2, 600, 610);
  prog.wait_recv(0, 1, 2, 5, 620, 650);
  prog.end(0, 1000);
  prog.end(1, 1000);
  return prog.finish();
}

TEST(IntervalTimeline, CallsAreBarsColouredByCategory) {
  const auto trace = two_ranks();
  const auto data = extract_timeline(trace);
  ASSERT_EQ(data.rows.size(), 2U);
  EXPECT_EQ(data.begin, 0);
  EXPECT_EQ(data.end, 1000);
  // Rank 0: Send (2), Barrier (1), Irecv (5), Wait (4).
  std::vector<std::uint8_t> rank0;
  for (std::size_t i = 0; i < data.bar_row.size(); ++i) {
    if (data.bar_row[i] == 0) {
      rank0.push_back(data.bar_category[i]);
    }
  }
  EXPECT_EQ(rank0, (std::vector<std::uint8_t>{2, 1, 5, 4}));
  EXPECT_EQ(data.bar_begin.front(), 100);
  EXPECT_EQ(data.bar_end.front(), 150);
  ASSERT_EQ(data.message_send.size(), 2U);
  EXPECT_EQ(data.messages_in_window, 2U);
  EXPECT_EQ(data.message_from_row[0], 0U);
  EXPECT_EQ(data.message_to_row[0], 1U);
  EXPECT_EQ(data.message_send[0], 100);
  EXPECT_EQ(data.message_receive[0], 200);
}

TEST(IntervalTimeline, WindowClipsCallsAndKeepsMessagesCrossingIt) {
  const auto trace = two_ranks();
  TimelineOptions options;
  options.begin = 130;
  options.end = 360;
  const auto data = extract_timeline(trace, options);
  // Rank 0's Send (100..150) began before the window: clipped to 130..150.
  ASSERT_FALSE(data.bar_row.empty());
  EXPECT_EQ(data.bar_row[0], 0U);
  EXPECT_EQ(data.bar_begin[0], 130);
  EXPECT_EQ(data.bar_end[0], 150);
  // Rank 1's barrier runs past the window's end.
  const auto last = data.bar_row.size() - 1;
  EXPECT_EQ(data.bar_row[last], 1U);
  EXPECT_EQ(data.bar_end[last], 360);
  // The first message was sent before the window and received inside it.
  ASSERT_EQ(data.message_send.size(), 1U);
  EXPECT_EQ(data.message_send[0], 100);
}

TEST(IntervalTimeline, CrowdedRowsAreBinnedAndMessagesThinned) {
  Program prog(2);
  for (int p = 0; p < 2; ++p) {
    prog.begin(p, 0);
  }
  for (trace::Timestamp k = 0; k < 1000; ++k) {
    // 1000 exchanges; rank 0 spends 80% of the time in MPI_Send, rank 1 20% in MPI_Recv.
    prog.send(0, 1, 0, 100 * k, 100 * k + 80);
    prog.recv(1, 0, 0, 100 * k + 80, 100 * k + 100);
  }
  for (int p = 0; p < 2; ++p) {
    prog.end(p, 100000);
  }
  const auto trace = prog.finish();
  TimelineOptions options;
  options.max_bars_per_row = 100;
  options.max_messages = 10;
  const auto data = extract_timeline(trace, options);
  EXPECT_EQ(data.row_binned, (std::vector<std::uint8_t>{1, 1}));
  // Rank 0 is mostly in MPI_Send: one merged bin of category 2 over the whole window; rank 1
  // is mostly user code: no bar.
  ASSERT_EQ(data.bar_row.size(), 1U);
  EXPECT_EQ(data.bar_row[0], 0U);
  EXPECT_EQ(data.bar_category[0], 2U);
  EXPECT_EQ(data.bar_region[0], trace::kNoRef);
  EXPECT_EQ(data.messages_in_window, 1000U);
  EXPECT_EQ(data.message_send.size(), 10U);
}

TEST(IntervalTimeline, EmptyWindowIsAUsageError) {
  const auto trace = two_ranks();
  TimelineOptions options;
  options.begin = 500;
  options.end = 500;
  try {
    (void)extract_timeline(trace, options);
    FAIL() << "expected a UsageError";
  } catch (const Error &e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
  }
}

} // namespace
} // namespace parjava::analysis
