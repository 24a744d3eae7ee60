// The JSON forms of a machine's wiring: topology, placement (docs/guide/machine.md "Machine JSON",
// docs/networks.md). Private to the part; machine_json.cpp calls them.
#pragma once

#include <string>

#include "json_reader.hpp"
#include "parjava/machine/placement.hpp"
#include "parjava/machine/topology.hpp"

namespace parjava::machine::detail {

Topology read_topology(const Reader &in, const json &value, const std::string &field);
json write_topology(const Topology &topology);
Placement read_placement_json(const Reader &in, const json &value, const std::string &field);
json write_placement_json(const Placement &placement);

} // namespace parjava::machine::detail
