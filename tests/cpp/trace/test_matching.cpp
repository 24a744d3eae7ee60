// Matching rules on hand-built traces: one test per rule, including wildcards, equal
// envelopes (non-overtaking), Waitall completing in any order, and what stays unmatched.
#include <gtest/gtest.h>

#include "parjava/trace/builder.hpp"
#include "parjava/trace/matching.hpp"

using namespace parjava::trace;

namespace {

// The event of `kind` at `loc` and time `t` (tests give each event its own time).
EventIndex at(const Trace &t, std::uint32_t loc, Timestamp time, EventKind kind) {
  for (auto i = t.location_begin(loc); i < t.location_end(loc); ++i) {
    const auto u = static_cast<std::size_t>(i);
    if (t.events.time[u] == time && t.events.kind[u] == kind) {
      return i;
    }
  }
  ADD_FAILURE() << "no " << event_kind_name(kind) << " at location " << loc << " time " << time;
  return kNoEvent;
}

EventIndex match_of(const Trace &t, EventIndex i) {
  return t.events.match[static_cast<std::size_t>(i)];
}
EventIndex link_of(const Trace &t, EventIndex i) {
  return t.events.link[static_cast<std::size_t>(i)];
}

// A blocking send or receive wrapped in its MPI call.
void blocking_send(TraceBuilder &b, std::uint32_t loc, Timestamp t, std::int32_t dest,
                   std::int32_t tag, std::uint32_t comm, std::uint64_t bytes) {
  b.enter(loc, t, b.region("MPI_Send"));
  b.send(loc, t + 1, dest, tag, comm, bytes);
  b.leave(loc, t + 2);
}
void blocking_recv(TraceBuilder &b, std::uint32_t loc, Timestamp t, std::int32_t source,
                   std::int32_t tag, std::uint32_t comm, std::uint64_t bytes) {
  b.enter(loc, t, b.region("MPI_Recv"));
  b.recv(loc, t + 1, source, tag, comm, bytes);
  b.leave(loc, t + 2);
}

} // namespace

TEST(MessageMatching, EqualEnvelopesPairInOrder) {
  // Non-overtaking: three messages with the same envelope arrive in the order sent.
  TraceBuilder b;
  b.add_ranks(2);
  const auto w = b.world_communicator();
  blocking_send(b, 0, 100, 1, 5, w, 10);
  blocking_send(b, 0, 200, 1, 5, w, 20);
  blocking_send(b, 0, 300, 1, 5, w, 30);
  blocking_recv(b, 1, 150, 0, 5, w, 10);
  blocking_recv(b, 1, 250, 0, 5, w, 20);
  blocking_recv(b, 1, 350, 0, 5, w, 30);
  auto t = b.finish();
  for (Timestamp k = 1; k <= 3; ++k) {
    const auto s = at(t, 0, 100 * k + 1, EventKind::Send);
    const auto r = at(t, 1, 100 * k + 51, EventKind::Recv);
    EXPECT_EQ(match_of(t, s), r);
    EXPECT_EQ(match_of(t, r), s);
  }
  EXPECT_EQ(t.unmatched.total(), 0U);
}

TEST(MessageMatching, TagsSelectTheMessageNotArrivalOrder) {
  // Rank 0 sends tag 1 then tag 2; rank 1 receives tag 2 first.
  TraceBuilder b;
  b.add_ranks(2);
  const auto w = b.world_communicator();
  blocking_send(b, 0, 100, 1, 1, w, 8);
  blocking_send(b, 0, 200, 1, 2, w, 8);
  blocking_recv(b, 1, 100, 0, 2, w, 8);
  blocking_recv(b, 1, 300, 0, 1, w, 8);
  auto t = b.finish();
  EXPECT_EQ(match_of(t, at(t, 0, 101, EventKind::Send)), at(t, 1, 301, EventKind::Recv));
  EXPECT_EQ(match_of(t, at(t, 0, 201, EventKind::Send)), at(t, 1, 101, EventKind::Recv));
  EXPECT_EQ(t.unmatched.total(), 0U);
}

