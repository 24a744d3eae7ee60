// Scalasca's Late Sender and Late Sender / Wrong Order (anchors §2.1, §2.2; Scalasca 2.6
// src/scout/generator/MPI.pattern, MPI_LATESENDER and MPI_LATESENDER_WO).
//
// Late Sender, at every receive event r whose call Rc is not MPI_Test*, with Sc the call that
// started the matching send (MPI_Send, MPI_Isend, ...):
//     w = min(E(Sc), L(Rc)) - E(Rc), counted when w > 0
// (the cap at L(Rc) keeps clock-condition violations from exceeding the call). In MPI_Waitall /
// MPI_Waitsome only the largest w of the call instance counts (ties: the first receive), once,
// when the call ends.
//
// Wrong Order: each location keeps its last `wrong_order_window` Late Sender instances (100 in
// Scalasca). At every later receive event (Test* and zero-wait ones included) every buffered
// instance whose send event is strictly later than the current receive's send event was a
// receive that waited for a message sent after one received later: its w is charged again as
// Wrong Order (same source or different sources) at the earlier receive, and it leaves the
// buffer. So same + different <= Late Sender, as in Scalasca's metric tree.
#pragma once

#include <deque>

#include "../scan_context.hpp"

namespace parjava::analysis {

class LateSenderAnalysis {
public:
  explicit LateSenderAnalysis(const ScanContext &ctx);
  [[nodiscard]] bool active() const { return active_; }

  void begin_location();
  // A receive event (Recv or IrecvComplete) inside `call`.
  void on_receive(ScanContext &ctx, trace::EventIndex receive, const Call &call);
  // The call opened at `enter` ended; returns whether it had a positive Late Sender candidate
  // (Late Receiver skips such multi-completion calls).
  bool end_call(ScanContext &ctx, trace::EventIndex enter);
  void end_location(ScanContext &ctx);

private:
  struct Instance {
    trace::EventIndex receive = trace::kNoEvent;
    trace::EventIndex send = trace::kNoEvent;
    trace::Timestamp send_time = 0; // timestamp of the send event (the Wrong Order key)
    std::int64_t idle = 0;
    Call call; // Rc
  };
  void record(ScanContext &ctx, const Instance &instance);
  void check_wrong_order(ScanContext &ctx, trace::EventIndex receive, trace::EventIndex send);

  bool active_ = false;
  bool report_late_sender_ = false;
  bool report_same_ = false;
  bool report_different_ = false;
  std::size_t window_ = 100;
  std::deque<Instance> buffer_; // FIFO of the last `window_` instances, oldest first
  // Latest send_time in buffer_: a receive whose send is at least as late matches nothing, so
  // in-order traffic costs one comparison per receive instead of a walk over the window.
  trace::Timestamp latest_send_time_ = 0;
  // The multi-completion call being accumulated.
  trace::EventIndex pending_enter_ = trace::kNoEvent;
  Instance pending_best_;
};

} // namespace parjava::analysis
