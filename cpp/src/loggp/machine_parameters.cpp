#include "parjava/loggp/machine_parameters.hpp"

#include <cmath>
#include <string>

#include "parjava/error.hpp"

namespace parjava::loggp {

namespace {

std::uint64_t nanoseconds(double seconds, const char *name) {
  const double ns = std::round(seconds * 1e9);
  if (!std::isfinite(ns) || ns < 0.0 || ns >= 9.2e18) {
    throw Error(ErrorKind::Machine, std::string("LogGP parameter ") + name +
                                        " must be a finite, non-negative time, got " +
                                        std::to_string(seconds) + " s");
  }
  return static_cast<std::uint64_t>(ns);
}

} // namespace

LogGPParameters from_machine(const machine::LogGPParameters &si) {
  LogGPParameters p;
  p.L = nanoseconds(si.L, "L");
  p.o = nanoseconds(si.o, "o");
  p.g = nanoseconds(si.g, "g");
  p.G = nanoseconds(si.G, "G");
  p.O = nanoseconds(si.O, "O");
  p.S = si.S;
  return p;
}

LogGPParameters from_machine(const machine::Machine &machine) {
  const bool inter = machine.has_inter_node();
  const machine::Network &network = inter ? machine.inter_node() : machine.intra_node();
  const machine::LogGPParameters *loggp = network.as_loggp();
  if (loggp == nullptr) {
    throw Error(ErrorKind::Machine,
                std::string("machine '") + machine.name() + "': the " +
                    (inter ? "inter-node" : "intra-node") + " network is " + network.describe() +
                    "; LogGP simulation needs a LogGP network (LogGP parameters L, o, g, G, O, S)");
  }
  return from_machine(*loggp);
}

} // namespace parjava::loggp
