#include "parjava_blocking.hpp"

#include <algorithm>
#include <optional>

namespace parjava::analysis {

using trace::EventIndex;
using trace::EventKind;
using trace::Function;
using trace::kNoEvent;

namespace {

constexpr PatternId kLateAndEarly[] = {
    PatternId::EarlyStandardSend,   PatternId::LateStandardSend,     PatternId::LateBufferedSend,
    PatternId::LateSynchronousSend, PatternId::EarlySynchronousSend, PatternId::LateReadySend,
    PatternId::EarlyReadySend};

} // namespace

ParjavaBlockingAnalysis::ParjavaBlockingAnalysis(const ScanContext &ctx) {
  for (const auto id : kLateAndEarly) {
    active_ = active_ || ctx.enabled(id);
  }
  wrong_order_active_ =
      ctx.enabled(PatternId::WrongOrderSend) || ctx.enabled(PatternId::WrongOrderBsend);
  active_ = active_ || wrong_order_active_;
  if (wrong_order_active_) {
    previous_send_.resize(ctx.trace.location_count());
    previous_bsend_.resize(ctx.trace.location_count());
  }
}

void ParjavaBlockingAnalysis::begin_location() {
  for (const auto sender : touched_) {
    previous_send_[sender] = Previous{};
    previous_bsend_[sender] = Previous{};
  }
  touched_.clear();
}

void ParjavaBlockingAnalysis::late_or_early(ScanContext &ctx, EventIndex receive,
                                            const Call &receive_call, EventIndex send,
                                            const Call &send_call, bool eager) {
  PatternId late = PatternId::Count_;
  std::optional<PatternId> early;
  switch (send_call.function) {
  case Function::MPI_Send:
    late = PatternId::LateStandardSend;
    if (!eager) {
      early = PatternId::EarlyStandardSend; // B1 is excluded under the eager protocol
    }
    break;
  case Function::MPI_Bsend:
    late = PatternId::LateBufferedSend; // B4 (early Bsend) idles nowhere
    break;
  case Function::MPI_Ssend:
    late = PatternId::LateSynchronousSend;
    early = PatternId::EarlySynchronousSend;
    break;
  case Function::MPI_Rsend:
    late = PatternId::LateReadySend;
    if (!eager) {
      early = PatternId::EarlyReadySend; // B8 case (b): rendezvous above the constant
    }
    break;
  default:
    return;
  }
  const auto bytes = ctx.ev.bytes[static_cast<std::size_t>(send)];
  const std::uint16_t flags = eager ? kEager : 0;
  if (send_call.start > receive_call.start) {
    // The receiver idled from its start until the send started (capped at its own end).
    const auto lost = std::min(send_call.start, receive_call.end) - receive_call.start;
    if (ctx.enabled(late) && ctx.reaches_eps(lost)) {
      Finding f;
      f.pattern = late;
      f.time = receive_call.start;
      f.idle = lost;
      f.event = receive;
      f.peer_event = send;
      f.location = ctx.location_of_far(receive);
      f.peer_location = ctx.location_of_far(send);
      f.callsite = receive_call.callsite;
      f.region = receive_call.region;
      f.bytes = bytes;
      f.flags = flags;
      ctx.emit(f);
    }
  } else if (early && receive_call.start > send_call.start) {
    const auto lost = std::min(receive_call.start, send_call.end) - send_call.start;
    if (ctx.enabled(*early) && ctx.reaches_eps(lost)) {
      Finding f;
      f.pattern = *early;
      f.time = send_call.start;
      f.idle = lost;
      f.event = send;
      f.peer_event = receive;
      f.location = ctx.location_of_far(send);
      f.peer_location = ctx.location_of_far(receive);
      f.callsite = send_call.callsite;
      f.region = send_call.region;
      f.bytes = bytes;
      f.flags = flags;
      ctx.emit(f);
    }
  }
}

void ParjavaBlockingAnalysis::wrong_order(ScanContext &ctx, std::vector<Previous> &previous,
                                          PatternId id, EventIndex receive,
                                          const Call &receive_call, EventIndex send,
                                          const Call &send_call) {
  const auto sender = ctx.location_of_far(send);
  auto &prev = previous[sender];
  if (!prev.valid) {
    touched_.push_back(sender);
  }
  // This receive is Recv_0 (posted later) and prev.receive is Recv_1 (posted earlier) whose
  // Send_1 started after Send_0.
  if (prev.valid && prev.send_start > send_call.start &&
      prev.receive_call.start < receive_call.start && ctx.enabled(id)) {
    Finding f;
    f.pattern = id;
    f.time = prev.receive_call.start;
    f.idle = std::max<std::int64_t>(0, std::min(prev.send_start, prev.receive_call.end) -
                                           prev.receive_call.start);
    f.event = prev.receive;
    f.peer_event = prev.send;
    f.location = ctx.location_of_far(prev.receive);
    f.peer_location = sender;
    f.callsite = prev.receive_call.callsite;
    f.region = prev.receive_call.region;
    f.bytes = ctx.ev.bytes[static_cast<std::size_t>(prev.send)];
    f.flags = kEager;
    ctx.emit(f);
  }
  if (!prev.valid || send_call.start > prev.send_start) {
    prev = Previous{true, receive, send, receive_call, send_call.start};
  }
}

void ParjavaBlockingAnalysis::on_receive(ScanContext &ctx, EventIndex receive, const Call &call) {
  if (call.function != Function::MPI_Recv || !call.complete()) {
    return;
  }
  const EventIndex send = ctx.ev.match[static_cast<std::size_t>(receive)];
  if (send == kNoEvent || ctx.ev.kind[static_cast<std::size_t>(send)] != EventKind::Send) {
    return;
  }
  const Call send_call = ctx.call_of(send);
  if (!send_call.complete()) {
    return;
  }
  const bool eager = ctx.eager(ctx.ev.bytes[static_cast<std::size_t>(send)],
                               ctx.location_of_far(send), ctx.location_of_far(receive));
  late_or_early(ctx, receive, call, send, send_call, eager);
  if (!wrong_order_active_) {
    return;
  }
  if (send_call.function == Function::MPI_Send && eager) {
    wrong_order(ctx, previous_send_, PatternId::WrongOrderSend, receive, call, send, send_call);
  } else if (send_call.function == Function::MPI_Bsend) {
    wrong_order(ctx, previous_bsend_, PatternId::WrongOrderBsend, receive, call, send, send_call);
  }
}

} // namespace parjava::analysis
