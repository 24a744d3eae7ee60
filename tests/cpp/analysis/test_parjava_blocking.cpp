// ParJava blocking patterns B1-B10 (seed 000 notes §5.5, §5.6): exact I_T of each occurrence,
// the eager-limit rules, and nothing under eps.
#include "scenario.hpp"

using namespace scan_test;

namespace {

// Rank 0 sends with `function` over [send_start, send_end]; rank 1 receives over
// [recv_start, recv_end].
std::vector<Finding> pair(const char *function, Timestamp send_start, Timestamp send_end,
                          Timestamp recv_start, Timestamp recv_end, std::uint64_t bytes,
                          const ScanOptions &options) {
  Scenario s(2);
  s.send(0, function, send_start, send_end, 1, bytes);
  s.recv(1, recv_start, recv_end, 0, bytes);
  return s.scan(options);
}

} // namespace

TEST(ParjavaBlocking, LateStandardSendChargesTheReceiver) {
  // Receiver in MPI_Recv from 1000; the send starts at 5000: Δ = 5000 - 1000.
  const auto all = pair("MPI_Send", 5000, 6000, 1000, 6100, 100, only({"parjava"}));
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(all[0].pattern, PatternId::LateStandardSend);
  EXPECT_EQ(all[0].idle, 4000);
  EXPECT_EQ(all[0].time, 1000);
  EXPECT_EQ(all[0].location, 1U);
  EXPECT_EQ(all[0].peer_location, 0U);
  EXPECT_EQ(all[0].optimal_distance, kNoDistance);
}

TEST(ParjavaBlocking, NothingUnderEps) {
  EXPECT_TRUE(pair("MPI_Send", 5000, 6000, 1000, 6100, 100, only({"B2"}, 4001)).empty());
  EXPECT_EQ(pair("MPI_Send", 5000, 6000, 1000, 6100, 100, only({"B2"}, 4000)).size(), 1U);
  // Rendezvous early send of 4000 ns: reported at eps 4000, not at 4001.
  EXPECT_EQ(pair("MPI_Send", 1000, 6000, 5000, 6100, 1 << 20, only({"B1"}, 4000)).size(), 1U);
  EXPECT_TRUE(pair("MPI_Send", 1000, 6000, 5000, 6100, 1 << 20, only({"B1"}, 4001)).empty());
}

TEST(ParjavaBlocking, EarlyStandardSendOnlyAboveTheEagerLimit) {
  // The sender enters MPI_Send at 1000, the receive starts at 5000.
  auto options = only({"B1"});
  options.eager_limit = eager_limit_bytes(65536);
  const auto large = pair("MPI_Send", 1000, 6000, 5000, 6100, 65537, options);
  ASSERT_EQ(large.size(), 1U);
  EXPECT_EQ(large[0].pattern, PatternId::EarlyStandardSend);
  EXPECT_EQ(large[0].idle, 4000);
  EXPECT_EQ(large[0].location, 0U);
  EXPECT_EQ(large[0].time, 1000);
  // At the limit the send is eager (bytes <= limit): local, no idle time, no B1.
  EXPECT_TRUE(pair("MPI_Send", 1000, 6000, 5000, 6100, 65536, options).empty());
}

TEST(ParjavaBlocking, EagerPresetsSplitIntraAndInterNode) {
  auto options = only({"B1"});
  options.eager_limit = eager_limit_preset("openmpi");
  // One node (the trace names no hosts): Open MPI's vader limit, 4040 bytes.
  EXPECT_EQ(pair("MPI_Send", 1000, 6000, 5000, 6100, 4041, options).size(), 1U);
  EXPECT_TRUE(pair("MPI_Send", 1000, 6000, 5000, 6100, 4040, options).empty());
  EXPECT_EQ(options.eager_limit.inter_node, 65480U);
  EXPECT_EQ(eager_limit_preset("mvapich2").intra_node, 65536U);
  EXPECT_THROW(eager_limit_preset("lam"), parjava::Error);
}

TEST(ParjavaBlocking, HostsDecideTheNetwork) {
  // Two processes on two hosts: the inter-node limit (tcp, 65480 B) applies.
  Scenario s(std::vector<int>{0, 1});
  s.send(0, "MPI_Send", 1000, 6000, 1, 8000);
  s.recv(1, 5000, 6100, 0, 8000);
  auto options = only({"B1"});
  EXPECT_TRUE(s.scan(options).empty()); // 8000 B is eager over tcp
}

TEST(ParjavaBlocking, BufferedSend) {
  const auto late = pair("MPI_Bsend", 3000, 3100, 1000, 3200, 100, only({"parjava"}));
  ASSERT_EQ(late.size(), 1U);
  EXPECT_EQ(late[0].pattern, PatternId::LateBufferedSend);
  EXPECT_EQ(late[0].idle, 2000);
  // B4: an early buffered send idles nowhere, whatever the size.
  EXPECT_TRUE(pair("MPI_Bsend", 1000, 1100, 3000, 3200, 1 << 20, only({"parjava"})).empty());
}

TEST(ParjavaBlocking, SynchronousSend) {
  const auto late = pair("MPI_Ssend", 3000, 3100, 1000, 3200, 8, only({"parjava"}));
  ASSERT_EQ(late.size(), 1U);
  EXPECT_EQ(late[0].pattern, PatternId::LateSynchronousSend);
  EXPECT_EQ(late[0].idle, 2000);
  // Early Ssend waits for the receive even for 8 bytes (rendezvous).
  const auto early = pair("MPI_Ssend", 1000, 3100, 2500, 3200, 8, only({"parjava"}));
  ASSERT_EQ(early.size(), 1U);
  EXPECT_EQ(early[0].pattern, PatternId::EarlySynchronousSend);
  EXPECT_EQ(early[0].idle, 1500);
  EXPECT_EQ(early[0].location, 0U);
}

