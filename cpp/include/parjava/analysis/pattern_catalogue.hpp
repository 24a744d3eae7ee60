// The patterns the scanner knows (ARCHITECTURE §3 "Findings"): the ParJava point-to-point
// patterns of seed 000 (notes §5.5-§5.8), the classic MPI wait states of EXPERT/Scalasca
// (anchors/mpi-wait-state-patterns.md) and the PGAS patterns of seed 001 (notes §3). One table
// gives every pattern its stable key, the short code users know it by, its display name, its
// place in the metric tree (a Cube-like hierarchy, seed 001 §4.4), its source and the fix to try.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace parjava::analysis {

enum class PatternId : std::uint16_t {
  // seed 000 §5.5: blocking point-to-point, late/early send and receive
  EarlyStandardSend,    // B1
  LateStandardSend,     // B2
  LateBufferedSend,     // B3
  LateSynchronousSend,  // B5
  EarlySynchronousSend, // B6
  LateReadySend,        // B7
  EarlyReadySend,       // B8
  // seed 000 §5.6: wrong message order
  WrongOrderSend,  // B9
  WrongOrderBsend, // B10
  // seed 000 §5.7: non-blocking point-to-point, waits with optimal distance
  IsendSenderWait,    // N1
  IsendReceiverWait,  // N2
  IbsendReceiverWait, // N4
  IssendSenderWait,   // N5
  IssendReceiverWait, // N6
  IrsendSenderWait,   // N7
  IrsendReceiverWait, // N8
  // seed 000 §5.8
  CloseSendRecv,
  // classic MPI wait states (Scalasca 2.6, anchors §2-§3)
  LateSender,
  LateSenderWrongOrderSame,
  LateSenderWrongOrderDifferent,
  LateReceiver,
  WaitAtBarrier,
  BarrierCompletion,
  WaitAtNxN,
  NxNCompletion,
  LateBroadcast,
  EarlyReduce,
  EarlyScan,
  // PGAS (seed 001 §3)
  LockContention,             // P1
  CollectiveEntrySync,        // P2
  CollectiveExitSync,         // P3
  PgasWaitAtBarrier,          // P4
  PgasBarrierCompletion,      // P5
  PgasLateBroadcast,          // P6
  EarlyGather,                // P7
  EarlyPrefixReduction,       // P8
  ManyToManyEntrySync,        // P9
  ManyToManyExitSync,         // P10
  WaitInsideCollective,       // P11
  WaitInCollectiveAllocation, // P12
  Count_
};

inline constexpr std::size_t kPatternCount = static_cast<std::size_t>(PatternId::Count_);

// Where a pattern's definition comes from. Families overlap on purpose: ParJava's "late
// standard send" and Scalasca's "Late Sender" measure the same waiting with different rules,
// so totals are per family, never summed across families.
enum class PatternFamily : std::uint8_t { ParJava, Scalasca, Pgas };

std::string_view family_key(PatternFamily family); // "parjava", "scalasca", "pgas"
std::string_view family_title(PatternFamily family);

struct PatternInfo {
  PatternId id;
  std::string_view key;  // stable identifier, e.g. "late_sender"
  std::string_view code; // what the source calls it: "B1", "N2", "P6", "mpi_latesender"
  std::string_view name; // display name
  PatternFamily family;
  // Path of the metric-tree group holding the pattern, '/'-separated below the family, e.g.
  // "Point-to-point/Late Sender" for the wrong-order patterns, which Scalasca nests inside
  // Late Sender (their time is part of it: `part_of_parent`).
  std::string_view tree_group;
  bool part_of_parent;      // the severity is already counted in the pattern named by tree_group
  std::string_view source;  // where the definition and severity formula come from
  std::string_view meaning; // one sentence: what was lost and why
  std::string_view fix;     // the fix to try, used in the one-line diagnosis
};

const PatternInfo &pattern_info(PatternId id);
std::span<const PatternInfo> all_patterns();
// Lookup by key or code, case-insensitive; nullopt when unknown.
std::optional<PatternId> pattern_by_name(std::string_view name);

} // namespace parjava::analysis
