// Topologies, routes and placements (issue 17): hop counts and the links SimGrid 3.32 picks.
#include <gtest/gtest.h>

#include "parjava/error.hpp"
#include "parjava/machine/fabric.hpp"
#include "parjava/machine/machine_json.hpp"
#include "parjava/machine/presets.hpp"

using namespace parjava::machine;

namespace {
std::vector<std::string> names(const Fabric &f, int a, int b, std::uint64_t salt = 0) {
  std::vector<std::uint32_t> links;
  f.route(a, b, salt, links);
  std::vector<std::string> out;
  for (const std::uint32_t l : links) {
    out.push_back(f.link_name(l));
  }
  return out;
}
const LinkParameters one_us{1e9, 1e-6, LinkSharing::SplitDuplex};
} // namespace

TEST(Topology, TorusHopsAreTheShortWayRoundPerDimension) {
  const Fabric f(Topology::torus_topology({4, 4, 4}, one_us), 64, 1e9);
  EXPECT_EQ(f.hops(0, 1), 1U);
  EXPECT_EQ(f.hops(0, 3), 1U); // wrap-around
  EXPECT_EQ(f.hops(0, 2), 2U);
  EXPECT_EQ(f.hops(0, 2 + 2 * 4 + 2 * 16), 6U);
  EXPECT_EQ(f.hops(5, 5 + 16 * 3), 1U);
  EXPECT_NEAR(f.route_latency(0, 42), 6e-6, 1e-15);
  // Dimension order: x first, then y.
  EXPECT_EQ(names(f, 0, 5), (std::vector<std::string>{"torus link of node 0 dimension 0 up",
                                                      "torus link of node 1 dimension 1 up"}));
  // Going left uses the neighbour's link downwards.
  EXPECT_EQ(names(f, 0, 3), (std::vector<std::string>{"torus link of node 3 dimension 0 down"}));
}

TEST(Topology, FatTreeRoutesDModK) {
  // 16 nodes, 4 leaves of 4 nodes, 2 spines; leaf uplink chosen by destination mod 2.
  FatTreeShape shape{{4, 4}, {1, 2}, {1, 1}};
  const Fabric f(Topology::fat_tree_topology(shape, one_us), 16, 1e9);
  EXPECT_EQ(f.hops(0, 1), 2U); // same leaf
  EXPECT_EQ(f.hops(0, 4), 4U); // through a spine
  EXPECT_EQ(names(f, 0, 5),
            (std::vector<std::string>{"fat tree level 0 element 0 to parent 0 up",
                                      "fat tree level 1 element 0 to parent 1 up",
                                      "fat tree level 1 element 1 to parent 1 down",
                                      "fat tree level 0 element 5 to parent 0 down"}));
  EXPECT_EQ(names(f, 0, 4)[1], "fat tree level 1 element 0 to parent 0 up");
  EXPECT_EQ(Topology::k_ary_fat_tree(36, 2, 1.0, one_us).capacity(), 648);
  EXPECT_EQ(Topology::k_ary_fat_tree(36, 2, 1.0, one_us).parameters_text(), "2;18,36;1,18;1,1");
  EXPECT_EQ(Topology::k_ary_fat_tree(36, 2, 3.0, one_us).parameters_text(), "2;18,36;1,6;1,1");
  EXPECT_THROW((void)Topology::k_ary_fat_tree(36, 2, 4.0, one_us), parjava::Error); // 18/4
}

TEST(Topology, DragonflyMinimalAndValiant) {
  Topology t;
  t.kind = TopologyKind::Dragonfly;
  parse_topology_parameters(t, "3,1;2,1;3,1;2", "topo");
  t.link = one_us;
  t.validate();
  EXPECT_EQ(t.capacity(), 3 * 2 * 3 * 2);
  const Fabric f(t, 36, 1e9);
  EXPECT_EQ(f.hops(0, 1), 2U); // two nodes of one router
  // Group 0 chassis 0 router 0 -> group 1 chassis 0 router 0: the node link, green to router 1
  // (whose global link leads to group 1), blue (arriving at router 0 of group 1), node link.
  EXPECT_EQ(f.hops(0, 12), 4U);
  // Chassis 1 router 2 of group 0 -> group 2 chassis 1 router 1: router 2 already has the global
  // link to group 2 (no green), black to chassis 0, blue, green from router 0 to 1, black.
  EXPECT_EQ(f.hops(10, 32), 6U);
  t.routing = DragonflyRouting::Valiant;
  const Fabric v(t, 36, 1e9);
  const auto route = names(v, 0, 12, 7);
  int blue = 0;
  for (const auto &n : route) {
    blue += n.rfind("blue", 0) == 0 ? 1 : 0;
  }
  EXPECT_EQ(blue, 2); // through the third group
}