TEST(MessageMatching, CommunicatorsSeparateEqualTags) {
  TraceBuilder b;
  b.add_ranks(2);
  const auto w = b.world_communicator();
  const auto dup = b.add_communicator("dup", {0, 1}, w);
  blocking_send(b, 0, 100, 1, 0, w, 1);
  blocking_send(b, 0, 200, 1, 0, dup, 2);
  blocking_recv(b, 1, 100, 0, 0, dup, 2);
  blocking_recv(b, 1, 200, 0, 0, w, 1);
  auto t = b.finish();
  EXPECT_EQ(match_of(t, at(t, 0, 101, EventKind::Send)), at(t, 1, 201, EventKind::Recv));
  EXPECT_EQ(match_of(t, at(t, 0, 201, EventKind::Send)), at(t, 1, 101, EventKind::Recv));
}

TEST(MessageMatching, WildcardReceivesUseTheActualSourceAndTag) {
  // Master-worker: rank 0 receives with MPI_ANY_SOURCE/ANY_TAG; the trace records the actual
  // source and tag, so each receive pairs with the worker that sent.
  TraceBuilder b;
  b.add_ranks(3);
  const auto w = b.world_communicator();
  blocking_send(b, 1, 100, 0, 11, w, 4);
  blocking_send(b, 2, 50, 0, 12, w, 4);
  blocking_send(b, 2, 150, 0, 12, w, 4);
  blocking_recv(b, 0, 60, 2, 12, w, 4);
  blocking_recv(b, 0, 120, 1, 11, w, 4);
  blocking_recv(b, 0, 170, 2, 12, w, 4);
  auto t = b.finish();
  EXPECT_EQ(match_of(t, at(t, 0, 61, EventKind::Recv)), at(t, 2, 51, EventKind::Send));
  EXPECT_EQ(match_of(t, at(t, 0, 121, EventKind::Recv)), at(t, 1, 101, EventKind::Send));
  EXPECT_EQ(match_of(t, at(t, 0, 171, EventKind::Recv)), at(t, 2, 151, EventKind::Send));
  EXPECT_EQ(t.unmatched.total(), 0U);
}

TEST(MessageMatching, WaitallCompletingInAnyOrderPairsByPostOrder) {
  // Rank 1 posts Irecv A then Irecv B for the same envelope; MPI gives A the first message.
  // The Waitall records B's completion before A's: matching must follow the posts.
  TraceBuilder b;
  b.add_ranks(2);
  const auto w = b.world_communicator();
  blocking_send(b, 0, 100, 1, 3, w, 111);
  blocking_send(b, 0, 200, 1, 3, w, 222);
  b.enter(1, 10, b.region("MPI_Irecv"));
  b.irecv_post(1, 11, /*request=*/0xA);
  b.leave(1, 12);
  b.enter(1, 20, b.region("MPI_Irecv"));
  b.irecv_post(1, 21, 0xB);
  b.leave(1, 22);
  b.enter(1, 300, b.region("MPI_Waitall"));
  b.irecv_complete(1, 301, 0, 3, w, 222, 0xB);
  b.irecv_complete(1, 302, 0, 3, w, 111, 0xA);
  b.leave(1, 303);
  auto t = b.finish();
  const auto post_a = at(t, 1, 11, EventKind::IrecvPost);
  const auto post_b = at(t, 1, 21, EventKind::IrecvPost);
  const auto done_b = at(t, 1, 301, EventKind::IrecvComplete);
  const auto done_a = at(t, 1, 302, EventKind::IrecvComplete);
  EXPECT_EQ(link_of(t, post_a), done_a);
  EXPECT_EQ(link_of(t, done_a), post_a);
  EXPECT_EQ(link_of(t, post_b), done_b);
  EXPECT_EQ(match_of(t, done_a), at(t, 0, 101, EventKind::Send));
  EXPECT_EQ(match_of(t, done_b), at(t, 0, 201, EventKind::Send));
  // The post learns the actual envelope from its completion.
  EXPECT_EQ(t.events.peer[static_cast<std::size_t>(post_a)], 0);
  EXPECT_EQ(t.events.bytes[static_cast<std::size_t>(post_a)], 111U);
  // Completions sit inside the Waitall.
  EXPECT_EQ(t.regions[t.events.region[static_cast<std::size_t>(done_a)]].function,
            Function::MPI_Waitall);
  EXPECT_EQ(t.unmatched.total(), 0U);
}

