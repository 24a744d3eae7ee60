// Delay costs of a trace in parts (cause_parts.hpp; docs/running-at-scale.md): the backward
// replay of Böhme et al. (ICPP 2010, §5: the waiting side's time profile travels back along
// the traced synchronisation to the cause's process, which charges its excess activities and
// propagates the waiting to its own wait states). A wait state's waiting side R is computed
// by the part owning R, its cause side S by the part owning S; both sides of one wait state on
// one part run as in the serial analysis.
//
// Order: the serial analysis processes the wait states from the latest to the earliest (by
// end, waiting process, and the waiting process' own order: WaitKey). A part goes through its
// own and the received ones in that order. R's side of a wait state reads the waiting it
// caused later (rc), complete once every later wait state that R caused is processed — on R's
// own part, earlier in its order; S's side needs R's side, which another part may still have
// to send. A part that lacks one stops there (Blocked) after sending what it has, so the
// parts move through the run's wait states together and every cost, every propagated
// waiting, is summed in the serial order: the results are the serial ones to the last bit.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <vector>

#include "delay_engine.hpp"

namespace parjava::analysis::detail {
class Writer;
} // namespace parjava::analysis::detail

namespace parjava::analysis::causes {

// A wait state's place in the serial order (ascending; processed descending).
struct WaitKey {
  trace::Timestamp end = 0;
  std::uint32_t waiting = 0;  // analysed location
  std::uint32_t position = 0; // among the waiting location's wait states (WaitStates::of)
  friend auto operator<=>(const WaitKey &, const WaitKey &) = default;
};

// The waiting a wait state left unattributed (summed in the serial order when merged).
struct Unattributed {
  WaitKey key;
  double ns = 0.0;
};

enum class DelayStatus { Done, Blocked, More };

class DelayPart {
public:
  // `owners`: per analysed location, the part that owns it; `caused`: the bytes each part
  // sent of its wait states caused by this part's processes (caused_elsewhere()).
  DelayPart(const trace::Trace &trace, const std::vector<std::uint32_t> &locations,
            const PartScope &scope, const Timelines &timelines, WaitStates &waits,
            const std::vector<std::uint32_t> &owners, trace::Timestamp init, bool init_all,
            const std::vector<std::string> &caused);

  // Per part, the bytes of this part's wait states caused by that part's processes.
  static std::vector<std::string> caused_elsewhere(const WaitStates &waits,
                                                   const std::vector<std::uint32_t> &owners,
                                                   std::size_t parts);

  // Take the waiting sides other parts sent (`incoming`), go on in the serial order for at
  // most `budget` wait states, and leave in `outgoing` (per part; empty: nothing) the waiting
  // sides computed for them. Blocked: a cause side waits for another part's waiting side.
  DelayStatus step(const std::vector<std::string> &incoming, std::vector<std::string> &outgoing,
                   std::size_t budget);

  // The part's results (the part must be Done): costs of its processes (trace locations, own
  // activity numbers) with the key of the wait state that created each row, the waiting left
  // unattributed per wait state, the count and waiting of its own wait states.
  void write(detail::Writer &w, const std::vector<std::uint32_t> &locations) const;

private:
  struct Item {
    WaitKey key;
    std::uint32_t index = 0; // own: in waits.all(); caused: in caused_
    std::uint8_t kind = 0;   // kBoth, kWaiting (cause elsewhere), kCause (waiting elsewhere)
  };
  void receive(const std::string &bytes);

  const Timelines &timelines_;
  const WaitStates &waits_;
  std::vector<std::uint32_t> owners_;
  DelayEngine engine_;
  std::vector<Item> items_; // by decreasing key
  std::size_t cursor_ = 0;
  std::vector<WaitState> caused_;     // others' wait states caused here, by increasing key
  std::vector<WaitKey> caused_keys_;  // their keys
  std::vector<std::uint8_t> arrived_; // per caused_: its waiting side arrived
  std::vector<double> arrived_rc_;
  std::vector<std::vector<WaitingTime>> arrived_times_;
  std::vector<double> rc_; // per own wait state: the waiting it caused later
  std::vector<WaitingTime> times_;
  DelayCosts out_;
  std::vector<Unattributed> unattributed_;
};

} // namespace parjava::analysis::causes
