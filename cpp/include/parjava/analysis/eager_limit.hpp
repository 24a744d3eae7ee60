// The eager limit: a message of `bytes <= limit` is sent eagerly (the send is local and returns
// without waiting for the receiver), a larger one by rendezvous. The convention is the machine
// description's (parjava/machine/network.hpp). Seed 000 §5.5 (B1, B8), §5.6 (B9) and §5.7 (N7)
// depend on it and give one value only: 64 KiB for MVAPICH2-1.7 defaults (notes §5.5).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "parjava/machine/machine.hpp"

namespace parjava::analysis {

struct EagerLimit {
  std::uint64_t intra_node = 0; // between processes on one node (shared memory)
  std::uint64_t inter_node = 0; // across the network
  std::string source;           // where the values come from, shown in reports

  [[nodiscard]] std::uint64_t for_pair(bool same_node) const {
    return same_node ? intra_node : inter_node;
  }
  bool operator==(const EagerLimit &) const = default;
};

// One limit for both networks.
EagerLimit eager_limit_bytes(std::uint64_t bytes);
// Presets, with the default settings they stand for (see eager_limit.cpp for the sources):
//   "openmpi"  Open MPI 4.1, pml ob1: btl/vader 4096 B and btl/tcp 65536 B, each minus the
//              56-byte ob1 header: 4040 B intra-node, 65480 B inter-node (measured here);
//   "mpich"    MPICH 4.1 ch4: posix iqueue cell 69632 B intra-node; ch4:ofi does no MPICH-level
//              rendezvous by default (MPIR_CVAR_CH4_OFI_EAGER_THRESHOLD = -1): unlimited;
//   "mvapich2" 64 KiB on both (seed 000 §5.6: MVAPICH2-1.7 defaults).
// Throws parjava::Error(Usage) for an unknown name, listing the known ones.
EagerLimit eager_limit_preset(std::string_view name);
std::vector<std::string> eager_limit_preset_names();
// The machine's networks (Machine::eager_limit); inter = intra when it has one node only.
EagerLimit eager_limit_from_machine(const machine::Machine &machine);

} // namespace parjava::analysis