TEST(RequestMatching, IsendCompletionTestsAndReusedIds) {
  TraceBuilder b;
  b.add_ranks(2);
  const auto w = b.world_communicator();
  // Two Isends reusing request id 7 one after the other; the first is tested once first.
  b.isend(0, 10, 1, 0, w, 100, 7);
  b.request_test(0, 20, 7);
  b.isend_complete(0, 30, 7);
  b.isend(0, 40, 1, 0, w, 200, 7);
  b.isend_complete(0, 50, 7);
  blocking_recv(b, 1, 15, 0, 0, w, 100);
  blocking_recv(b, 1, 45, 0, 0, w, 200);
  auto t = b.finish();
  const auto post1 = at(t, 0, 10, EventKind::IsendPost);
  const auto test = at(t, 0, 20, EventKind::RequestTest);
  const auto done1 = at(t, 0, 30, EventKind::IsendComplete);
  const auto post2 = at(t, 0, 40, EventKind::IsendPost);
  const auto done2 = at(t, 0, 50, EventKind::IsendComplete);
  EXPECT_EQ(link_of(t, post1), done1);
  EXPECT_EQ(link_of(t, test), post1);
  EXPECT_EQ(link_of(t, post2), done2);
  EXPECT_EQ(link_of(t, done2), post2);
  // The completion carries the post's envelope.
  EXPECT_EQ(t.events.bytes[static_cast<std::size_t>(done2)], 200U);
  EXPECT_EQ(t.events.peer[static_cast<std::size_t>(done2)], 1);
  EXPECT_EQ(match_of(t, post2), at(t, 1, 46, EventKind::Recv));
  EXPECT_EQ(t.unmatched.total(), 0U);
}

TEST(RequestMatching, CancelledRequestsAreClosedAndNeverMatched) {
  TraceBuilder b;
  b.add_ranks(2);
  const auto w = b.world_communicator();
  b.isend(0, 10, 1, 9, w, 8, 1);
  b.request_cancelled(0, 20, 1);
  b.irecv_post(1, 10, 2);
  b.request_cancelled(1, 20, 2);
  auto t = b.finish();
  const auto send = at(t, 0, 10, EventKind::IsendPost);
  EXPECT_EQ(link_of(t, send), at(t, 0, 20, EventKind::RequestCancelled));
  EXPECT_EQ(match_of(t, send), kNoEvent);
  EXPECT_EQ(link_of(t, at(t, 1, 10, EventKind::IrecvPost)),
            at(t, 1, 20, EventKind::RequestCancelled));
  EXPECT_EQ(t.unmatched.total(), 0U);
}

TEST(RequestMatching, RequestsAreMatchedAcrossThreadsOfOneProcess) {
  TraceBuilder b;
  const auto main_thread = b.add_location(0, 0);
  const auto worker = b.add_location(0, 1);
  b.add_location(1, 0);
  const auto w = b.world_communicator();
  b.irecv_post(main_thread, 10, 5);
  b.irecv_complete(worker, 20, 1, 0, w, 4, 5);
  b.send(2, 15, 0, 0, w, 4);
  auto t = b.finish();
  const auto post = at(t, main_thread, 10, EventKind::IrecvPost);
  const auto done = at(t, worker, 20, EventKind::IrecvComplete);
  EXPECT_EQ(link_of(t, post), done);
  EXPECT_EQ(match_of(t, done), at(t, 2, 15, EventKind::Send));
  EXPECT_EQ(t.unmatched.total(), 0U);
}

