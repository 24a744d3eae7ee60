// LogGP parameters of a parjava machine description (SI seconds, part machine) as the integer
// nanoseconds the LogGOPSim-exact rules use (loggp_rules.hpp). The interpreter prices messages
// of a LogGP network with these, so its times agree with the GOAL simulator's.
#pragma once

#include "parjava/loggp/loggp_rules.hpp"
#include "parjava/machine/machine.hpp"
#include "parjava/machine/network.hpp"

namespace parjava::loggp {

// Rounds each time to the nearest nanosecond (G and O per byte); S is taken as is. Throws
// parjava::Error(Machine) if a value is negative, not finite or too large for 64 bits.
[[nodiscard]] LogGPParameters from_machine(const machine::LogGPParameters &si);

// The LogGP network of a machine: the inter-node network, or the intra-node one for a machine
// without an inter-node network. Throws parjava::Error(Machine) naming the network when it is
// not a LogGP model (Hockney, measured table).
[[nodiscard]] LogGPParameters from_machine(const machine::Machine &machine);

} // namespace parjava::loggp
