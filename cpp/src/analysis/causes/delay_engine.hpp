// The delay cost of one wait state (causes.hpp; Böhme et al. ICPP 2010, anchors §6), split in
// its two sides so that a trace in parts (delay_parts.cpp) can compute each side where its
// process is: the waiting side R's interval reads only R's timeline and wait states, the
// cause side S's reads S's and the waiting side's time per activity. The serial analysis
// (delay_costs.cpp) runs both sides of every wait state here, in the same order.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "wait_states.hpp"

namespace parjava::analysis::causes {

// The waiting side's time in one activity of its interval, its own waiting removed, as this
// engine's timeline numbers it: `activity` and `path` kNoRef where it has no such activity
// or call path (another part's activity that the cause side never reads).
struct WaitingTime {
  std::uint32_t activity = trace::kNoRef;
  std::uint32_t path = trace::kNoRef;
  double ns = 0.0;
};

class DelayEngine {
public:
  DelayEngine(const Timelines &timelines, const WaitStates &waits);

  // R's side of `w`: its time per activity from its previous synchronisation with S up to
  // the start of the waiting, its waiting removed, in the order the sums meet them.
  void waiting_side(const WaitState &w, std::vector<WaitingTime> &out);

  // S's side of `w`, with R's side `r` and the waiting `caused_later` that `w` caused later:
  // adds the short- and long-term costs of S's excess activities to `out.costs` (a row is
  // created with `tag` in created_by()), and to `rc` (per wait state of this engine's
  // WaitStates) the waiting each of S's wait states in the interval propagated. Returns the
  // waiting left unattributed (0 when all of it is).
  double cause_side(const WaitState &w, double caused_later, const std::vector<WaitingTime> &r,
                    std::vector<double> &rc, DelayCosts &out, std::int64_t tag = 0);

  // Per row of `out.costs`, the tag it was created with.
  [[nodiscard]] const std::vector<std::int64_t> &created_by() const { return created_by_; }

private:
  const Timelines &timelines_;
  const WaitStates &waits_;
  ActivitySums on_s_, on_r_;
  // Per call path: S's and R's time, and the sum of the excess of S's activities in it.
  ActivitySums path_s_, path_r_, path_excess_;
  std::vector<std::pair<std::uint32_t, double>> inside_; // S's wait states in its interval
  std::unordered_map<std::uint64_t, std::size_t> row_;   // (location, activity) -> costs index
  std::vector<std::int64_t> created_by_;
};

} // namespace parjava::analysis::causes