TEST(Unmatched, CountedNotGuessed) {
  TraceBuilder b;
  b.add_ranks(2);
  const auto w = b.world_communicator();
  blocking_send(b, 0, 100, 1, 1, w, 8);      // received with another tag: no pair
  blocking_recv(b, 1, 100, 0, 2, w, 8);      // (receive unmatched too)
  blocking_send(b, 0, 200, 7, 1, w, 8);      // rank 7 does not exist
  b.irecv_post(1, 300, 4);                   // never completed
  b.isend_complete(0, 300, 99);              // completion without post
  b.enter(0, 400, b.region("MPI_Finalize")); // killed inside: never left
  b.leave(1, 400, b.region("main"));         // leave without enter
  auto t = b.finish();
  EXPECT_EQ(t.unmatched.sends, 2U);
  EXPECT_EQ(t.unmatched.receives, 1U);
  EXPECT_EQ(t.unmatched.request_posts, 1U);
  EXPECT_EQ(t.unmatched.request_completions, 1U);
  EXPECT_EQ(t.unmatched.enters_unclosed, 1U);
  EXPECT_EQ(t.unmatched.leaves_unopened, 1U);
  EXPECT_EQ(match_of(t, at(t, 0, 101, EventKind::Send)), kNoEvent);
  EXPECT_EQ(match_of(t, at(t, 1, 101, EventKind::Recv)), kNoEvent);
}

TEST(Unmatched, BrokenNestingClosesTheMatchingRegionOnly) {
  // main > foo > MPI_Send, then a Leave of foo arrives while MPI_Send is open: the
  // MPI_Send Enter is unclosed, foo and main still pair.
  TraceBuilder b;
  b.add_ranks(1);
  const auto main_region = b.region("main");
  const auto foo = b.region("foo");
  b.enter(0, 1, main_region);
  b.enter(0, 2, foo);
  b.enter(0, 3, b.region("MPI_Send"));
  b.leave(0, 4, foo);
  b.leave(0, 5, main_region);
  auto t = b.finish();
  EXPECT_EQ(t.unmatched.enters_unclosed, 1U);
  EXPECT_EQ(t.events.match[3], 1);
  EXPECT_EQ(t.events.match[4], 0);
  EXPECT_EQ(t.events.match[2], kNoEvent);
}

TEST(CollectiveMatching, InstancesPerCommunicatorSequence) {
  TraceBuilder b;
  b.add_ranks(3);
  const auto w = b.world_communicator();
  const auto pair = b.add_communicator("pair", {0, 2}, w);
  auto collective = [&](std::uint32_t loc, Timestamp t0, const char *name, std::uint32_t comm,
                        std::int32_t root) {
    b.enter(loc, t0, b.region(name));
    b.collective_begin(loc, t0 + 1);
    b.collective_end(loc, t0 + 2, /*op=*/2, comm, root, 8, 8);
    b.leave(loc, t0 + 3);
  };
  for (std::uint32_t r = 0; r < 3; ++r) {
    collective(r, 100, "MPI_Bcast", w, 0);
    collective(r, 300, "MPI_Allreduce", w, kNoRank);
  }
  // The sub-communicator collective happens between the two world ones on ranks 0 and 2.
  collective(0, 200, "MPI_Barrier", pair, kNoRank);
  collective(2, 200, "MPI_Barrier", pair, kNoRank);
  auto t = b.finish();
  ASSERT_EQ(t.collectives.size(), 3U);
  const auto &bcast = t.collectives[0];
  EXPECT_EQ(bcast.comm, w);
  EXPECT_EQ(bcast.function, Function::MPI_Bcast);
  EXPECT_EQ(bcast.root, 0);
  EXPECT_EQ(bcast.member_count, 3U);
  EXPECT_EQ(bcast.expected, 3U);
  EXPECT_EQ(t.collectives[1].function, Function::MPI_Allreduce);
  EXPECT_EQ(t.collectives[2].comm, pair);
  EXPECT_EQ(t.collectives[2].member_count, 2U);
  EXPECT_EQ(t.collectives[2].expected, 2U);
  // Members and links.
  for (std::uint32_t m = 0; m < bcast.member_count; ++m) {
    const auto end = t.collective_members[bcast.first_member + m];
    EXPECT_EQ(t.events.kind[static_cast<std::size_t>(end)], EventKind::CollectiveEnd);
    EXPECT_EQ(link_of(t, end), 0);
    EXPECT_EQ(link_of(t, match_of(t, end)), 0);
  }
  const auto begin2 = at(t, 2, 201, EventKind::CollectiveBegin);
  EXPECT_EQ(link_of(t, begin2), 2);
  EXPECT_EQ(match_of(t, begin2), at(t, 2, 202, EventKind::CollectiveEnd));
  EXPECT_EQ(t.unmatched.total(), 0U);
}

