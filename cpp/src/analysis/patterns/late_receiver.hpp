// Scalasca's Late Receiver (anchors §2.3; Scalasca 2.6 MPI.pattern MPI_LATERECEIVER).
//
// For each message, Sc is the call that completes the send (a blocking MPI_Send or MPI_Ssend,
// or the MPI_Wait* holding the Isend's completion) and Pr the call that posted the receive
// (MPI_Recv, MPI_Sendrecv, or the MPI_Irecv):
//     w = 0                 if L(Sc) <= E(Pr)   (the send finished before the receive was
//                                                posted: eager)
//     w = E(Pr) - E(Sc)     otherwise, counted when w > 0
// charged at Sc. MPI_Bsend, MPI_Rsend, MPI_Sendrecv and sends completed in MPI_Test* never
// count. In MPI_Waitall / MPI_Waitsome the largest w counts once, and not at all when the same
// call instance had a positive Late Sender candidate.
#pragma once

#include "../scan_context.hpp"

namespace parjava::analysis {

class LateReceiverAnalysis {
public:
  explicit LateReceiverAnalysis(const ScanContext &ctx)
      : active_(ctx.enabled(PatternId::LateReceiver)) {}
  [[nodiscard]] bool active() const { return active_; }

  void begin_location() { pending_enter_ = trace::kNoEvent; }
  // A Send event inside a blocking send call.
  void on_blocking_send(ScanContext &ctx, trace::EventIndex send, const Call &call);
  // An IsendComplete event inside a completion call.
  void on_send_complete(ScanContext &ctx, trace::EventIndex completion, const Call &call);
  void end_call(ScanContext &ctx, trace::EventIndex enter, bool had_late_sender);
  void end_location(ScanContext &ctx);

private:
  struct Candidate {
    std::int64_t idle = 0;
    trace::EventIndex anchor = trace::kNoEvent; // the Send or IsendComplete event
    trace::EventIndex receive = trace::kNoEvent;
    std::uint64_t bytes = 0;
    Call call;
  };
  // w for the message sent by `send` (Send or IsendPost), completed in `call`.
  bool evaluate(ScanContext &ctx, trace::EventIndex send, const Call &call, Candidate &out);
  void report(ScanContext &ctx, const Candidate &candidate);

  bool active_ = false;
  trace::EventIndex pending_enter_ = trace::kNoEvent;
  Candidate pending_best_;
};

} // namespace parjava::analysis
