#include "late_receiver.hpp"

namespace parjava::analysis {

using trace::EventIndex;
using trace::EventKind;
using trace::Function;
using trace::kNoEvent;

bool LateReceiverAnalysis::evaluate(ScanContext &ctx, EventIndex send, const Call &call,
                                    Candidate &out) {
  if (send == kNoEvent) {
    return false;
  }
  const EventIndex receive = ctx.ev.match[static_cast<std::size_t>(send)];
  if (receive == kNoEvent) {
    return false;
  }
  // Pr: the call holding the receive request (the receive itself for MPI_Recv/MPI_Sendrecv).
  EventIndex request = receive;
  if (ctx.ev.kind[static_cast<std::size_t>(receive)] == EventKind::IrecvComplete) {
    request = ctx.ev.link[static_cast<std::size_t>(receive)];
    if (request == kNoEvent) {
      return false;
    }
  }
  trace::Timestamp post_start = 0;
  if (!call.complete() || !ctx.call_start_of(request, post_start)) {
    return false;
  }
  out.idle = call.end <= post_start ? 0 : post_start - call.start;
  out.receive = receive;
  out.bytes = ctx.ev.bytes[static_cast<std::size_t>(send)];
  out.call = call;
  return out.idle > 0;
}

void LateReceiverAnalysis::report(ScanContext &ctx, const Candidate &candidate) {
  if (!ctx.reaches_eps(candidate.idle)) {
    return;
  }
  Finding f;
  f.pattern = PatternId::LateReceiver;
  f.time = candidate.call.start;
  f.idle = candidate.idle;
  f.event = candidate.anchor;
  f.peer_event = candidate.receive;
  f.location = ctx.location_of(candidate.anchor);
  f.peer_location = ctx.location_of_far(candidate.receive);
  f.callsite = candidate.call.callsite;
  f.region = candidate.call.region;
  f.bytes = candidate.bytes;
  ctx.emit(f);
}

void LateReceiverAnalysis::on_blocking_send(ScanContext &ctx, EventIndex send, const Call &call) {
  if (call.function != Function::MPI_Send && call.function != Function::MPI_Ssend) {
    return;
  }
  Candidate candidate;
  candidate.anchor = send;
  if (evaluate(ctx, send, call, candidate)) {
    report(ctx, candidate);
  }
}

void LateReceiverAnalysis::on_send_complete(ScanContext &ctx, EventIndex completion,
                                            const Call &call) {
  if (!is_wait(call.function)) {
    return; // MPI_Test* and anything else that does not block
  }
  Candidate candidate;
  candidate.anchor = completion;
  const EventIndex send = ctx.ev.link[static_cast<std::size_t>(completion)];
  const bool positive = evaluate(ctx, send, call, candidate);
  if (!is_multi_completion(call.function)) {
    if (positive) {
      report(ctx, candidate);
    }
    return;
  }
  if (pending_enter_ != call.enter) {
    pending_enter_ = call.enter;
    pending_best_ = Candidate{};
  }
  if (positive && candidate.idle > pending_best_.idle) {
    pending_best_ = candidate;
  }
}

void LateReceiverAnalysis::end_call(ScanContext &ctx, EventIndex enter, bool had_late_sender) {
  if (pending_enter_ != enter) {
    return;
  }
  pending_enter_ = kNoEvent;
  if (!had_late_sender && pending_best_.idle > 0) {
    report(ctx, pending_best_);
  }
}

void LateReceiverAnalysis::end_location(ScanContext &ctx) {
  if (pending_enter_ != kNoEvent) {
    end_call(ctx, pending_enter_, false);
  }
}

} // namespace parjava::analysis
