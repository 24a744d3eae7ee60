// Endpoint contention and flow-level link sharing against closed forms (issue 17): alpha = 1 us,
// NICs of 1 GB/s (1 ns per byte), messages of 1000 B (1 us on the wire), eager.
#include <gtest/gtest.h>

#include "helpers.hpp"
#include "parjava/error.hpp"

using namespace parjava::interp;
using namespace parjava::interp::testing;
namespace pm = parjava::machine;

namespace {
constexpr double us = 1e-6;
constexpr double eps = 2e-12; // finish times are on a 1/1024 ns grid

pm::Machine nic(int ranks_per_node = 1) { return hockney(1e-6, 1e9, 1 << 20, ranks_per_node); }

std::string send_to(int dest, int bytes = 1000) {
  return op("MPI_Send",
            R"J("dest": )J" + std::to_string(dest) + R"J(, "bytes": )J" + std::to_string(bytes));
}
std::string recv_any() { return op("MPI_Recv", R"J("source": "ANY_SOURCE")J"); }

// Ranks 1..k send 1000 B to rank 0, which receives k times.
parjava::model::Model incast(int k) {
  std::vector<std::vector<std::string>> bodies(static_cast<std::size_t>(k + 1));
  for (int r = 1; r <= k; ++r) {
    bodies[0].push_back(recv_any());
    bodies[static_cast<std::size_t>(r)].push_back(send_to(0));
  }
  return per_rank("{}", bodies);
}

Prediction go(const parjava::model::Model &m, const pm::Machine &machine, std::int64_t np,
              bool contention = true) {
  InterpretOptions o;
  o.processes = np;
  o.endpoint_contention = contention;
  return interpret(m, machine, o);
}

// Every message a flow (the tests use 1000-byte messages, below the default threshold).
pm::Topology flows(pm::Topology t) {
  t.flow.min_bytes = 0;
  return t;
}

pm::LinkParameters link(double bandwidth, double latency = 0.0,
                        pm::LinkSharing sharing = pm::LinkSharing::SplitDuplex) {
  return {bandwidth, latency, sharing};
}
} // namespace

// k messages into one NIC take k times one message (the ejection link carries one at a time).
TEST(EndpointContention, IncastSerialisesOnTheReceiversNic) {
  for (int k : {1, 2, 5}) {
    const auto p = go(incast(k), nic(), k + 1);
    EXPECT_NEAR(p.end_times[0], 1 * us + k * 1 * us, eps) << "k = " << k;
    const auto free = go(incast(k), nic(), k + 1, false);
    EXPECT_NEAR(free.end_times[0], 2 * us, eps) << "k = " << k;
  }
}

// The ranks of a node share its NIC: two ranks of node 1 sending to two ranks of node 0 are
// carried one after the other, where ranks on separate nodes would not be.
TEST(EndpointContention, RanksOfANodeShareItsNic) {
  const auto m = per_rank("{}", {{recv_any()}, {recv_any()}, {send_to(0)}, {send_to(1)}});
  const auto shared = go(m, nic(2), 4);
  EXPECT_NEAR(std::max(shared.end_times[0], shared.end_times[1]), 3 * us, eps);
  EXPECT_NEAR(std::min(shared.end_times[0], shared.end_times[1]), 2 * us, eps);
  const auto own = go(m, nic(1), 4);
  EXPECT_NEAR(own.end_times[0], 2 * us, eps);
  EXPECT_NEAR(own.end_times[1], 2 * us, eps);
  // A machine can say its NICs are not shared.
  const auto off = go(m, nic(2).with_endpoint_contention(false), 4);
  EXPECT_NEAR(std::max(off.end_times[0], off.end_times[1]), 2 * us, eps);
  EXPECT_NE(off.network.find("no endpoint contention"), std::string::npos);
}

// Round-robin placement puts ranks 0 and 1 on different nodes: no NIC is shared any more.
TEST(EndpointContention, RoundRobinPlacementSpreadsTheRanks) {
  const auto m = per_rank("{}", {{recv_any()}, {recv_any()}, {send_to(0)}, {send_to(1)}});
  const auto machine = nic(2).with_layout({4, 2, 2}).with_placement(pm::Placement::round_robin());
  const auto p = go(m, machine, 4);
  EXPECT_NEAR(p.end_times[0], 2 * us, eps);
  EXPECT_NEAR(p.end_times[1], 2 * us, eps);
  EXPECT_EQ(machine.node_of(1), 1);
  EXPECT_EQ(machine.node_of(2), 2);
  EXPECT_EQ(nic(2).node_of(2), 1); // block: ranks 2 and 3 on node 1
}

