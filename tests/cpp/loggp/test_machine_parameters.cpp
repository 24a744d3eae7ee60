// LogGP parameters of a machine description (SI) as LogGOPSim's integer nanoseconds.
#include <gtest/gtest.h>

#include <string>

#include "parjava/error.hpp"
#include "parjava/loggp/goal_reader.hpp"
#include "parjava/loggp/machine_parameters.hpp"
#include "parjava/loggp/simulator.hpp"

namespace {

namespace lg = parjava::loggp;
namespace pm = parjava::machine;

pm::Machine loggp_machine(const pm::LogGPParameters &p, int nodes) {
  const pm::Network intra = pm::Network::hockney({1e-7, 1e10, 4096});
  pm::NodeLayout layout;
  layout.nodes = nodes;
  return {"test",
          layout,
          intra,
          nodes > 1 ? std::optional<pm::Network>(pm::Network::loggp(p)) : std::nullopt,
          pm::ThreadCosts{},
          1.0};
}

TEST(MachineParameters, SecondsBecomeNanosecondsAndReproduceLogGOPSim) {
  pm::LogGPParameters si;
  si.L = 2.5e-6;
  si.o = 1.5e-6;
  si.g = 1e-6;
  si.G = 6e-9;
  si.O = 0.0;
  si.S = 65535;
  const lg::LogGPParameters p = lg::from_machine(loggp_machine(si, 2));
  EXPECT_EQ(p, lg::LogGPParameters{}); // LogGOPSim's defaults
  lg::SimulationOptions options;
  options.parameters = p;
  const auto s =
      lg::parse_goal_text("num_ranks 2\nrank 0 {\nsend 8b to 1\n}\nrank 1 {\nrecv 8b from 0\n}\n");
  EXPECT_EQ(lg::simulate(s, options).end_times, (std::vector<lg::SimTime>{1500, 5542}));
}

TEST(MachineParameters, NonLogGPNetworkIsRefused) {
  pm::LogGPParameters si;
  try {
    (void)lg::from_machine(loggp_machine(si, 1)); // one node: the Hockney intra-node network
    ADD_FAILURE() << "a Hockney network has no LogGP parameters";
  } catch (const parjava::Error &e) {
    EXPECT_EQ(e.kind(), parjava::ErrorKind::Machine);
    EXPECT_NE(std::string(e.what()).find("intra-node network is Hockney"), std::string::npos)
        << e.what();
  }
}

} // namespace
