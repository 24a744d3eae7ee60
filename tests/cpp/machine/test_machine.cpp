// Placement, network choice, validation and what-if copies of a Machine.
#include <gtest/gtest.h>

#include "parjava/error.hpp"
#include "parjava/machine/machine.hpp"

using namespace parjava::machine;

namespace {

Machine two_by_four() {
  return Machine("cluster", {2, 4, 4}, Network::hockney({0.3e-6, 8e9, 4096}),
                 Network::hockney({1.3e-6, 12e9, 12288}), ThreadCosts{}, 1.0);
}

std::string message_of(const std::function<void()> &action) {
  try {
    action();
  } catch (const parjava::Error &error) {
    return error.what();
  }
  return "no error";
}

} // namespace

TEST(Placement, IsBlockByRanksPerNode) {
  const Machine m = two_by_four();
  EXPECT_EQ(m.max_ranks(), 8);
  EXPECT_EQ(m.node_of(0), 0);
  EXPECT_EQ(m.node_of(3), 0);
  EXPECT_EQ(m.node_of(4), 1);
  EXPECT_TRUE(m.same_node(0, 3));
  EXPECT_FALSE(m.same_node(3, 4));
  EXPECT_TRUE(m.same_node(5, 7));
}

TEST(Placement, RankOutsideTheMachineIsAUsageError) {
  const Machine m = two_by_four();
  try {
    (void)m.node_of(8);
    FAIL();
  } catch (const parjava::Error &error) {
    EXPECT_EQ(error.kind(), parjava::ErrorKind::Usage);
    EXPECT_NE(std::string(error.what()).find("rank 8 is outside machine \"cluster\""),
              std::string::npos);
  }
  EXPECT_THROW((void)m.same_node(-1, 0), parjava::Error);
}

TEST(Machine, ChoosesTheNetworkByPlacement) {
  const Machine m = two_by_four();
  EXPECT_DOUBLE_EQ(m.p2p_time(0, true), 0.3e-6);
  EXPECT_DOUBLE_EQ(m.p2p_time(0, false), 1.3e-6);
  EXPECT_DOUBLE_EQ(m.p2p_time_between(8e3, 1, 2), 0.3e-6 + 1e-6);
  EXPECT_DOUBLE_EQ(m.p2p_time_between(12e3, 1, 6), 1.3e-6 + 1e-6);
  EXPECT_EQ(m.eager_limit(true), 4096u);
  EXPECT_EQ(m.eager_limit(false), 12288u);
}

TEST(Machine, SingleNodeMachineMayLackAnInterNodeNetwork) {
  const Machine m("laptop", {1, 2, 2}, Network::hockney({0.5e-6, 5e9, 4096}), std::nullopt,
                  ThreadCosts{}, 1.0);
  EXPECT_FALSE(m.has_inter_node());
  EXPECT_NE(message_of([&] { (void)m.p2p_time(8, false); }).find("has a single node"),
            std::string::npos);
  EXPECT_NE(message_of([&] {
              (void)m.with_layout({4, 2, 2});
            }).find("inter_node"),
            std::string::npos);
}

TEST(Machine, ValidatesEveryField) {
  const Network net = Network::hockney({1e-6, 1e9, 0});
  EXPECT_EQ(message_of([&] {
              Machine("m", {0, 1, 1}, net, net, ThreadCosts{}, 1.0);
            }),
            "nodes: must be >= 1 (got 0)");
  EXPECT_EQ(message_of([&] {
              Machine("m", {1, 0, 1}, net, net, ThreadCosts{}, 1.0);
            }),
            "cores_per_node: must be >= 1 (got 0)");
  EXPECT_EQ(message_of([&] {
              Machine("m", {1, 1, -2}, net, net, ThreadCosts{}, 1.0);
            }),
            "ranks_per_node: must be >= 1 (got -2)");
  EXPECT_EQ(message_of([&] {
              Machine("m", {2, 1, 1}, net, std::nullopt, ThreadCosts{}, 1.0);
            }).substr(0, 35),
            "inter_node: is required when the ma");
  EXPECT_EQ(message_of([&] {
              Machine("m", {1, 1, 1}, net, net, ThreadCosts{}, 0.0);
            }),
            "power: must be > 0 (got 0)");
  ThreadCosts costs;
  costs.try_lock = -1e-9;
  EXPECT_EQ(message_of([&] {
              Machine("m", {1, 1, 1}, net, net, costs, 1.0);
            }),
            "threads.try_lock: must be >= 0 (got -1e-09)");
}

TEST(Machine, PowerScalesComputeTimes) {
  const Machine m = two_by_four().with_power(2.0);
  EXPECT_DOUBLE_EQ(m.scale_compute_time(1.5), 3.0);
  EXPECT_THROW((void)m.with_power(-1.0), parjava::Error);
}

TEST(Machine, WithLayoutKeepsNetworksAndChangesPlacement) {
  const Machine m = two_by_four().with_layout({16, 4, 2});
  EXPECT_EQ(m.max_ranks(), 32);
  EXPECT_FALSE(m.same_node(1, 2));
  EXPECT_EQ(m.intra_node(), two_by_four().intra_node());
}

TEST(ThreadCosts, AccessByNameCoversEveryField) {
  ThreadCosts costs;
  double value = 1e-9;
  for (std::string_view name : ThreadCosts::field_names) {
    costs.set(name, value);
    EXPECT_EQ(costs.get(name), value);
    value *= 2;
  }
  EXPECT_EQ(costs.create, 1e-9);
  EXPECT_EQ(costs.copy_per_byte, 256e-9);
  EXPECT_THROW(costs.set("fork", 1.0), parjava::Error);
}