// Without contention and without wire latency, a topology changes nothing.
TEST(FlowSharing, UncontendedMessageKeepsItsDelayTime) {
  const auto m = per_rank("{}", {{send_to(1)}, {op("MPI_Recv", R"J("source": 0)J")}});
  const auto star = nic().with_topology(flows(pm::Topology::star(link(0.0))));
  const auto a = go(m, nic(), 2);
  const auto b = go(m, star, 2);
  EXPECT_NEAR(b.end_times[1], a.end_times[1], eps);
  EXPECT_NEAR(b.end_times[0], a.end_times[0], eps);
  EXPECT_EQ(b.engine.flows, 1U);
  EXPECT_NE(b.network.find("flat cluster"), std::string::npos);
}

// Two flows on one link share it: two disjoint pairs crossing a 1 GB/s backbone each get half.
TEST(FlowSharing, TwoFlowsShareABackbone) {
  const auto m = per_rank("{}", {{send_to(2)}, {send_to(3)}, {recv_any()}, {recv_any()}});
  const pm::LinkParameters backbone = link(1e9, 0.0, pm::LinkSharing::Shared);
  const auto star = nic().with_topology(flows(pm::Topology::star(link(0.0), &backbone)));
  const auto p = go(m, star, 4);
  EXPECT_NEAR(p.end_times[2], 1 * us + 2 * us, eps);
  EXPECT_NEAR(p.end_times[3], 1 * us + 2 * us, eps);
  EXPECT_NEAR(p.end_times[0], 2 * us, eps); // the sender is busy while its flow is on the wire
  // A fat pipe backbone is not shared.
  const pm::LinkParameters fatpipe = link(1e9, 0.0, pm::LinkSharing::Fatpipe);
  const auto pipe = go(m, nic().with_topology(flows(pm::Topology::star(link(0.0), &fatpipe))), 4);
  EXPECT_NEAR(pipe.end_times[2], 2 * us, eps);
}

// Max-min fairness with unequal bottlenecks (explicit routes): flow A crosses L1 (1 GB/s) and
// L2 (2 GB/s), B only L1, C only L2. Max-min: A = B = 0.5 GB/s, C = 1.5 GB/s; C ends at
// 1000/1.5 ns, then A and B keep 0.5 GB/s on L1 and end at 2 us.
TEST(FlowSharing, MaxMinWithUnequalBottlenecks) {
  pm::Topology t;
  t.kind = pm::TopologyKind::Routes;
  t.route_nodes = 6;
  t.links = {{"L1", link(1e9, 0.0, pm::LinkSharing::Shared)},
             {"L2", link(2e9, 0.0, pm::LinkSharing::Shared)}};
  t.routes = {{0, 1, {{0, true}, {1, true}}}, {2, 3, {{0, true}}}, {4, 5, {{1, true}}}};
  const auto machine =
      hockney(0.0, 1e12, 1 << 20, 1).with_layout({6, 1, 1}).with_topology(flows(t));
  const auto m = per_rank(
      "{}", {{send_to(1)}, {recv_any()}, {send_to(3)}, {recv_any()}, {send_to(5)}, {recv_any()}});
  const auto p = go(m, machine, 6);
  EXPECT_NEAR(p.end_times[5], 1000.0 / 1.5e9, eps);
  EXPECT_NEAR(p.end_times[1], 2 * us, eps);
  EXPECT_NEAR(p.end_times[3], 2 * us, eps);
}

// A tapered fat tree's bisection: 8 nodes under radix-4 switches, nodes 0-3 send to 4-7 at
// once. Full bisection (taper 1): every flow has its own path, 1 us. Taper 2: each leaf has
// one uplink for its two nodes, so the bisection is half and the transfer takes twice as long.
TEST(FlowSharing, TaperedFatTreeHalvesTheBisection) {
  std::vector<std::vector<std::string>> bodies(8);
  for (int r = 0; r < 4; ++r) {
    bodies[static_cast<std::size_t>(r)].push_back(send_to(r + 4));
    bodies[static_cast<std::size_t>(r + 4)].push_back(recv_any());
  }
  const auto m = per_rank("{}", bodies);
  const auto full = go(m,
                       nic().with_layout({8, 1, 1}).with_topology(
                           flows(pm::Topology::k_ary_fat_tree(4, 2, 1.0, link(0.0)))),
                       8);
  const auto tapered = go(m,
                          nic().with_layout({8, 1, 1}).with_topology(
                              flows(pm::Topology::k_ary_fat_tree(4, 2, 2.0, link(0.0)))),
                          8);
  for (int r = 4; r < 8; ++r) {
    EXPECT_NEAR(full.end_times[static_cast<std::size_t>(r)], 2 * us, eps) << r;
    EXPECT_NEAR(tapered.end_times[static_cast<std::size_t>(r)], 3 * us, eps) << r;
  }
}

