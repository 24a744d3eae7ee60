// MPI point-to-point semantics under Hockney with hand-computed times: alpha = 1 us,
// 1 ns per byte, so T(1000 B) = 2 us and T(8 B) = 1.008 us.
#include <gtest/gtest.h>

#include "helpers.hpp"
#include "parjava/error.hpp"

using namespace parjava::interp;
using namespace parjava::interp::testing;

namespace {
constexpr double us = 1e-6;
constexpr double eps = 1e-13;

parjava::machine::Machine net(std::uint64_t eager = 1 << 20) { return hockney(1e-6, 1e9, eager); }

Prediction go(const parjava::model::Model &m, const parjava::machine::Machine &machine,
              std::int64_t np, bool contention = true) {
  InterpretOptions o;
  o.processes = np;
  o.endpoint_contention = contention;
  return interpret(m, machine, o);
}
} // namespace

TEST(PointToPoint, EagerSendAndRecv) {
  const auto m = per_rank("{}", {{op("MPI_Send", R"J("dest": 1, "bytes": 1000)J")},
                                 {op("MPI_Recv", R"J("source": 0)J")}});
  const auto p = go(m, net(), 2);
  EXPECT_NEAR(p.end_times[0], 1 * us, eps); // the sender injects 1000 B
  EXPECT_NEAR(p.end_times[1], 2 * us, eps); // alpha + n/B
}

TEST(PointToPoint, EagerLateReceiverFindsTheDataWaiting) {
  const auto m = per_rank("{}", {{op("MPI_Send", R"J("dest": 1, "bytes": 1000)J")},
                                 {compute(5e-6), op("MPI_Recv", R"J("source": 0)J")}});
  const auto p = go(m, net(), 2);
  EXPECT_NEAR(p.end_times[1], 5 * us, eps);
}

// notes 000 §3.9, blocking Recv: time_recv = (t_ready - t_0) + time_comm if t_ready > t_0,
// time_comm otherwise (rendezvous: the transfer starts when both are there).
TEST(PointToPoint, RendezvousNeighbourReadBlocking) {
  const auto late_sender =
      per_rank("{}", {{compute(3e-6), op("MPI_Send", R"J("dest": 1, "bytes": 1000)J")},
                      {op("MPI_Recv", R"J("source": 0)J")}});
  auto p = go(late_sender, net(100), 2);
  EXPECT_NEAR(p.end_times[1], 5 * us, eps);
  EXPECT_NEAR(p.end_times[0], 5 * us, eps);
  const auto late_receiver = per_rank("{}", {{op("MPI_Send", R"J("dest": 1, "bytes": 1000)J")},
                                             {compute(3e-6), op("MPI_Recv", R"J("source": 0)J")}});
  p = go(late_receiver, net(100), 2);
  EXPECT_NEAR(p.end_times[1], 5 * us, eps); // time_recv = time_comm = 2 us
  EXPECT_NEAR(p.end_times[0], 5 * us, eps); // the sender waited for the receiver
}

// notes 000 §3.9, Irecv ... Wait: the three cases of time_wait.
TEST(PointToPoint, RendezvousNeighbourReadNonBlocking) {
  const auto model = [](double t_ready, double before_irecv, double t_wait_after) {
    return per_rank("{}",
                    {{compute(t_ready), op("MPI_Send", R"J("dest": 1, "bytes": 1000)J")},
                     {compute(before_irecv), op("MPI_Irecv", R"J("source": 0, "request": "r")J"),
                      compute(t_wait_after), op("MPI_Wait", R"J("request": "r")J")}});
  };
  // t_ready = 4 > t_0 = 1: wait = (4 - 1) + 2 -> ends at 6
  EXPECT_NEAR(go(model(4e-6, 0, 1e-6), net(100), 2).end_times[1], 6 * us, eps);
  // t_irecv = 0 < t_ready = 1 < t_0 = 2: wait = 2 - (2 - 1) = 1 -> ends at 3
  EXPECT_NEAR(go(model(1e-6, 0, 2e-6), net(100), 2).end_times[1], 3 * us, eps);
  // t_ready = 0 < t_irecv = 1, t_0 = 2: wait = 2 - (2 - 1) = 1 -> ends at 3
  EXPECT_NEAR(go(model(0, 1e-6, 1e-6), net(100), 2).end_times[1], 3 * us, eps);
  // t_0 - t_irecv = 5 > time_comm: no wait -> ends at 6
  EXPECT_NEAR(go(model(0, 1e-6, 5e-6), net(100), 2).end_times[1], 6 * us, eps);
}