TEST(Topology, StarRouteAndParsingErrors) {
  const LinkParameters backbone{10e9, 2e-6, LinkSharing::Shared};
  const Fabric f(Topology::star(one_us, &backbone), 8, 1e9);
  EXPECT_EQ(names(f, 2, 5), (std::vector<std::string>{"private link of node 2 up", "backbone",
                                                      "private link of node 5 down"}));
  EXPECT_NEAR(f.route_latency(2, 5), 4e-6, 1e-15);
  Topology t;
  t.kind = TopologyKind::FatTree;
  EXPECT_THROW(parse_topology_parameters(t, "2;4,4;1,2", "x"), parjava::Error);
  try {
    parse_topology_parameters(t, "2;4,4,4;1,2;1,1", "cluster topo_parameters");
    FAIL();
  } catch (const parjava::Error &e) {
    EXPECT_NE(std::string(e.what()).find("2 levels but 3 child counts"), std::string::npos)
        << e.what();
  }
}

TEST(Topology, PiecewiseFactorsFollowSimGrid) {
  const PiecewiseFactor f =
      parse_piecewise_factor("65472:0.940694;15424:0.697866;0:0.812084", "bw");
  EXPECT_DOUBLE_EQ(f.at(0), 0.812084);
  EXPECT_DOUBLE_EQ(f.at(15423), 0.812084);
  EXPECT_DOUBLE_EQ(f.at(15424), 0.697866);
  EXPECT_DOUBLE_EQ(f.at(1 << 20), 0.940694);
  EXPECT_EQ(format_piecewise_factor(f), "65472:0.940694;15424:0.697866;0:0.812084");
  EXPECT_THROW((void)parse_piecewise_factor("10:x", "bw"), parjava::Error);
  EXPECT_DOUBLE_EQ(parse_piecewise_factor("0.97", "bw").at(5), 0.97);
}

TEST(Placement, FileWithNamesCountsAndComments) {
  const Placement p =
      parse_placement("# ranks\nnode-1:2\n0\n\nnode-0 # last\n", {"node-0", "node-1"}, "hosts");
  EXPECT_EQ(p.nodes, (std::vector<int>{1, 1, 0, 0}));
  EXPECT_THROW((void)parse_placement("node-9\n", {"node-0"}, "hosts"), parjava::Error);
  try {
    (void)parse_placement("0\nx:0\n", {}, "hosts");
    FAIL();
  } catch (const parjava::Error &e) {
    EXPECT_NE(std::string(e.what()).find("hosts:2:"), std::string::npos) << e.what();
  }
  EXPECT_EQ(place_ranks(Placement::round_robin(), 5, 2, 4),
            (std::vector<std::int32_t>{0, 1, 0, 1, 0}));
  EXPECT_EQ(place_ranks(Placement::block(), 5, 2, 2), (std::vector<std::int32_t>{0, 0, 1, 1, 2}));
  EXPECT_THROW((void)place_ranks(p, 5, 2, 2), parjava::Error);
}

TEST(Topology, MachineJsonRoundTripAndPreset) {
  const Machine edr = preset("infiniband-edr");
  EXPECT_EQ(edr.topology().kind, TopologyKind::FatTree);
  EXPECT_EQ(edr.topology().parameters_text(), "2;18,36;1,18;1,1");
  const Machine round = machine_from_json(machine_to_json(edr), "x");
  EXPECT_EQ(round, edr);
  const std::string text = R"({"kind": "torus", "dimensions": [4, 4], "link": {"bandwidth":
    "10 Gb/s", "latency": "1 us"}})";
  const Topology torus = topology_from_json(text, "t.json");
  EXPECT_EQ(torus.torus, (std::vector<int>{4, 4}));
  EXPECT_DOUBLE_EQ(torus.link.bandwidth, 1.25e9);
  try {
    (void)topology_from_json(R"({"kind": "fat_tree", "radix": 36, "levels": 2, "tapper": 2})",
                             "t.json");
    FAIL();
  } catch (const parjava::Error &e) {
    EXPECT_NE(std::string(e.what()).find("t.json: topology.tapper: unknown field"),
              std::string::npos)
        << e.what();
  }
}