// Latency summed over hops: a 4 x 4 torus with 0.5 us links; node 0 to node 10 = (2, 2) is
// 4 hops in dimension order.
TEST(FlowSharing, TorusLatencySumsOverHops) {
  const auto torus =
      nic()
          .with_layout({16, 1, 1})
          .with_topology(flows(pm::Topology::torus_topology({4, 4}, link(0.0, 0.5e-6))));
  std::vector<std::vector<std::string>> bodies(11);
  bodies[0].push_back(send_to(10));
  bodies[10].push_back(op("MPI_Recv", R"J("source": 0)J"));
  const auto p = go(per_rank("{}", bodies), torus, 11);
  EXPECT_NEAR(p.end_times[10], 2 * us + 4 * 0.5 * us, eps);
}

// The SimGrid corrections: latency factor on the wire latency, bandwidth factor on progress.
TEST(FlowSharing, SimGridFactors) {
  pm::Topology star = pm::Topology::star(link(1e9, 1e-6));
  star.flow.latency_factor = pm::parse_piecewise_factor("0:2;1000:3", "f");
  star.flow.bandwidth_factor = pm::parse_piecewise_factor("0:0.5", "f");
  const auto machine = hockney(0.0, 1e9, 1 << 20, 1).with_topology(flows(star));
  const auto m = per_rank("{}", {{send_to(1)}, {op("MPI_Recv", R"J("source": 0)J")}});
  const auto p = go(m, machine, 2);
  // two private links of 1 us, factor 3 at 1000 B; 1000 B at 0.5 x 1 GB/s
  EXPECT_NEAR(p.end_times[1], 3 * 2 * us + 2 * us, eps);
}

TEST(FlowSharing, RendezvousFlowsStartWhenBothSidesAreThere) {
  const pm::LinkParameters backbone = link(1e9, 0.0, pm::LinkSharing::Shared);
  const auto star =
      hockney(1e-6, 1e9, 100, 1).with_topology(flows(pm::Topology::star(link(0.0), &backbone)));
  const auto late_receiver =
      per_rank("{}", {{send_to(1)}, {compute(3e-6), op("MPI_Recv", R"J("source": 0)J")}});
  const auto p = go(late_receiver, star, 2);
  EXPECT_NEAR(p.end_times[1], 5 * us, eps); // starts at 3 us, T(1000 B) = 2 us
  EXPECT_NEAR(p.end_times[0], 5 * us, eps);
}

// Messages up to min_bytes are not flows: they share no link, but still queue on the NICs.
TEST(FlowSharing, SmallMessagesQueueOnTheNicsOnly) {
  const auto m = per_rank("{}", {{send_to(2)}, {send_to(3)}, {recv_any()}, {recv_any()}});
  const pm::LinkParameters backbone = link(1e9, 0.0, pm::LinkSharing::Shared);
  const auto star = nic().with_topology(pm::Topology::star(link(0.0), &backbone));
  const auto p = go(m, star, 4); // 1000 B <= 1024 B: the backbone is not shared
  EXPECT_NEAR(p.end_times[2], 2 * us, eps);
  EXPECT_NEAR(p.end_times[3], 2 * us, eps);
  EXPECT_EQ(p.engine.flows, 0U);
  const auto k = go(incast(3), nic().with_topology(pm::Topology::star(link(0.0))), 4);
  EXPECT_NEAR(k.end_times[0], 1 * us + 3 * us, eps);
}

TEST(FlowSharing, LogGPWithLinksIsRefused) {
  const pm::LinkParameters backbone = link(1e9);
  EXPECT_THROW((void)loggp().with_topology(flows(pm::Topology::star(link(0.0), &backbone))),
               parjava::Error);
}

TEST(FlowSharing, TooSmallTopologyIsAUsageError) {
  const auto machine = nic().with_layout({4, 1, 1}).with_topology(
      flows(pm::Topology::torus_topology({2, 2}, link(0.0))));
  const auto m = per_rank("{}", {{}, {}, {}, {}, {}});
  try {
    (void)go(m, machine, 5);
    FAIL() << "expected a usage error";
  } catch (const parjava::Error &e) {
    EXPECT_EQ(e.kind(), parjava::ErrorKind::Usage);
    EXPECT_NE(std::string(e.what()).find("topology of 4 nodes"), std::string::npos) << e.what();
  }
}
