#include "close_send_recv.hpp"

#include <algorithm>

namespace parjava::analysis {

using trace::EventIndex;
using trace::Function;
using trace::kNoEvent;

CloseSendRecvAnalysis::CloseSendRecvAnalysis(const ScanContext &ctx)
    : active_(ctx.enabled(PatternId::CloseSendRecv)) {
  if (active_) {
    last_send_.resize(ctx.trace.location_count());
  }
}

void CloseSendRecvAnalysis::begin_location() {
  for (const auto partner : touched_) {
    last_send_[partner] = LastSend{};
  }
  touched_.clear();
}

void CloseSendRecvAnalysis::on_blocking_send(ScanContext &ctx, EventIndex send, const Call &call) {
  const bool blocking_send =
      call.function == Function::MPI_Send || call.function == Function::MPI_Bsend ||
      call.function == Function::MPI_Ssend || call.function == Function::MPI_Rsend;
  const EventIndex receive = ctx.ev.match[static_cast<std::size_t>(send)];
  if (!blocking_send || !call.complete() || receive == kNoEvent) {
    return;
  }
  const auto partner = ctx.location_of_far(receive);
  if (last_send_[partner].send == kNoEvent) {
    touched_.push_back(partner);
  }
  last_send_[partner] = LastSend{send, call};
}

void CloseSendRecvAnalysis::on_receive(ScanContext &ctx, EventIndex receive, const Call &call) {
  const EventIndex send = ctx.ev.match[static_cast<std::size_t>(receive)];
  if (call.function != Function::MPI_Recv || !call.complete() || send == kNoEvent) {
    return;
  }
  auto &last = last_send_[ctx.location_of_far(send)];
  if (last.send == kNoEvent) {
    return;
  }
  const auto gap = call.start - last.call.end;
  const auto saving = std::min(last.call.duration(), call.duration()) + gap;
  if (gap >= 0 && gap < ctx.options.send_recv_delta && ctx.reaches_eps(saving)) {
    Finding f;
    f.pattern = PatternId::CloseSendRecv;
    f.time = last.call.start;
    f.idle = saving;
    f.event = last.send;
    f.peer_event = receive;
    f.location = ctx.location_of_far(receive);
    f.peer_location = ctx.location_of_far(send);
    f.callsite = last.call.callsite;
    f.region = last.call.region;
    f.bytes = ctx.ev.bytes[static_cast<std::size_t>(last.send)];
    ctx.emit(f);
  }
  last = LastSend{}; // each send pairs with the first receive from its partner
}

} // namespace parjava::analysis