TEST(CollectiveMatching, IncompleteAndMismatchedInstancesAreReported) {
  TraceBuilder b;
  b.add_ranks(3);
  const auto w = b.world_communicator();
  auto collective = [&](std::uint32_t loc, Timestamp t0, const char *name) {
    b.enter(loc, t0, b.region(name));
    b.collective_begin(loc, t0 + 1);
    b.collective_end(loc, t0 + 2, 0, w, 0, 0, 0);
    b.leave(loc, t0 + 3);
  };
  collective(0, 100, "MPI_Bcast");
  collective(1, 100, "MPI_Bcast");
  collective(2, 100, "MPI_Reduce"); // a different collective in the same slot
  collective(0, 200, "MPI_Barrier");
  collective(1, 200, "MPI_Barrier"); // rank 2 never reaches the second collective
  auto t = b.finish();
  ASSERT_EQ(t.collectives.size(), 2U);
  EXPECT_EQ(t.unmatched.collectives_mismatched, 1U);
  EXPECT_EQ(t.unmatched.collectives_incomplete, 1U);
  EXPECT_EQ(t.collectives[1].member_count, 2U);
  ASSERT_EQ(t.metadata.warnings.size(), 1U);
  EXPECT_NE(t.metadata.warnings[0].find("MPI_Reduce"), std::string::npos);
}

TEST(LockMatching, RequestAcquireReleaseAndLeftovers) {
  TraceBuilder b;
  b.add_ranks(2);
  const auto set_lock = b.region("shmem_set_lock");
  b.enter(0, 10, set_lock);
  b.lock_request(0, 11, 0, 0x1000);
  b.lock_acquire(0, 15, 0, 0x1000);
  b.leave(0, 16);
  b.lock_release(0, 30, 0, 0x1000);
  b.lock_acquire(1, 40, 0, 0x1000); // never released
  b.lock_release(1, 50, 0, 0x2000); // never acquired
  auto t = b.finish();
  const auto request = at(t, 0, 11, EventKind::LockRequest);
  const auto acquire = at(t, 0, 15, EventKind::LockAcquire);
  const auto release = at(t, 0, 30, EventKind::LockRelease);
  EXPECT_EQ(match_of(t, request), acquire);
  EXPECT_EQ(link_of(t, acquire), request);
  EXPECT_EQ(match_of(t, acquire), release);
  EXPECT_EQ(match_of(t, release), acquire);
  EXPECT_EQ(t.events.region[static_cast<std::size_t>(acquire)], set_lock);
  EXPECT_EQ(t.unmatched.locks_unreleased, 1U);
  EXPECT_EQ(t.unmatched.lock_releases_unacquired, 1U);
}

