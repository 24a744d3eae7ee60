// ParJava's close send/receive (seed 000 notes §5.8): process pid_i sends to pid_j and then
// receives from pid_j with
//     Time_start(MPI_Recv) - Time_end(MPI_Send) < Δ_SR       (send_recv_delta)
// so the two transfers ran one after the other where one MPI_Sendrecv would overlap them on a
// duplex link. The seed gives a criterion and a message, no severity; parjava's severity is the
// time the merge could save: the shorter of the two calls plus the gap between them (the calls
// overlapped completely), reported like every other severity when it reaches ε. Any blocking
// send mode counts; each send pairs with the first receive from its partner.
#pragma once

#include <vector>

#include "../scan_context.hpp"

namespace parjava::analysis {

class CloseSendRecvAnalysis {
public:
  explicit CloseSendRecvAnalysis(const ScanContext &ctx);
  [[nodiscard]] bool active() const { return active_; }

  void begin_location();
  void on_blocking_send(ScanContext &ctx, trace::EventIndex send, const Call &call);
  void on_receive(ScanContext &ctx, trace::EventIndex receive, const Call &call);

private:
  struct LastSend {
    trace::EventIndex send = trace::kNoEvent;
    Call call;
  };
  bool active_ = false;
  std::vector<LastSend> last_send_; // per partner location
  std::vector<std::uint32_t> touched_;
};

} // namespace parjava::analysis
