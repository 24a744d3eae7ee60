// ParJava's non-blocking patterns (seed 000 notes §5.7): process pid_0 calls
// {MPI_I*send, MPI_Wait_0}, pid_1 calls {MPI_Irecv, MPI_Wait_1}; a Wait called too early blocks.
//
//   I_T(pid_k) = Time_end(Wait_k) - Time_start(Wait_k)   if that is >= ε, else 0
//
// Sender side: N1 Isend, N5 Issend, N7 Irsend (only above the eager limit: under it the ready
// send is local); N3 (Ibsend) never occurs, the buffered send being local. Receiver side: N2
// Isend, N4 Ibsend, N6 Issend, N8 Irsend.
//
// Optimal distance of the Wait after the I-call, with X the sender's I-call, ΔT_i the duration
// of the I-call on that side and T_send the transfer time of the message:
//   sender:   O_D = ΔT_i + T_send                                  if Ts(X) > Ts(Irecv)
//             O_D = (Ts(Irecv) - Ts(X)) + ΔT_i + T_send            otherwise
//   receiver: O_D = ΔT_i + T_send                                  if Ts(X) < Ts(Irecv)
//             O_D = (Ts(X) - Ts(Irecv)) + ΔT_i + T_send            otherwise
// T_send = Machine::p2p_time(bytes, same node?) when a machine is given; without one T_send is
// taken as 0 (O_D is then a lower bound) and the finding carries kNoTransferTime.
//
// The seed defines I_T per message; a Wait* call completing several requests blocks once, so
// parjava counts each completion call once: on the receiver side when it completes a matching
// receive (the data is what it waited for), else on the sender side, anchored at the request
// whose partner started its I-call last (the one that made it wait).
#pragma once

#include <optional>

#include "../scan_context.hpp"

namespace parjava::analysis {

class ParjavaNonblockingAnalysis {
public:
  explicit ParjavaNonblockingAnalysis(const ScanContext &ctx);
  [[nodiscard]] bool active() const { return active_; }

  void begin_location();
  void on_send_complete(ScanContext &ctx, trace::EventIndex completion, const Call &call);
  void on_receive_complete(ScanContext &ctx, trace::EventIndex completion, const Call &call);
  void end_call(ScanContext &ctx, trace::EventIndex enter);
  void end_location(ScanContext &ctx);

private:
  struct Candidate {
    bool valid = false;
    PatternId pattern = PatternId::Count_;
    trace::EventIndex completion = trace::kNoEvent;
    trace::EventIndex partner = trace::kNoEvent;    // the partner's post (IrecvPost or IsendPost)
    trace::EventIndex send_post = trace::kNoEvent;  // IsendPost, inside X
    trace::EventIndex irecv_post = trace::kNoEvent; // IrecvPost, inside MPI_Irecv
    std::uint32_t sender = 0;
    std::uint32_t receiver = 0;
    std::uint64_t bytes = 0;
    trace::Timestamp key = 0; // partner's I-call start: the latest one is kept
  };
  void offer(Candidate &slot, const Candidate &candidate);
  void report(ScanContext &ctx, const Candidate &candidate, const Call &wait, bool sender_side);

  bool active_ = false;
  trace::EventIndex pending_enter_ = trace::kNoEvent;
  Call pending_call_;
  Candidate sender_side_;
  Candidate receiver_side_;
};

} // namespace parjava::analysis
