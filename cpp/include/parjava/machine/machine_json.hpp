// The machine description as JSON (schema in docs/guide/machine.md, "Machine JSON"). Reading is
// strict: every required field must be present with the right type and a valid value, unknown
// fields are errors (a typo must not silently fall back to a default), and quantities may be
// written with units ("1.27 us", "12.4 GB/s", "4 KiB"). Writing uses plain SI numbers.
#pragma once

#include <string>
#include <string_view>

#include "parjava/machine/machine.hpp"

namespace parjava::machine {

// The schema version this build writes and reads. Files with another version are rejected
// with a message saying which version they have and which this parjava reads.
inline constexpr int machine_schema_version = 1;

// Parses a machine from JSON text. `origin` (a file name, or "<string>") prefixes error
// messages, which name the field by its path, e.g. "cluster.json: inter_node.latency: must be
// >= 0 (got -1e-06)". Throws parjava::Error(ErrorKind::Machine).
Machine machine_from_json(std::string_view text, std::string_view origin = "<string>");
// Serialises a machine (with its measurement, if any). `indent` < 0 writes one line.
std::string machine_to_json(const Machine &machine, int indent = 2);

// The wiring alone (the "topology" and "placement" members of the machine JSON), for the Python
// layer and tools. Errors as for machine_from_json.
Topology topology_from_json(std::string_view text, std::string_view origin = "<string>");
std::string topology_to_json(const Topology &topology, int indent = -1);
Placement placement_from_json(std::string_view text, std::string_view origin = "<string>");
std::string placement_to_json(const Placement &placement, int indent = -1);

// File forms. load_machine throws ErrorKind::Machine when the file cannot be read.
Machine load_machine(const std::string &path);
void save_machine(const Machine &machine, const std::string &path);

} // namespace parjava::machine
