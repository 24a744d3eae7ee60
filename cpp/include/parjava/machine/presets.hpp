// Ready-made machines for what-if studies, with the public sources of their numbers (listed in
// each machine's sources() and in docs/guide/machine.md, "Machine presets").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "parjava/machine/machine.hpp"

namespace parjava::machine {

// "infiniband-edr", "ethernet-10g", "shared-memory".
std::vector<std::string> preset_names();

// Throws parjava::Error(ErrorKind::Machine) for an unknown name, listing the known ones.
Machine preset(std::string_view name);

} // namespace parjava::machine
