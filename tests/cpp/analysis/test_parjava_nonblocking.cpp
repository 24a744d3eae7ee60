// ParJava non-blocking patterns N1-N8 (seed 000 notes §5.7): exact I_T and O_D, T_send from a
// machine or absent, one finding per completion call, nothing under eps.
#include "parjava/machine/machine.hpp"
#include "scenario.hpp"

using namespace scan_test;

namespace {

// Rank 0: X over [1000, 1100] (request 1), Wait over [3000, 8000].
// Rank 1: MPI_Irecv over [2000, 2050] (request 7), Wait over [4000, 8200].
Scenario exchange(const char *isend, std::uint64_t bytes) {
  Scenario s(2);
  s.isend(0, isend, 1000, 1100, 1, bytes, 1);
  s.compute(0, 1100, 3000);
  s.wait(0, "MPI_Wait", 3000, 8000, {{false, 1}});
  s.irecv(1, 2000, 2050, 7);
  s.compute(1, 2050, 4000);
  s.wait(1, "MPI_Wait", 4000, 8200, {{true, 7, 0, bytes}});
  return s;
}

std::shared_ptr<const parjava::machine::Machine> hockney_machine() {
  // T_send(n) = 1 us + n / (1 GB/s).
  using namespace parjava::machine;
  return std::make_shared<Machine>("test", NodeLayout{1, 2, 2}, Network::hockney({1e-6, 1e9, 4096}),
                                   std::nullopt, ThreadCosts{}, 1.0);
}

} // namespace

TEST(ParjavaNonblocking, IsendBothSidesWithoutMachine) {
  auto s = exchange("MPI_Isend", 1000);
  const auto all = s.scan(only({"N1", "N2"}));
  const auto sender = of(all, PatternId::IsendSenderWait);
  const auto receiver = of(all, PatternId::IsendReceiverWait);
  ASSERT_EQ(sender.size(), 1U);
  ASSERT_EQ(receiver.size(), 1U);
  EXPECT_EQ(sender[0].idle, 5000); // Time_end(Wait_0) - Time_start(Wait_0)
  EXPECT_EQ(sender[0].time, 3000);
  EXPECT_EQ(sender[0].location, 0U);
  // Sender: Ts(Isend) = 1000 is not > Ts(Irecv) = 2000, so O_D = (2000 - 1000) + ΔT_i (100).
  EXPECT_EQ(sender[0].optimal_distance, 1100);
  EXPECT_NE(sender[0].flags & kNoTransferTime, 0);
  EXPECT_EQ(receiver[0].idle, 4200);
  EXPECT_EQ(receiver[0].location, 1U);
  // Receiver: Ts(Isend) < Ts(Irecv), so O_D = ΔT_i (Irecv: 50) + T_send (0 without machine).
  EXPECT_EQ(receiver[0].optimal_distance, 50);
}

TEST(ParjavaNonblocking, TransferTimeFromTheMachine) {
  auto s = exchange("MPI_Isend", 1000);
  auto options = only({"N1", "N2"});
  options.machine = hockney_machine();
  const auto all = s.scan(options);
  const auto sender = of(all, PatternId::IsendSenderWait);
  const auto receiver = of(all, PatternId::IsendReceiverWait);
  ASSERT_EQ(sender.size(), 1U);
  ASSERT_EQ(receiver.size(), 1U);
  // T_send(1000 B) = 1000 + 1000 ns.
  EXPECT_EQ(sender[0].optimal_distance, 1100 + 2000);
  EXPECT_EQ(receiver[0].optimal_distance, 50 + 2000);
  EXPECT_EQ(receiver[0].flags & kNoTransferTime, 0);
}

