// Flow-level link sharing for the interpreter: every inter-node message on a topology with links
// is a flow along its route, and the flows on a link share its bandwidth max-min fairly
// (SimGrid's model: Velho, Schnorr, Casanova, Legrand, TOMACS 23(4) 2013, §3; the solver is
// progressive filling with SimGrid's weights, lmm's "maxmin" semantics: a link saturates when
// sum(usage / penalty) * level = capacity, a flow then gets level / penalty, bounded by its own
// bound).
//
// Speed (issue 17 item 4): shares are recomputed only when the set of flows on some link
// changed, only for the flows connected to such links, and only once per instant: start() and
// pop_finished() mark links dirty, settle() (called from a queued event at the current time,
// after every other event of that instant that was already queued) recomputes the dirty
// components; finish times are kept in an indexed heap, so the engine's queue holds one wake-up
// for the earliest, not an event per flow and recomputation. Everything lives in flat arrays reused
// across flows; nothing is allocated per flow once the pools have grown.
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

  void collect_component();
  void solve(double now);
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
  std::uint32_t touch_epoch_ = 0;

  // flows
  std::vector<double> bytes_left_;
  std::vector<double> rate_;
  std::vector<double> last_;
  std::vector<double> finish_;
  std::vector<double> bound_;
  std::vector<double> penalty_;
  std::vector<std::uint32_t> order_position_;
  std::vector<std::uint32_t> order_;
  std::vector<std::uint32_t> owner_;
  std::vector<std::uint32_t> member_offset_;
  std::vector<std::uint32_t> member_count_;
  std::vector<std::uint32_t> flow_visit_;
  std::vector<std::uint8_t> fixed_;
  std::vector<std::uint32_t> free_flows_;
  std::size_t live_flows_ = 0;

  std::vector<Member> members_;
  std::vector<std::vector<std::uint32_t>> free_members_; // by block size

  // scratch
  std::vector<std::uint32_t> component_links_;
  std::vector<std::uint32_t> component_flows_;
  std::vector<std::uint32_t> stack_;
  std::vector<HeapEntry> heap_;
  std::uint32_t epoch_ = 0;

  std::uint64_t started_ = 0;
  std::uint64_t recomputations_ = 0;
  std::uint64_t flows_recomputed_ = 0;
  std::size_t peak_flows_ = 0;
};

} // namespace parjava::interp