TEST(PointToPoint, SynchronousSendWaitsForTheReceiver) {
  const auto m = per_rank("{}", {{op("MPI_Ssend", R"J("dest": 1, "bytes": 8)J")},
                                 {compute(3e-6), op("MPI_Recv", R"J("source": 0)J")}});
  const auto p = go(m, net(), 2); // 8 B is far below the eager limit: Ssend is still synchronous
  EXPECT_NEAR(p.end_times[0], 4.008 * us, eps);
  const auto standard = per_rank("{}", {{op("MPI_Send", R"J("dest": 1, "bytes": 8)J")},
                                        {compute(3e-6), op("MPI_Recv", R"J("source": 0)J")}});
  EXPECT_NEAR(go(standard, net(), 2).end_times[0], 0.008 * us, eps);
}

TEST(PointToPoint, BufferedSendCopiesThenGoesEager) {
  parjava::machine::ThreadCosts costs;
  costs.copy_per_byte = 1e-10;
  const auto machine = net(100).with_threads(costs);
  const auto m = per_rank("{}", {{op("MPI_Bsend", R"J("dest": 1, "bytes": 1000)J")},
                                 {op("MPI_Recv", R"J("source": 0)J")}});
  const auto p = go(m, machine, 2);
  EXPECT_NEAR(p.end_times[0], 1.1 * us, eps); // copy 0.1 us, inject 1 us, no handshake
  EXPECT_NEAR(p.end_times[1], 2.1 * us, eps);
}

TEST(PointToPoint, ReadySendBeforeItsReceiveIsReported) {
  const auto m = per_rank("{}", {{op("MPI_Rsend", R"J("dest": 1, "bytes": 1000)J")},
                                 {compute(5e-6), op("MPI_Recv", R"J("source": 0)J")}});
  const auto p = go(m, net(100), 2);
  EXPECT_NEAR(p.end_times[1], 5 * us, eps); // eager despite the size
  ASSERT_EQ(p.warnings.size(), 1U);
  EXPECT_NE(p.warnings[0].find("MPI_Rsend"), std::string::npos);
}

TEST(PointToPoint, AnySourceIsResolvedInModelTimeOrder) {
  // Rank 0 receives twice from ANY_SOURCE; rank 2 sends at 1 us, rank 1 at 3 us. The first
  // receive must get rank 2's message; its status then decides a compute of (s + 1) us.
  const auto m =
      per_rank("{}", {{op("MPI_Recv", R"J("source": "ANY_SOURCE", "status_source": "s")J"),
                       R"J({"kind": "cb", "time": "1e-6 * (s + 1)"})J",
                       op("MPI_Recv", R"J("source": "ANY_SOURCE", "status_source": "s2")J"),
                       R"J({"kind": "cb", "time": "1e-3 * s2"})J"},
                      {compute(3e-6), op("MPI_Send", R"J("dest": 0, "bytes": 8)J")},
                      {compute(1e-6), op("MPI_Send", R"J("dest": 0, "bytes": 8)J")}});
  const auto p = go(m, net(), 3);
  // first message at 2.008 us (s = 2), compute 3 us -> 5.008; second (s2 = 1) arrived at
  // 4.008 -> completes at once, then 1 ms
  EXPECT_NEAR(p.end_times[0], 5.008 * us + 1e-3, 1e-12);
}

