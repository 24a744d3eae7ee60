// Every threshold and switch of the scanner, explicit (ARCHITECTURE §3: "never hidden
// constants"). Defaults and why they are what they are are in docs/guide/scanner.md.
#pragma once

#include <bitset>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "parjava/analysis/eager_limit.hpp"
#include "parjava/analysis/pattern_catalogue.hpp"
#include "parjava/machine/machine.hpp"
#include "parjava/trace/trace.hpp"

namespace parjava::analysis {

using PatternSet = std::bitset<kPatternCount>;

// The PGAS patterns of seed 001 depend on the UPC synchronisation flags of each collective and
// on readings the paper leaves open (notes §6.1 item 14). Traces do not record the flags, so
// they are parameters; every ambiguity switch defaults to the literal reading of the paper.
struct PgasOptions {
  // UPC_IN_* / UPC_OUT_* assumed for every collective (notes §2.9, dispatch table §4.3).
  // OpenSHMEM collectives let a PE proceed with the data of PEs that have arrived, which is
  // MYSYNC; ALLSYNC turns on P2/P3, NOSYNC turns the flag-dependent patterns off.
  enum class Sync : std::uint8_t { All, My, No };
  Sync entry = Sync::My;
  Sync exit = Sync::My;
  // P3/P5/P10: the paper's `max(exit) - exit` (literal) or Scalasca's `exit - min(exit)`.
  enum class Completion : std::uint8_t { Literal, FromFirstExit };
  Completion completion = Completion::Literal;
  // P7: the text's late receiving root that the senders wait for (literal), or EXPERT's early
  // root that waits for the latest sender.
  enum class GatherRoot : std::uint8_t { Late, Early };
  GatherRoot gather_root = GatherRoot::Late;
  // P8: the paper sums `max(earlier entries) - entry` unclamped (negative terms included).
  bool prefix_clamp = false;
  // P11: the paper charges the root only; `Every` charges every participant's alone time.
  enum class Alone : std::uint8_t { Root, Every };
  Alone alone = Alone::Root;
  // P12: the thread that performs a collective allocation (the paper: thread 0).
  std::int32_t allocation_root = 0;
  // P2-P12 analyse OpenSHMEM collectives; with this also MPI collectives.
  bool include_mpi_collectives = false;
  bool operator==(const PgasOptions &) const = default;
};

struct ScanOptions {
  // ε (seed 000 §5.4): an occurrence whose lost time is under eps is not reported (I_T = 0).
  trace::Timestamp eps = 1'000; // ns
  // Δ_SR (seed 000 §5.8): the largest gap from the end of a send to the start of a receive
  // from the same partner that counts as "close".
  trace::Timestamp send_recv_delta = 5'000; // ns
  EagerLimit eager_limit = eager_limit_preset("openmpi");
  // T_send for O_D (seed 000 §5.7) comes from this machine; without one, O_D omits the transfer
  // time and the finding carries kNoTransferTime.
  std::shared_ptr<const machine::Machine> machine;
  PatternSet patterns = PatternSet{}.set();
  // Scalasca's Late Sender / Wrong Order looks back over this many Late Sender instances per
  // location (anchors §2.2: a FIFO of the last 100).
  std::uint32_t wrong_order_window = 100;
  PgasOptions pgas;
};

// Parse pattern names: keys ("late_sender"), codes ("B1", "mpi_latesender", "P6") and family
// names ("parjava", "scalasca", "pgas"), case-insensitive. Throws parjava::Error(Usage) naming
// the unknown entry and listing what is accepted.
PatternSet select_patterns(const std::vector<std::string> &names);

// Seconds -> ns with a check (finite, >= 0), naming `parameter` in the error.
trace::Timestamp seconds_to_ns(double seconds, std::string_view parameter);

// Throws parjava::Error(Usage) when a value is out of range.
void validate(const ScanOptions &options);

} // namespace parjava::analysis