TEST(ParjavaBlocking, ReadySend) {
  auto options = only({"parjava"});
  options.eager_limit = eager_limit_bytes(1024);
  const auto late = pair("MPI_Rsend", 3000, 3100, 1000, 3200, 8, options);
  ASSERT_EQ(late.size(), 1U);
  EXPECT_EQ(late[0].pattern, PatternId::LateReadySend);
  EXPECT_EQ(late[0].idle, 2000);
  // B8 (a): small, eager: no idle; (b) large: the sender idles.
  EXPECT_TRUE(pair("MPI_Rsend", 1000, 1100, 2500, 3200, 8, options).empty());
  const auto early = pair("MPI_Rsend", 1000, 3100, 2500, 3200, 4096, options);
  ASSERT_EQ(early.size(), 1U);
  EXPECT_EQ(early[0].pattern, PatternId::EarlyReadySend);
  EXPECT_EQ(early[0].idle, 1500);
}

TEST(ParjavaBlocking, IdleTimeIsCappedAtTheWaitingCall) {
  // Clock skew: the receive returned at 2000 although the send "started" at 5000. The receiver
  // cannot have idled longer than its call: I_T = 2000 - 1000.
  const auto all = pair("MPI_Send", 5000, 6000, 1000, 2000, 100, only({"B2"}));
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(all[0].idle, 1000);
}

TEST(ParjavaBlocking, WrongOrderSendUnderTheEagerLimit) {
  // Rank 0 sends tag 1 at 1000, tag 2 at 2000 (eager, both return at once). Rank 1 receives
  // tag 2 first (posted at 1500, waits until 2100), then tag 1 at 2200.
  // Send_0 = tag 1 (1000) < Send_1 = tag 2 (2000); Recv_1 = tag 2 (1500) < Recv_0 = tag 1.
  auto build = [](std::uint64_t bytes) {
    Scenario s(2);
    s.send(0, "MPI_Send", 1000, 1010, 1, bytes, 1);
    s.send(0, "MPI_Send", 2000, 2010, 1, bytes, 2);
    s.recv(1, 1500, 2100, 0, bytes, 2);
    s.recv(1, 2200, 2300, 0, bytes, 1);
    return s;
  };
  auto s = build(64);
  const auto all = s.scan(only({"B9"}, 1'000'000));
  ASSERT_EQ(all.size(), 1U); // the criterion has no ε: reported whatever the wait
  EXPECT_EQ(all[0].pattern, PatternId::WrongOrderSend);
  EXPECT_EQ(all[0].idle, 500); // Recv_1 waited from 1500 until Send_1 started at 2000
  EXPECT_EQ(all[0].time, 1500);
  EXPECT_EQ(all[0].location, 1U);
  // Above the eager limit the program would deadlock: never B9.
  auto big = build(1 << 20);
  EXPECT_TRUE(big.scan(only({"B9"})).empty());
}

TEST(ParjavaBlocking, WrongOrderWithoutWaiting) {
  // Case (a) of §5.6: both messages sent before either receive; the order still differs.
  Scenario s(2);
  s.send(0, "MPI_Bsend", 100, 110, 1, 64, 1);
  s.send(0, "MPI_Bsend", 200, 210, 1, 64, 2);
  s.recv(1, 1000, 1100, 0, 64, 2);
  s.recv(1, 1200, 1300, 0, 64, 1);
  const auto all = s.scan(only({"B10"}));
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(all[0].pattern, PatternId::WrongOrderBsend);
  EXPECT_EQ(all[0].idle, 0);
}

TEST(ParjavaBlocking, InOrderMessagesAreNotWrongOrder) {
  Scenario s(2);
  s.send(0, "MPI_Send", 1000, 1010, 1, 64, 1);
  s.send(0, "MPI_Send", 2000, 2010, 1, 64, 2);
  s.recv(1, 1500, 1600, 0, 64, 1);
  s.recv(1, 2200, 2300, 0, 64, 2);
  EXPECT_TRUE(s.scan(only({"B9", "B10"})).empty());
}

TEST(ParjavaBlocking, CloseSendRecv) {
  auto build = [] {
    Scenario s(2);
    s.send(0, "MPI_Send", 1000, 2000, 1, 64);
    s.recv(0, 2003, 3000, 1, 64);
    s.recv(1, 900, 2100, 0, 64);
    s.send(1, "MPI_Send", 2200, 2900, 0, 64);
    return s;
  };
  auto s = build();
  auto options = only({"SR"});
  options.send_recv_delta = 5;
  const auto all = s.scan(options);
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(all[0].pattern, PatternId::CloseSendRecv);
  EXPECT_EQ(all[0].location, 0U);
  EXPECT_EQ(all[0].peer_location, 1U);
  // Severity: the shorter call (1000 vs 997) plus the 3 ns gap.
  EXPECT_EQ(all[0].idle, 1000);
  options.eps = 1001; // the saving is under eps
  EXPECT_TRUE(s.scan(options).empty());
  options.eps = 0;
  options.send_recv_delta = 3; // gap 3 is not < 3
  EXPECT_TRUE(s.scan(options).empty());
}