TEST(PointToPoint, MessagesDoNotOvertake) {
  // Two Isends from rank 0 (a big one first); rank 1 receives with ANY_TAG twice: the first
  // receive gets the first message even though the second one's data arrives earlier.
  const auto m = per_rank(
      "{}", {{op("MPI_Isend", R"J("dest": 1, "bytes": 100000, "tag": 1, "request": "r")J"),
              op("MPI_Isend", R"J("dest": 1, "bytes": 8, "tag": 2, "request": "r", "index": 1)J"),
              op("MPI_Waitall", R"J("request": "r")J")},
             {op("MPI_Recv", R"J("source": 0, "status_tag": "t1")J"),
              op("MPI_Recv", R"J("source": 0, "status_tag": "t2")J"),
              R"J({"kind": "cb", "time": "1e-3 * t1 + 1e-2 * t2"})J"}});
  const auto p = go(m, net(), 2, false);
  EXPECT_NEAR(p.end_times[1], 101 * us + 1e-3 + 2e-2, 1e-12);
}

TEST(PointToPoint, WaitanyTakesTheFirstCompletion) {
  const auto m = per_rank("{}", {{op("MPI_Irecv", R"J("source": 1, "request": "r", "index": 0)J"),
                                  op("MPI_Irecv", R"J("source": 2, "request": "r", "index": 1)J"),
                                  op("MPI_Waitany", R"J("request": "r", "status_index": "k")J"),
                                  R"J({"kind": "cb", "time": "1e-6 * (k + 1)"})J",
                                  op("MPI_Waitall", R"J("request": "r")J")},
                                 {compute(5e-6), op("MPI_Send", R"J("dest": 0, "bytes": 8)J")},
                                 {compute(1e-6), op("MPI_Send", R"J("dest": 0, "bytes": 8)J")}});
  const auto p = go(m, net(), 3);
  // Waitany at 2.008 (rank 2, k = 1), compute 2 us -> 4.008, Waitall until 6.008
  EXPECT_NEAR(p.end_times[0], 6.008 * us, eps);
}

TEST(PointToPoint, TestLoopPollsUntilComplete) {
  // while (!flag) { compute 1 us; MPI_Test }
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2]},
    {"id": 2, "kind": "if-else", "cond": "rank == 0", "children": [3, 5]},
    {"id": 3, "kind": "seq", "children": [30, 4]},
    {"id": 30, "kind": "cb", "time": 3.5e-6},
    {"id": 4, "kind": "cfc", "op": "MPI_Send", "args": {"dest": 1, "bytes": 8}},
    {"id": 5, "kind": "seq", "children": [6, 7]},
    {"id": 6, "kind": "cfc", "op": "MPI_Irecv", "args": {"source": 0, "request": "r"}},
    {"id": 7, "kind": "while", "cond": "!flag", "children": [8]},
    {"id": 8, "kind": "seq", "children": [9, 10]},
    {"id": 9, "kind": "cb", "time": 1e-6},
    {"id": 10, "kind": "cfc", "op": "MPI_Test", "args": {"request": "r", "flag": "flag"}})J");
  const auto p = go(m, net(), 2);
  // data at 3.5 + 1.008 = 4.508 us; tests at 1, 2, 3, 4 fail, at 5 succeeds
  EXPECT_NEAR(p.end_times[1], 5 * us, eps);
  EXPECT_EQ(stats(p, 10).freq, 5U);
}

TEST(PointToPoint, ProbeSeesTheMessageWithoutTakingIt) {
  const auto m = per_rank(
      "{}", {{compute(2e-6), op("MPI_Send", R"J("dest": 1, "bytes": 500)J")},
             {op("MPI_Probe", R"J("source": "ANY_SOURCE", "status_bytes": "n")J"),
              R"J({"kind": "cb", "time": "1e-9 * n"})J", op("MPI_Recv", R"J("source": 0)J")}});
  const auto p = go(m, net(), 2);
  // the envelope arrives at 2 + 1 = 3 us (the probe returns), compute n = 500 B -> 0.5 us;
  // the data is complete at 3.5 us, when the receive is posted
  EXPECT_NEAR(p.end_times[1], 3.5 * us, eps);
}

TEST(PointToPoint, ProcNullCompletesAtOnce) {
  const auto m =
      per_rank("{}", {{op("MPI_Send", R"J("dest": "PROC_NULL", "bytes": 1000)J"),
                       op("MPI_Recv", R"J("source": "PROC_NULL", "status_source": "s")J"),
                       R"J({"kind": "cb", "time": "s == PROC_NULL ? 1e-6 : 1"})J"}});
  EXPECT_NEAR(go(m, net(), 1).program_time, 1 * us, eps);
}

