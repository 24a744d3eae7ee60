// Flow-level link sharing for the interpreter: every inter-node message on a topology with links
// is a flow along its route, and the flows on a link share its bandwidth max-min fairly
// (SimGrid's model: Velho, Schnorr, Casanova, Legrand, TOMACS 23(4) 2013, §3; the solver is
// progressive filling with SimGrid's weights, lmm's "maxmin" semantics: a link saturates when
// sum(usage / penalty) * level = capacity, a flow then gets level / penalty, bounded by its own
// bound).
//
// Speed (issue 17 item 4): shares are recomputed only when the set of flows on some link
// changed, and only once per instant: start() and pop_finished() mark links dirty, settle()
// (called from a queued event at the current time, after every other event of that instant that
// was already queued) recomputes; finish times are kept in an indexed heap, so the engine's queue
// holds one wake-up for the earliest, not an event per flow and recomputation. Everything lives in
// flat arrays reused across flows; nothing is allocated per flow once the pools have grown.
//
// Incremental max-min: progressive filling fixes flows in increasing order of level, and the
// part of it below the lowest level a change can affect is the same before and after the change.
// A flow that leaves changes nothing below the level it was fixed at (its links did not saturate
// earlier, or it would have been fixed there); a flow that arrives changes nothing below the
// first level at which one of its links would now saturate, which follows from the levels of the
// flows already on the link (in the old solution a flow fixed at level L loads the link with
// usage * min(x, L) / penalty at level x), nor below its own bound. settle() therefore restarts
// the filling at that cut: the flows fixed below it keep their rates (constants subtracted from
// their links), and only the flows at or above it that are connected to a changed link through
// such flows are solved again. Each link keeps its flows sorted by decreasing level with running
// sums of their loads, so finding the flows above the cut and the load below it costs only the
// flows above it. set_incremental(false) re-solves every changed connected component from
// scratch (the reference the tests compare with).
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "parjava/machine/fabric.hpp"

namespace parjava::interp {

class FlowNetwork {
public:
  static constexpr std::uint32_t kNoFlow = 0xffffffffU;

  // Links of the fabric, capacities in bytes per ns. Host links are shared only when
  // `share_host_links` (endpoint contention on).
  void build(const machine::Fabric &fabric, bool share_host_links);
  [[nodiscard]] bool empty() const noexcept { return capacity_.empty(); }
  // Incremental re-solving (the default) or every changed component from scratch.
  void set_incremental(bool on) noexcept { incremental_ = on; }

  // A flow of `bytes` starting at `now` (ns) along `links` (usage 1) and `back` (usage
  // `back_usage`, the cross traffic of the reverse route), at most `bound` bytes/ns, with
  // sharing penalty `penalty` (> 0). Returns its id; its links are dirty until the next settle.
  std::uint32_t start(double now, double bytes, const std::uint32_t *links, std::size_t count,
                      const std::uint32_t *back, std::size_t back_count, double back_usage,
                      double bound, double penalty, std::uint32_t owner);

  [[nodiscard]] bool dirty() const noexcept { return !dirty_.empty() || !isolated_.empty(); }

  // Recomputes the rates of the flows connected to dirty links and their finish times.
  void settle(double now);
  // The earliest finish time of a flow in the network (infinity when there is none).
  [[nodiscard]] double next_finish() const noexcept {
    return order_.empty() ? std::numeric_limits<double>::infinity() : finish_[order_.front()];
  }
  // Takes out one flow whose finish time is <= now: true and its owner (the id given to
  // start()); its links become dirty. False when none is due.
  bool pop_finished(double now, std::uint32_t &owner);

  // The rate of a live flow (bytes per ns) and its finish time (ns) as of the last settle().
  [[nodiscard]] double rate(std::uint32_t f) const { return rate_[f]; }
  [[nodiscard]] double finish(std::uint32_t f) const { return finish_[f]; }