TEST(IntervalMatching, ByIdEvenWhenNotNested) {
  TraceBuilder b;
  b.add_ranks(1);
  const auto a = b.region("phase A");
  const auto c = b.region("phase C");
  b.interval_begin(0, 1, a, 1);
  b.interval_begin(0, 2, c, 2);
  b.interval_end(0, 3, a, 1); // ends 1 while 2 is open
  b.interval_end(0, 4, c, 2);
  b.interval_begin(0, 5, a, 1); // never ended
  b.interval_end(0, 6, c, 3);   // never begun
  auto t = b.finish();
  EXPECT_EQ(t.events.match[0], 2);
  EXPECT_EQ(t.events.match[1], 3);
  EXPECT_EQ(t.unmatched.intervals_unclosed, 1U);
  EXPECT_EQ(t.unmatched.intervals_unopened, 1U);
  EXPECT_EQ(t.events.region[0], a); // an interval keeps its own region
}

TEST(Matching, RematchingIsIdempotent) {
  TraceBuilder b;
  b.add_ranks(2);
  const auto w = b.world_communicator();
  blocking_send(b, 0, 100, 1, 5, w, 10);
  blocking_recv(b, 1, 100, 0, 5, w, 10);
  auto t = b.finish();
  const auto matched = t.events.match;
  const auto report = t.unmatched;
  match(t);
  EXPECT_EQ(t.events.match, matched);
  EXPECT_EQ(t.unmatched, report);
}

TEST(MessageMatching, ManyRanksUseThePerRankOrdering) {
  // 400 ranks and few messages: the (receiver, sender) table would be larger than the
  // messages, so pairing orders by rank twice. A ring plus a message back to rank 0.
  constexpr std::int32_t kRanks = 400;
  TraceBuilder b;
  b.add_ranks(kRanks);
  const auto w = b.world_communicator();
  for (std::int32_t r = 0; r < kRanks; ++r) {
    const auto loc = static_cast<std::uint32_t>(r);
    blocking_send(b, loc, 100, (r + 1) % kRanks, 1, w, 8);
    blocking_recv(b, loc, 200, (r + kRanks - 1) % kRanks, 1, w, 8);
  }
  blocking_send(b, 399, 300, 0, 2, w, 16);
  blocking_recv(b, 0, 400, 399, 2, w, 16);
  auto t = b.finish();
  EXPECT_EQ(t.unmatched.total(), 0U);
  for (std::uint32_t r = 0; r < kRanks; ++r) {
    const auto send = at(t, r, 101, EventKind::Send);
    EXPECT_EQ(match_of(t, send), at(t, (r + 1) % kRanks, 201, EventKind::Recv));
  }
  EXPECT_EQ(match_of(t, at(t, 399, 301, EventKind::Send)), at(t, 0, 401, EventKind::Recv));
}

TEST(MessageMatching, ManyTagsBetweenOnePairOfRanks) {
  // Ten tags, two messages each, received tag by tag in reverse: more streams than the
  // per-stream zip handles, so the pair is sorted by stream.
  TraceBuilder b;
  b.add_ranks(2);
  const auto w = b.world_communicator();
  for (std::int32_t k = 0; k < 20; ++k) {
    blocking_send(b, 0, 100 * (k + 1), 1, /*tag*/ k % 10, w, static_cast<std::uint64_t>(k));
  }
  Timestamp t = 10'000;
  for (std::int32_t tag = 9; tag >= 0; --tag) {
    for (int copy = 0; copy < 2; ++copy) {
      blocking_recv(b, 1, t, 0, tag, w, static_cast<std::uint64_t>(tag + 10 * copy));
      t += 100;
    }
  }
  auto trace = b.finish();
  EXPECT_EQ(trace.unmatched.total(), 0U);
  for (std::size_t i = 0; i < trace.size(); ++i) {
    if (trace.events.kind[i] == EventKind::Recv) {
      const auto send = static_cast<std::size_t>(trace.events.match[i]);
      // The k-th receive of a tag gets the k-th send of that tag: bytes encode the order.
      EXPECT_EQ(trace.events.bytes[send], trace.events.bytes[i]);
    }
  }
}
