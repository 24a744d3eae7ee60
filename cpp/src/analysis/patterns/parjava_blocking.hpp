// ParJava's blocking point-to-point patterns (seed 000 notes §5.5, §5.6), evaluated once per
// message at the receive event of an MPI_Recv whose message came from a blocking send.
//
// Late/early send and receive (§5.5), with S the send call and R = MPI_Recv:
//   late send (receiver idles):  Δ = Time_start(S) - Time_start(R)   B2 Send, B3 Bsend,
//                                                                    B5 Ssend, B7 Rsend
//   early send (sender idles):   Δ = Time_start(R) - Time_start(S)   B1 Send (not when the
//                                message is under the eager limit: the send is local), B6 Ssend,
//                                B8 Rsend (only above the eager limit); B4 Bsend never idles
//   I_T = Δ if Δ >= ε, else 0 (§5.4), reported iff I_T > 0.
// parjava caps Δ at the duration of the idle side's own call: a process cannot idle in a call
// longer than the call lasted, so clock skew between processes (or an eager send the eager
// limit misclassified) never inflates I_T. In a trace with synchronised clocks the cap never
// binds, because the waiting call cannot return before its partner starts.
//
// Wrong message order (§5.6): two messages from one sender to one receiver with
//   Time_start(Send_0) < Time_start(Send_1)  and  Time_start(Recv_1) < Time_start(Recv_0)
// B9 for {MPI_Send, MPI_Recv} (only under the eager limit; above it the program deadlocks),
// B10 for {MPI_Bsend, MPI_Recv}. The seed gives the criterion without an ε: every occurrence is
// reported. Its I_T is the time Recv_1 (posted first, for the message sent later) waited:
//   I_T = [min(Time_start(Send_1), Time_end(Recv_1)) - Time_start(Recv_1)]+
// which is 0 when both messages were already sent (case (a) of §5.6: the cost is then the
// buffering, not idle time). Each out-of-order receive is paired with the earlier receive whose
// send started last.
#pragma once

#include <vector>

#include "../scan_context.hpp"

namespace parjava::analysis {

class ParjavaBlockingAnalysis {
public:
  explicit ParjavaBlockingAnalysis(const ScanContext &ctx);
  [[nodiscard]] bool active() const { return active_; }

  void begin_location();
  // A Recv event inside `call`.
  void on_receive(ScanContext &ctx, trace::EventIndex receive, const Call &call);

private:
  struct Previous {
    bool valid = false;
    trace::EventIndex receive = trace::kNoEvent;
    trace::EventIndex send = trace::kNoEvent;
    Call receive_call;
    trace::Timestamp send_start = 0;
  };
  void late_or_early(ScanContext &ctx, trace::EventIndex receive, const Call &receive_call,
                     trace::EventIndex send, const Call &send_call, bool eager);
  void wrong_order(ScanContext &ctx, std::vector<Previous> &previous, PatternId id,
                   trace::EventIndex receive, const Call &receive_call, trace::EventIndex send,
                   const Call &send_call);

  bool active_ = false;
  bool wrong_order_active_ = false;
  // Per sender location, the earlier receive whose send started last (B9 and B10 apart).
  std::vector<Previous> previous_send_;
  std::vector<Previous> previous_bsend_;
  std::vector<std::uint32_t> touched_;
};

} // namespace parjava::analysis
