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
// computed once, by the serial code, in the serial activity order). Delay costs do not run in
// parts (their backward propagation reads both sides of every wait state).
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

  // What the root merges, as bytes: activities and their keys, time, waiting and path profile
  // rows of own locations (own activity numbers), own segments with their steps.
  [[nodiscard]] std::string result_bytes() const;

private:
  struct State;
  std::unique_ptr<State> state_;
};

// The parts' bytes (CausePart::result_bytes) as the serial analysis' critical path (no delay
// costs): activities in the serial order, time and waiting rows, segments, profile, imbalance.
CauseAnalysis merge_cause_parts(const trace::Trace &trace, const std::vector<std::string> &parts,
                                double seconds);

} // namespace parjava::analysis