  // Statistics for the prediction's engine figures.
  [[nodiscard]] std::uint64_t flows_started() const noexcept { return started_; }
  [[nodiscard]] std::uint64_t recomputations() const noexcept { return recomputations_; }
  [[nodiscard]] std::uint64_t flows_recomputed() const noexcept { return flows_recomputed_; }
  [[nodiscard]] std::size_t peak_flows() const noexcept { return peak_flows_; }
  [[nodiscard]] std::size_t state_bytes() const noexcept;

private:
  struct Member {
    std::uint32_t link;
    std::uint32_t flow;
    std::uint32_t prev;
    std::uint32_t next;
    double usage;
  };
  struct HeapEntry {
    double level;
    std::uint32_t id;      // link, or flow | kFlowBit
    std::uint32_t version; // links: the version it was computed at
  };
  static constexpr std::uint32_t kFlowBit = 0x80000000U;
  static constexpr std::uint32_t kNone = 0xffffffffU;

  // The lowest level the changes since the last settle can affect (-infinity: everything).
  [[nodiscard]] double restart_level();
  void collect_component(double cut);
  void solve(double now, double cut);
  void resort(std::uint32_t link, std::uint32_t stop);
  void restore_order(double cut);
  void ensure_sorted(std::uint32_t link);
  [[nodiscard]] double finish_time(std::uint32_t f, double now) const;
  // The flows by finish time: a binary heap indexed by flow (order_position_).
  void order_update(std::uint32_t f);
  void order_remove(std::uint32_t f);
  void order_sift_up(std::size_t i);
  void order_sift_down(std::size_t i);
  std::uint32_t allocate_members(std::uint32_t count);
  void release_members(std::uint32_t offset, std::uint32_t count);
  void mark(std::uint32_t link);
  void heap_push(HeapEntry e);
  HeapEntry heap_pop();

  // links
  std::vector<double> capacity_;     // bytes per ns
  std::vector<std::uint8_t> shared_; // takes part in sharing (else: a per-flow bound)
  std::vector<std::uint32_t> head_;  // first member on the link
  std::vector<std::uint32_t> count_;
  std::vector<std::uint8_t> dirty_mark_;
  std::vector<std::uint32_t> visit_; // epoch of the last component walk
  std::vector<double> remaining_;    // solver scratch
  std::vector<double> weight_;       // solver scratch: sum of usage / penalty of unfixed flows
  std::vector<std::uint32_t> version_;
  std::vector<std::uint32_t> dirty_;
  std::vector<std::uint32_t> isolated_;   // new flows on no shared link
  std::vector<std::uint32_t> touch_mark_; // solver: epoch of the last level change
  std::vector<std::uint32_t> touched_;    // solver: links whose level changed
  std::vector<std::uint32_t> cut_;        // first member below the cut (set by collect_component)
  std::vector<std::uint8_t> unsorted_;    // members not in order since a whole-component solve
  std::uint32_t touch_epoch_ = 0;

  // flows
  std::vector<double> bytes_left_;
  std::vector<double> rate_;
  std::vector<double> last_;
  std::vector<double> finish_;
  std::vector<double> bound_;
  std::vector<double> penalty_;
  std::vector<double> level_; // level it was fixed at (infinity: not yet solved, or unbounded)
  std::vector<std::uint32_t> order_position_;
  std::vector<std::uint32_t> order_;
  std::vector<std::uint32_t> owner_;
  std::vector<std::uint32_t> member_offset_;
  std::vector<std::uint32_t> member_count_;
  std::vector<std::uint32_t> flow_visit_;
  std::vector<std::uint8_t> fixed_;
  std::vector<std::uint32_t> free_flows_;
  std::size_t live_flows_ = 0;
  std::vector<std::uint32_t> fresh_; // flows started since the last settle
  // The lowest level of a flow taken out since the last settle.
  double removed_level_ = std::numeric_limits<double>::infinity();
  bool incremental_ = true;

  std::vector<Member> members_;
  // Per member: usage * rate of its flow and of those after it on the link (lower levels). Apart
  // from the members so the solver's walks over them stay as dense as they were.
  std::vector<double> below_;
  std::vector<std::vector<std::uint32_t>> free_members_; // by block size

  // scratch
  std::vector<std::uint32_t> component_links_;
  std::vector<std::uint32_t> component_flows_;
  std::vector<std::uint32_t> stack_;
  std::vector<HeapEntry> heap_;
  std::vector<std::uint32_t> sort_scratch_;
  std::uint32_t epoch_ = 0;

  std::uint64_t started_ = 0;
  std::uint64_t recomputations_ = 0;
  std::uint64_t flows_recomputed_ = 0;
  std::size_t peak_flows_ = 0;
};

} // namespace parjava::interp
