// The critical path of a trace held in parts by K analysis processes (python/parjava/
// _parallel_explain.py, docs/running-at-scale.md): each part builds the timelines and finds
// the wait states of its own processes only (the scan on its part, whose replayed partner
// events make its own findings the serial ones; Wait at Finalize from the latest entry,
// reduced over the parts). The backward walk (causes.hpp) is one chain: a part walks while
// the path stays on its own processes and hands (location, time) on to the part that owns the
// process the path jumps to, as a token. Each part then profiles its own segments, and one
// process merges the parts' rows, numbering the activities as the serial analysis does
// (ActivityKey), into the serial CauseAnalysis' critical path: same segments, same profile,
// same imbalance to the last bit (the sums are of integral nanoseconds; the imbalance is
// computed once, by the serial code, in the serial activity order). Delay costs run in parts
// too (start_delays, propagate_delays): a backward replay that carries each wait state's
// waiting side to the part of the process that caused it, in the serial order (the
// cpp/src/analysis/causes/delay_parts.hpp), so the merged costs are the serial ones.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "parjava/analysis/causes/causes.hpp"
#include "parjava/trace/trace.hpp"

namespace parjava::analysis {

// The analysed locations: each process's main thread, by rank. Throws Error(Usage) when the
// trace has no MPI process.
std::vector<std::uint32_t> analysed_locations(const trace::Trace &trace);

// Per analysed location, the entry time into its (last) MPI_Finalize where the part owns it
// (`owned`: per trace location) and it has one; INT64_MIN elsewhere. `entered` counts the
// owned ones that have one: summed over the parts, all processes entered when it is their
// number.
struct FinalizeEntries {
  std::vector<trace::Timestamp> entry;
  std::uint32_t entered = 0;
};
FinalizeEntries finalize_entries(const trace::Trace &trace, const std::vector<std::uint8_t> &owned);

// Over the analysed locations the part owns (`owned`: per trace location): the latest first
// entry into MPI_Init (at least 0) and how many have one. Reduced over the parts (maximum,
// sum), MPI_Init synchronises all processes when the count is theirs.
struct InitEntries {
  trace::Timestamp latest = 0;
  std::uint32_t entered = 0;
};
InitEntries init_entries(const trace::Trace &trace, const std::vector<std::uint8_t> &owned);

class CausePart {
public:
  // `owned`: per trace location. `finalize_latest`: the analysed location that entered
  // MPI_Finalize last (the first of them), at `finalize_entry`; kNoRef when not every process
  // entered it.
  CausePart(const trace::Trace &trace, const std::vector<std::uint8_t> &owned,
            std::uint32_t finalize_latest, trace::Timestamp finalize_entry);
  ~CausePart();
  CausePart(const CausePart &) = delete;
  CausePart &operator=(const CausePart &) = delete;

  [[nodiscard]] const std::vector<std::uint32_t> &locations() const;
  // First and last event per analysed location it owns (INT64_MAX, INT64_MIN elsewhere).
  [[nodiscard]] std::vector<trace::Timestamp> begins() const;
  [[nodiscard]] std::vector<trace::Timestamp> ends() const;

  // Walk back from analysed location `l` at time `t` while the path stays on own locations
  // (`l` must be one), numbering the segments from `step` on (0: the path's last one). Returns
  // the next (location, time, step), done when the path reached `first`.
  struct Step {
    std::uint32_t location = 0;
    trace::Timestamp time = 0;
    std::int64_t step = 0;
    bool done = false;
  };
  Step walk(std::uint32_t l, trace::Timestamp t, trace::Timestamp first, std::int64_t step);

  // Delay costs, in three steps (`owners`: per analysed location, the part that owns it):
  // 1. per part (of `parts`), the bytes of this part's wait states its processes caused;
  [[nodiscard]] std::vector<std::string> caused_elsewhere(const std::vector<std::uint32_t> &owners,
                                                          std::size_t parts) const;
  // 2. with what every part sent this one in step 1, and MPI_Init's latest entry over the
  //    parts (init_entries; `init_all`: every process entered it): the synchronisation points
  //    and the order of the propagation;
  void start_delays(const trace::Trace &trace, const std::vector<std::uint32_t> &owners,
                    const std::vector<std::string> &caused, trace::Timestamp init, bool init_all);
  // 3. take the waiting sides other parts sent (`incoming`), propagate for at most `budget`
  //    wait states, leave in `outgoing` (one string per part, empty for none) what to send;
  //    repeat until Done. Blocked: waits for another part's waiting side.
  enum class Propagation { Done = 0, Blocked = 1, More = 2 };
  Propagation propagate_delays(const std::vector<std::string> &incoming,
                               std::vector<std::string> &outgoing, std::size_t budget);

  // What the root merges, as bytes: activities and their keys, time, waiting and path profile
  // rows of own locations (own activity numbers), own segments with their steps; the delay
  // costs when they were propagated.
  [[nodiscard]] std::string result_bytes() const;

private:
  struct State;
  std::unique_ptr<State> state_;
};

// The parts' bytes (CausePart::result_bytes) as the serial analysis: activities in the serial
// order, time and waiting rows; the critical path (segments, profile, imbalance) when it was
// walked (no part has a segment otherwise); the delay costs when every part propagated them.
CauseAnalysis merge_cause_parts(const trace::Trace &trace, const std::vector<std::string> &parts,
                                double seconds);

} // namespace parjava::analysis
