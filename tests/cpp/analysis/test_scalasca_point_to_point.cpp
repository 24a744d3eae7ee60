// Scalasca's point-to-point wait states (anchors §2): Late Sender with its multi-completion
// rule, Late Sender / Wrong Order (same and different sources), Late Receiver.
#include "scenario.hpp"

using namespace scan_test;

TEST(LateSender, BlockingReceive) {
  Scenario s(2);
  s.send(0, "MPI_Send", 5000, 6000, 1, 100);
  s.recv(1, 1000, 6100, 0, 100);
  const auto all = s.scan(only({"late_sender"}));
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(all[0].idle, 4000); // min(E(Sc), L(Rc)) - E(Rc)
  EXPECT_EQ(all[0].location, 1U);
  EXPECT_EQ(all[0].time, 1000);
  EXPECT_TRUE(s.scan(only({"late_sender"}, 4001)).empty());
}

TEST(LateSender, CappedAtTheEndOfTheReceive) {
  Scenario s(2);
  s.send(0, "MPI_Send", 5000, 6000, 1, 100);
  s.recv(1, 1000, 3000, 0, 100); // clock condition violated: received before sent
  const auto all = s.scan(only({"late_sender"}));
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(all[0].idle, 2000);
}

TEST(LateSender, WaitallChargesTheLatestSenderOnce) {
  // Rank 2 waits for messages from rank 0 (sent at 3000) and rank 1 (sent at 6000).
  Scenario s(3);
  s.isend(0, "MPI_Isend", 3000, 3100, 2, 8, 1);
  s.wait(0, "MPI_Wait", 3100, 3200, {{false, 1}});
  s.isend(1, "MPI_Isend", 6000, 6100, 2, 8, 1);
  s.wait(1, "MPI_Wait", 6100, 6200, {{false, 1}});
  s.irecv(2, 500, 600, 1);
  s.irecv(2, 700, 800, 2);
  s.wait(2, "MPI_Waitall", 1000, 6500, {{true, 1, 0, 8}, {true, 2, 1, 8}});
  const auto all = s.scan(only({"late_sender"}));
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(all[0].idle, 5000); // the latest sender: 6000 - 1000
  EXPECT_EQ(all[0].peer_location, 1U);
}

TEST(LateSender, TestsNeverWait) {
  Scenario s(2);
  s.isend(0, "MPI_Isend", 5000, 5100, 1, 8, 1);
  s.wait(0, "MPI_Wait", 5100, 5200, {{false, 1}});
  s.irecv(1, 500, 600, 1);
  s.wait(1, "MPI_Test", 1000, 5300, {{true, 1, 0, 8}});
  EXPECT_TRUE(s.scan(only({"late_sender"})).empty());
}

TEST(LateSenderWrongOrder, SameSource) {
  // Rank 0 sends tag 1 at 1000 and tag 2 at 5000. Rank 1 receives tag 2 first (waits from 2000
  // to 5000), then tag 1: the first receive waited for a message sent after the second one.
  Scenario s(2);
  s.send(0, "MPI_Send", 1000, 1010, 1, 8, 1);
  s.send(0, "MPI_Send", 5000, 5010, 1, 8, 2);
  s.recv(1, 2000, 5100, 0, 8, 2);
  s.recv(1, 5200, 5300, 0, 8, 1);
  const auto all = s.scan(only({"scalasca"}));
  const auto ls = of(all, PatternId::LateSender);
  const auto same = of(all, PatternId::LateSenderWrongOrderSame);
  ASSERT_EQ(ls.size(), 1U);
  ASSERT_EQ(same.size(), 1U);
  EXPECT_EQ(ls[0].idle, 3000);
  EXPECT_EQ(same[0].idle, 3000); // the full Late Sender time of the earlier receive
  EXPECT_EQ(same[0].event, ls[0].event);
  EXPECT_TRUE(of(all, PatternId::LateSenderWrongOrderDifferent).empty());
}

TEST(LateSenderWrongOrder, DifferentSourcesAndTheWindow) {
  // Rank 2 receives from rank 1 (sent late, at 5000) before rank 0 (sent early, at 1000).
  auto build = [] {
    Scenario s(3);
    s.send(0, "MPI_Send", 1000, 1010, 2, 8);
    s.send(1, "MPI_Send", 5000, 5010, 2, 8);
    s.recv(2, 2000, 5100, 1, 8);
    s.recv(2, 5200, 5300, 0, 8);
    return s;
  };
  auto s = build();
  const auto all = s.scan(only({"mpi_lswo_different", "mpi_lswo_same"}));
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(all[0].pattern, PatternId::LateSenderWrongOrderDifferent);
  EXPECT_EQ(all[0].idle, 3000);
  EXPECT_TRUE(s.scan(only({"mpi_lswo_different"}, 3001)).empty());
}

TEST(LateReceiver, BlockingSendWaitsForThePost) {
  // MPI_Send over [1000, 6000] (rendezvous), the receive posted at 5000: w = 5000 - 1000.
  Scenario s(2);
  s.send(0, "MPI_Send", 1000, 6000, 1, 1 << 20);
  s.recv(1, 5000, 6100, 0, 1 << 20);
  const auto all = s.scan(only({"late_receiver"}));
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(all[0].idle, 4000);
  EXPECT_EQ(all[0].location, 0U);
  EXPECT_TRUE(s.scan(only({"late_receiver"}, 4001)).empty());
}

TEST(LateReceiver, EagerSendFinishedBeforeThePost) {
  // L(Sc) <= E(Pr): the send completed before the receive was posted (eager): w = 0.
  Scenario s(2);
  s.send(0, "MPI_Send", 1000, 1100, 1, 8);
  s.recv(1, 5000, 5100, 0, 8);
  EXPECT_TRUE(s.scan(only({"late_receiver"})).empty());
}

TEST(LateReceiver, WaitOnAnIsendAgainstALateIrecv) {
  Scenario s(2);
  s.isend(0, "MPI_Isend", 1000, 1100, 1, 1 << 20, 1);
  s.wait(0, "MPI_Wait", 2000, 7000, {{false, 1}});
  s.irecv(1, 6000, 6100, 3);
  s.wait(1, "MPI_Wait", 6200, 7100, {{true, 3, 0, 1 << 20}});
  const auto all = s.scan(only({"late_receiver"}));
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(all[0].idle, 4000); // E(Irecv) - E(Wait)
}

TEST(LateReceiver, SkippedInAWaitallWithALateSender) {
  // Rank 0's Waitall completes its Isend (late receiver) and an Irecv whose sender was late:
  // Scalasca counts no Late Receiver for that call instance.
  Scenario s(2);
  s.isend(0, "MPI_Isend", 1000, 1100, 1, 1 << 20, 1);
  s.irecv(0, 1100, 1200, 2);
  s.wait(0, "MPI_Waitall", 2000, 9000, {{false, 1}, {true, 2, 1, 8}});
  s.irecv(1, 6000, 6100, 3);
  s.isend(1, "MPI_Isend", 7000, 7100, 0, 8, 4);
  s.wait(1, "MPI_Waitall", 7200, 9100, {{true, 3, 0, 1 << 20}, {false, 4}});
  const auto all = s.scan(only({"late_receiver", "late_sender"}));
  const auto ls = of(all, PatternId::LateSender);
  ASSERT_EQ(ls.size(), 1U);
  EXPECT_EQ(ls[0].idle, 5000);
  EXPECT_TRUE(of(all, PatternId::LateReceiver).empty());
}