TEST(PointToPoint, EndpointContentionSerialisesInjection) {
  const auto m =
      per_rank("{}", {{op("MPI_Isend", R"J("dest": 1, "bytes": 1000, "request": "r")J"),
                       op("MPI_Isend", R"J("dest": 2, "bytes": 1000, "request": "r", "index": 1)J"),
                       op("MPI_Waitall", R"J("request": "r")J")},
                      {op("MPI_Recv", R"J("source": 0)J")},
                      {op("MPI_Recv", R"J("source": 0)J")}});
  auto p = go(m, net(), 3);
  EXPECT_NEAR(p.end_times[1], 2 * us, eps);
  EXPECT_NEAR(p.end_times[2], 3 * us, eps); // injected after the first message
  EXPECT_NEAR(p.end_times[0], 2 * us, eps);
  p = go(m, net(), 3, false);
  EXPECT_NEAR(p.end_times[2], 2 * us, eps); // textbook Hockney: independent messages
}

TEST(PointToPoint, PlacementChoosesIntraOrInterNode) {
  // 2 ranks per node; the inter-node network is 10x slower (alpha 10 us, 0.1 GB/s).
  const auto machine = hockney(1e-6, 1e9, 1 << 20, 2, 10.0);
  const auto m = per_rank("{}", {{op("MPI_Send", R"J("dest": 1, "bytes": 1000)J"),
                                  op("MPI_Send", R"J("dest": 2, "bytes": 1000)J")},
                                 {op("MPI_Recv", R"J("source": 0)J")},
                                 {op("MPI_Recv", R"J("source": 0)J")}});
  const auto p = go(m, machine, 3, false);
  EXPECT_NEAR(p.end_times[1], 2 * us, eps);
  // the second send starts after the first injection (1 us); inter-node T = 10 + 10 us
  EXPECT_NEAR(p.end_times[2], 21 * us, eps);
}

TEST(PointToPoint, FacingRendezvousSendsDeadlock) {
  const auto m = per_rank(
      "{}",
      {{op("MPI_Send", R"J("dest": 1, "bytes": 1000000)J"), op("MPI_Recv", R"J("source": 1)J")},
       {op("MPI_Send", R"J("dest": 0, "bytes": 1000000)J"), op("MPI_Recv", R"J("source": 0)J")}});
  try {
    go(m, net(65536), 2);
    FAIL() << "no deadlock reported";
  } catch (const DeadlockError &e) {
    ASSERT_EQ(e.blocked().size(), 2U);
    EXPECT_EQ(e.kind(), parjava::ErrorKind::Deadlock);
    EXPECT_EQ(e.blocked()[0].rank, 0);
    EXPECT_EQ(e.blocked()[1].rank, 1);
    EXPECT_EQ(e.blocked()[0].operation, "MPI_Send");
    EXPECT_EQ(e.blocked()[0].location, "t.c:10");
    EXPECT_EQ(e.blocked()[1].location, "t.c:110");
    EXPECT_NE(e.blocked()[0].waiting_for.find("rank 1"), std::string::npos);
    const std::string what = e.what();
    EXPECT_NE(what.find("rank 0: MPI_Send"), std::string::npos) << what;
    EXPECT_NE(what.find("rank 1: MPI_Send"), std::string::npos) << what;
  }
  // Below the eager limit the same program runs.
  EXPECT_NO_THROW(go(m, net(1 << 21), 2));
}

TEST(PointToPoint, DestinationOutsideTheCommunicatorIsAModelError) {
  const auto m = per_rank("{}", {{op("MPI_Send", R"J("dest": 5, "bytes": 8)J")}, {}});
  try {
    go(m, net(), 2);
    FAIL();
  } catch (const parjava::Error &e) {
    EXPECT_EQ(e.kind(), parjava::ErrorKind::Model);
    EXPECT_NE(std::string(e.what()).find("destination rank 5"), std::string::npos);
  }
}
