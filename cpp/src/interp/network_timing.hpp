// Point-to-point timing parameters taken from the Machine, one set per network (intra-node,
// inter-node), in nanoseconds, so the engine reads plain numbers instead of calling into the
// machine description per message.
#pragma once

#include <cstdint>

#include "parjava/machine/machine.hpp"

namespace parjava::interp {

struct NetworkTiming {
  bool loggp = false;
  // Delay models (Hockney, measured table): a message of n bytes takes T(n); its envelope
  // (the first byte) arrives after latency = min(T(0), T(n)), and it occupies the sender's and
  // the receiver's link for T(n) - latency.
  const machine::Network *network = nullptr;
  // LogGP (LogGOPSim's meaning, anchors/loggopsim-semantics.md §3), ns.
  double L = 0.0, o = 0.0, g = 0.0, G = 0.0, O = 0.0;
  std::uint64_t eager_limit = 0;
  // A message a process sends to itself is a memory copy (MPI implementations copy
  // self-messages locally): copy_per_byte from the machine's thread costs, no latency.
  bool self_copy = false;
  double copy_ns_per_byte = 0.0;

  [[nodiscard]] double transfer_ns(std::uint64_t bytes) const {
    if (self_copy) {
      return static_cast<double>(bytes) * copy_ns_per_byte;
    }
    // A send asks for T(n) and T(0), and most programs send a few sizes over and over: the
    // last size's time is kept (p2p_time is a pure function of the size; a measured table's is
    // a binary search).
    if (bytes == 0) {
      if (!zero_known_) {
        zero_ns_ = network->p2p_time(0) * 1e9;
        zero_known_ = true;
      }
      return zero_ns_;
    }
    if (bytes != last_bytes_) {
      last_ns_ = network->p2p_time(bytes) * 1e9;
      last_bytes_ = bytes;
    }
    return last_ns_;
  }

private:
  mutable bool zero_known_ = false;
  mutable double zero_ns_ = 0.0;
  mutable std::uint64_t last_bytes_ = 0; // 0: nothing kept (0 has its own entry)
  mutable double last_ns_ = 0.0;
};

// LogGP parameters converted to ns at picosecond resolution, so that parameters given in
// seconds (1.5e-6) become exact integers of ns (1500) and LogGOPSim's integer arithmetic is
// reproduced without floating-point residue.
NetworkTiming timing_of(const machine::Network &network);

} // namespace parjava::interp