TEST(ParjavaNonblocking, ReceiverFormWhenTheSendIsLate) {
  // Isend at 5000 after the Irecv at 2000: O_D = (5000 - 2000) + 50.
  Scenario s(2);
  s.isend(0, "MPI_Isend", 5000, 5100, 1, 64, 1);
  s.wait(0, "MPI_Wait", 5100, 5200, {{false, 1}});
  s.irecv(1, 2000, 2050, 7);
  s.wait(1, "MPI_Wait", 2100, 5300, {{true, 7, 0, 64}});
  const auto all = s.scan(only({"N2"}));
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(all[0].idle, 3200);
  EXPECT_EQ(all[0].optimal_distance, 3050);
  // The sender form with Ts(X) > Ts(Irecv) is ΔT_i + T_send.
  const auto sender = s.scan(only({"N1"}));
  ASSERT_EQ(sender.size(), 1U);
  EXPECT_EQ(sender[0].idle, 100);
  EXPECT_EQ(sender[0].optimal_distance, 100);
}

TEST(ParjavaNonblocking, SendModes) {
  auto options = only({"parjava"});
  options.eager_limit = eager_limit_bytes(4096);
  {
    auto s = exchange("MPI_Ibsend", 64);
    const auto all = s.scan(options);
    // N3 never occurs: the buffered send is local; N4 on the receiver.
    ASSERT_EQ(all.size(), 1U);
    EXPECT_EQ(all[0].pattern, PatternId::IbsendReceiverWait);
    EXPECT_EQ(all[0].idle, 4200);
  }
  {
    auto s = exchange("MPI_Issend", 64);
    const auto all = s.scan(options);
    EXPECT_EQ(of(all, PatternId::IssendSenderWait).size(), 1U);
    EXPECT_EQ(of(all, PatternId::IssendReceiverWait).size(), 1U);
  }
  {
    // N7 only above the eager limit; N8 always.
    auto small = exchange("MPI_Irsend", 64);
    const auto all = small.scan(options);
    EXPECT_TRUE(of(all, PatternId::IrsendSenderWait).empty());
    EXPECT_EQ(of(all, PatternId::IrsendReceiverWait).size(), 1U);
    auto large = exchange("MPI_Irsend", 8192);
    const auto big = large.scan(options);
    ASSERT_EQ(of(big, PatternId::IrsendSenderWait).size(), 1U);
    EXPECT_EQ(of(big, PatternId::IrsendSenderWait)[0].idle, 5000);
  }
}

TEST(ParjavaNonblocking, NothingUnderEps) {
  auto s = exchange("MPI_Isend", 1000);
  EXPECT_EQ(s.scan(only({"N1", "N2"}, 4200)).size(), 2U);
  EXPECT_EQ(s.scan(only({"N1", "N2"}, 4201)).size(), 1U); // N1's 5000 only
  EXPECT_TRUE(s.scan(only({"N1", "N2"}, 5001)).empty());
}

TEST(ParjavaNonblocking, OneFindingPerCompletionCall) {
  // Halo exchange: each rank posts an Irecv and an Isend and waits for both in one Waitall.
  // The call blocks once: it is charged on the receiver side, anchored at its receive.
  Scenario s(2);
  for (std::uint32_t r = 0; r < 2; ++r) {
    const Timestamp t = r == 0 ? 1000 : 3000;
    s.irecv(r, t, t + 10, 10);
    s.isend(r, "MPI_Isend", t + 20, t + 30, static_cast<std::int32_t>(1 - r), 64, 20);
    s.wait(r, "MPI_Waitall", t + 40, 5000,
           {{false, 20}, {true, 10, static_cast<std::int32_t>(1 - r), 64}});
  }
  const auto all = s.scan(only({"parjava"}));
  ASSERT_EQ(all.size(), 2U);
  for (const auto &f : all) {
    EXPECT_EQ(f.pattern, PatternId::IsendReceiverWait);
  }
  EXPECT_EQ(all[0].location, 0U);
  EXPECT_EQ(all[0].idle, 5000 - 1040);
  EXPECT_EQ(all[1].idle, 5000 - 3040);
}

TEST(ParjavaNonblocking, BlockingPartnersAreNotNonblockingPatterns) {
  // Isend matched by a blocking MPI_Recv: no N pattern (the seed pairs I*send with Irecv).
  Scenario s(2);
  s.isend(0, "MPI_Isend", 1000, 1100, 1, 64, 1);
  s.wait(0, "MPI_Wait", 1200, 9000, {{false, 1}});
  s.recv(1, 8000, 8500, 0, 64);
  EXPECT_TRUE(s.scan(only({"N1", "N2"})).empty());
}
