// The wait states the cause analyses start from (causes.hpp): who waited, for whom, from when
// until when, and the synchronisation points of each process (anchors §6 "Synchronization
// points"), indexed by analysed location (one per process, by rank).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "timelines.hpp"

namespace parjava::analysis::causes {

struct WaitState {
  std::uint32_t waiting = 0;          // analysed location that waited
  std::uint32_t cause = 0;            // analysed location it waited for
  trace::Timestamp start = 0;         // the waiting began (its call's entry, B_p in a collective)
  trace::Timestamp end = 0;           // the waiting ended: where the cause reached its call
  std::uint32_t activity = 0;         // the waiting call's activity
  std::uint32_t comm = trace::kNoRef; // collective: the communicator (no 1-cap on costs)
  [[nodiscard]] std::int64_t wait() const { return end - start; }
};

// A synchronisation point on a location: with one partner, or with every member of a
// communicator (kAll: with everyone, MPI_Init).
struct SyncPoint {
  trace::Timestamp time = 0;
  std::uint32_t partner = trace::kNoRef; // analysed location, or kNoRef for a collective
  std::uint32_t comm = trace::kNoRef;    // trace communicator of a collective, or kAll
};
inline constexpr std::uint32_t kAll = 0xfffffffeU;

// A part of a trace analysed on its own (cause_parts.hpp): the wait states of its own processes
// only, Wait at Finalize from the whole trace's latest entry into MPI_Finalize (reduced over the
// parts), and no synchronisation points until add_part_syncs() (only delay costs read them).
struct PartScope {
  std::vector<std::uint8_t> owned;               // per analysed location
  std::uint32_t finalize_latest = trace::kNoRef; // analysed location; kNoRef: not all entered
  trace::Timestamp finalize_entry = 0;           // its entry
};

class WaitStates {
public:
  WaitStates(const trace::Trace &trace, const std::vector<std::uint32_t> &locations,
             Timelines &timelines, const PartScope *part = nullptr);

  [[nodiscard]] const std::vector<WaitState> &all() const { return waits_; }
  // Indices into all() of the wait states of analysed location l, by increasing end.
  [[nodiscard]] const std::vector<std::uint32_t> &of(std::uint32_t l) const { return by_loc_[l]; }
  [[nodiscard]] std::uint32_t locations() const {
    return static_cast<std::uint32_t>(by_loc_.size());
  }
  // The latest synchronisation point of `l` strictly before `t` that involves `partner`, or
  // the location's first event when there is none.
  [[nodiscard]] trace::Timestamp previous_sync(std::uint32_t l, trace::Timestamp t,
                                               std::uint32_t partner) const;

  // The entry into MPI_Finalize of analysed location `l` (its last one), or kNoEvent.
  static trace::EventIndex finalize_enter(const trace::Trace &trace, std::uint32_t location);
  // The latest first entry into MPI_Init (or MPI_Init_thread) of the analysed locations
  // `owned` flags (all when empty), at least 0, and how many have one: MPI_Init is one
  // synchronisation point of all processes when every process has one.
  static std::pair<trace::Timestamp, std::uint32_t>
  init_entries(const trace::Trace &trace, const std::vector<std::uint32_t> &locations,
               const std::vector<std::uint8_t> &owned = {});

  // A part's synchronisation points of its own processes, as the whole trace's: MPI_Init's
  // (`init`, `init_all`: reduced over the parts), its complete synchronising collectives',
  // and those of the wait states of its processes, on both sides, and of `caused` (other
  // parts' wait states caused by its processes).
  void add_part_syncs(const trace::Trace &trace, const std::vector<std::uint32_t> &locations,
                      const PartScope &part, trace::Timestamp init, bool init_all,
                      const std::vector<WaitState> &caused);

private:
  [[nodiscard]] bool involves(const SyncPoint &s, std::uint32_t partner) const;
  void index_waits();
  void add_collective_syncs(const trace::Trace &trace, const std::vector<std::uint32_t> &analysed);
  void add_wait_syncs(const WaitState &w);
  void sort_syncs();
  void add_finalize_waits(const trace::Trace &trace, const std::vector<std::uint32_t> &locations,
                          Timelines &timelines, const PartScope *part);

  std::vector<WaitState> waits_;
  std::vector<std::vector<std::uint32_t>> by_loc_;
  std::vector<std::vector<SyncPoint>> sync_; // per analysed location, by time
  std::vector<trace::Timestamp> begin_;
  std::vector<std::int32_t> rank_of_;                   // analysed location -> world rank
  std::vector<std::vector<std::uint8_t>> comm_members_; // trace communicator -> rank member?
};

} // namespace parjava::analysis::causes
