// Each network model's formula, and the measured table's interpolation and extrapolation.
#include <gtest/gtest.h>

#include "parjava/error.hpp"
#include "parjava/machine/network.hpp"

using parjava::Error;
using parjava::ErrorKind;
using namespace parjava::machine;

namespace {

::testing::AssertionResult throws_naming(const std::function<void()> &action,
                                         const std::string &needle) {
  try {
    action();
  } catch (const Error &error) {
    if (error.kind() != ErrorKind::Machine) {
      return ::testing::AssertionFailure() << "wrong error kind for: " << error.what();
    }
    if (std::string(error.what()).find(needle) == std::string::npos) {
      return ::testing::AssertionFailure()
             << "message \"" << error.what() << "\" lacks \"" << needle << "\"";
    }
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "no parjava::Error thrown";
}

} // namespace

TEST(Hockney, IsLatencyPlusSizeOverBandwidth) {
  const Network net = Network::hockney({1.5e-6, 10e9, 4096});
  EXPECT_DOUBLE_EQ(net.p2p_time(0), 1.5e-6);
  EXPECT_DOUBLE_EQ(net.p2p_time(1'000'000), 1.5e-6 + 1e6 / 10e9);
  EXPECT_EQ(net.eager_limit(), 4096u);
  EXPECT_EQ(net.kind(), NetworkKind::Hockney);
  ASSERT_NE(net.as_hockney(), nullptr);
  EXPECT_EQ(net.as_loggp(), nullptr);
}

TEST(Hockney, DvmExampleGivesSeed002Formula) {
  // seed 002 §1.3.2: start time 75 us, send byte time 0.2 us -> T(1000) = 75 + 200 us.
  const Network net = Network::hockney({75e-6, 1.0 / 0.2e-6, 0});
  EXPECT_NEAR(net.p2p_time(1000), 275e-6, 1e-15);
}

TEST(LogGP, MatchesLogGOPSimWorkedExampleOne) {
  // anchors/loggopsim-semantics.md §6 ex1 (defaults L=2500 o=1500 g=1000 G=6 O=0, in ns):
  // one eager message of 8 B completes on the receiver at 1500 + 2500 + 1500 + 7*6 = 5542.
  const Network net = Network::loggp({2500e-9, 1500e-9, 1000e-9, 6e-9, 0.0, 65535});
  EXPECT_NEAR(net.p2p_time(8), 5542e-9, 1e-18);
  // ex2: 100000 B (rendezvous) reach the receiver at 4000 + 1500 + 99999*6 = 605494 ns; the
  // receiver's timing does not depend on the protocol.
  EXPECT_NEAR(net.p2p_time(100000), 605494e-9, 1e-15);
  EXPECT_EQ(net.eager_limit(), 65535u);
}

TEST(LogGP, PerByteChargeIsMaxOfGAndO) {
  const Network net = Network::loggp({1e-6, 0.5e-6, 1e-6, 1e-9, 3e-9, 1024});
  EXPECT_NEAR(net.p2p_time(101), 2e-6 + 100 * 3e-9, 1e-18);
}

TEST(LogGP, ZeroBytesChargesNoPerByteTime) {
  const Network net = Network::loggp({2e-6, 1e-6, 1e-6, 5e-9, 0.0, 0});
  EXPECT_DOUBLE_EQ(net.p2p_time(0), 4e-6);
  EXPECT_DOUBLE_EQ(net.p2p_time(1), 4e-6);
}

TEST(Table, ReturnsMeasuredPointsExactly) {
  const Network net = Network::table({{{0, 1e-6}, {8, 1.2e-6}, {1024, 3e-6}}, 512});
  EXPECT_DOUBLE_EQ(net.p2p_time(0), 1e-6);
  EXPECT_DOUBLE_EQ(net.p2p_time(8), 1.2e-6);
  EXPECT_DOUBLE_EQ(net.p2p_time(1024), 3e-6);
  EXPECT_EQ(net.eager_limit(), 512u);
}

TEST(Table, InterpolatesLinearlyBetweenPoints) {
  const Network net = Network::table({{{0, 1e-6}, {8, 1.2e-6}, {1024, 3e-6}}, 0});
  EXPECT_NEAR(net.p2p_time(4), 1.1e-6, 1e-18);
  // 516 is half way from 8 to 1024.
  EXPECT_NEAR(net.p2p_time(516), 2.1e-6, 1e-18);
}

TEST(Table, ExtrapolatesLinearlyBeyondTheLargestSize) {
  const Network net = Network::table({{{1024, 2e-6}, {2048, 3e-6}}, 0});
  // slope 1e-6 per 1024 bytes
  EXPECT_NEAR(net.p2p_time(4096), 5e-6, 1e-18);
}

TEST(Table, ExtrapolatesLinearlyBelowTheSmallestSizeAndClampsAtZero) {
  const Network net = Network::table({{{100, 2e-6}, {200, 3e-6}}, 0});
  EXPECT_NEAR(net.p2p_time(50), 1.5e-6, 1e-18);
  EXPECT_NEAR(net.p2p_time(0), 1e-6, 1e-18);
  const Network steep = Network::table({{{100, 1e-6}, {101, 2e-6}}, 0});
  EXPECT_EQ(steep.p2p_time(0), 0.0);
}

TEST(NetworkValidation, NamesTheField) {
  EXPECT_TRUE(throws_naming(
      [] {
        (void)Network::hockney({-1e-6, 1e9, 0}, "inter_node");
      },
      "inter_node.latency: must be >= 0"));
  EXPECT_TRUE(throws_naming(
      [] {
        (void)Network::hockney({1e-6, 0.0, 0}, "inter_node");
      },
      "inter_node.bandwidth: must be > 0"));
  EXPECT_TRUE(throws_naming(
      [] {
        (void)Network::loggp({1e-6, -1.0, 0, 0, 0, 0}, "n");
      },
      "n.o: must be >= 0"));
  EXPECT_TRUE(throws_naming(
      [] {
        (void)Network::table({{{0, 1e-6}}, 0}, "t");
      },
      "t.points: a measured table needs at least two points"));
  EXPECT_TRUE(throws_naming(
      [] {
        (void)Network::table({{{0, 1e-6}, {8, 2e-6}, {8, 3e-6}}, 0}, "t");
      },
      "t.points[2].bytes: sizes must be strictly increasing"));
  EXPECT_TRUE(throws_naming(
      [] {
        (void)Network::table({{{0, 1e-6}, {8, -2e-6}}, 0}, "t");
      },
      "t.points[1].seconds: must be >= 0"));
  EXPECT_TRUE(throws_naming(
      [] {
        (void)Network::table({{{0, 2e-6}, {8, 2e-6}}, 0}, "t");
      },
      "do not increase"));
}

TEST(NetworkDescribe, ShowsParametersWithUnits) {
  EXPECT_EQ(Network::hockney({1.27e-6, 12.4e9, 12288}).describe(),
            "Hockney: latency 1.27 us, bandwidth 12.4 GB/s, eager <= 12 KiB");
  EXPECT_NE(Network::loggp({2.5e-6, 1.5e-6, 1e-6, 6e-9, 0, 65535}).describe().find("L 2.5 us"),
            std::string::npos);
}
