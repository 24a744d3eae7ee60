// The model trace (notes 000 §5.3): a late sender injected in the model shows in the trace as a
// Send and a Recv with the predicted timestamps, matched, inside MPI regions with the model's
// source lines as call sites.
#include <gtest/gtest.h>

#include "helpers.hpp"

using namespace parjava::interp;
using namespace parjava::interp::testing;
using parjava::trace::EventKind;

namespace {
std::vector<std::int32_t> events_of(const parjava::trace::Trace &t, std::uint32_t loc,
                                    EventKind kind) {
  std::vector<std::int32_t> out;
  for (auto i = t.location_begin(loc); i < t.location_end(loc); ++i) {
    if (t.events.kind[static_cast<std::size_t>(i)] == kind) {
      out.push_back(i);
    }
  }
  return out;
}
} // namespace

TEST(ModelTrace, LateSenderHasThePredictedTimestamps) {
  // Rank 0 computes 10 us before sending 1000 B; rank 1 receives at once (alpha 1 us, 1 GB/s).
  const auto m2 =
      per_rank("{}", {{compute(10e-6), op("MPI_Send", R"J("dest": 1, "bytes": 1000, "tag": 7)J"),
                       op("MPI_Barrier", "")},
                      {op("MPI_Recv", R"J("source": 0)J"), op("MPI_Barrier", "")}});
  const auto p = run(m2, hockney(1e-6, 1e9), 2, 1, true);
  ASSERT_TRUE(p.trace);
  const auto &t = *p.trace;
  EXPECT_TRUE(t.metadata.is_model);
  ASSERT_EQ(t.location_count(), 2U);
  const auto sends = events_of(t, 0, EventKind::Send);
  const auto recvs = events_of(t, 1, EventKind::Recv);
  ASSERT_EQ(sends.size(), 1U);
  ASSERT_EQ(recvs.size(), 1U);
  const auto s = static_cast<std::size_t>(sends[0]);
  const auto r = static_cast<std::size_t>(recvs[0]);
  EXPECT_EQ(t.events.time[s], 10000); // the send starts after the 10 us block
  EXPECT_EQ(t.events.time[r], 12000); // 10 + alpha + 1000 B / 1 GB/s
  EXPECT_EQ(t.events.peer[s], 1);
  EXPECT_EQ(t.events.peer[r], 0);
  EXPECT_EQ(t.events.tag[r], 7);
  EXPECT_EQ(t.events.bytes[r], 1000U);
  EXPECT_EQ(t.events.match[s], recvs[0]); // matched as a real trace would be
  // The receive's region was entered at 0: the late-sender wait is 10 us of it.
  const auto enters = events_of(t, 1, EventKind::Enter);
  ASSERT_GE(enters.size(), 2U);
  const auto recv_enter = static_cast<std::size_t>(enters[1]);
  EXPECT_EQ(t.events.time[recv_enter], 0);
  EXPECT_EQ(t.regions[t.events.region[recv_enter]].name, "MPI_Recv");
  const std::uint32_t cs = t.events.callsite[recv_enter];
  ASSERT_NE(cs, parjava::trace::kNoRef);
  EXPECT_EQ(t.callsites[cs].line, 110U);
  EXPECT_EQ(t.callsites[cs].file, "t.c");
  // The barrier is one complete collective instance.
  ASSERT_EQ(t.collectives.size(), 1U);
  EXPECT_EQ(t.collectives[0].member_count, 2U);
  EXPECT_EQ(t.unmatched.sends, 0U);
  EXPECT_EQ(t.unmatched.receives, 0U);
}

TEST(ModelTrace, NonBlockingAndLocks) {
  const auto m = per_rank("{}", {{op("MPI_Isend", R"J("dest": 1, "bytes": 8, "request": "r")J"),
                                  op("MPI_Wait", R"J("request": "r")J")},
                                 {op("MPI_Irecv", R"J("source": 0, "request": "r")J"),
                                  op("MPI_Wait", R"J("request": "r")J")}});
  const auto p = run(m, hockney(1e-6, 1e9), 2, 1, true);
  const auto &t = *p.trace;
  EXPECT_EQ(events_of(t, 0, EventKind::IsendPost).size(), 1U);
  EXPECT_EQ(events_of(t, 0, EventKind::IsendComplete).size(), 1U);
  EXPECT_EQ(events_of(t, 1, EventKind::IrecvPost).size(), 1U);
  const auto done = events_of(t, 1, EventKind::IrecvComplete);
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(t.events.time[static_cast<std::size_t>(done[0])], 1008);
  EXPECT_EQ(t.unmatched.request_posts, 0U);
  EXPECT_EQ(t.unmatched.sends, 0U);
}
