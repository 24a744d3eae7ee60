#include "parjava_nonblocking.hpp"

namespace parjava::analysis {

using trace::EventIndex;
using trace::EventKind;
using trace::Function;
using trace::kNoEvent;

namespace {

std::optional<PatternId> sender_pattern(Function isend) {
  switch (isend) {
  case Function::MPI_Isend:
    return PatternId::IsendSenderWait;
  case Function::MPI_Issend:
    return PatternId::IssendSenderWait;
  case Function::MPI_Irsend:
    return PatternId::IrsendSenderWait;
  default:
    return std::nullopt; // MPI_Ibsend: N3 never occurs
  }
}

std::optional<PatternId> receiver_pattern(Function isend) {
  switch (isend) {
  case Function::MPI_Isend:
    return PatternId::IsendReceiverWait;
  case Function::MPI_Ibsend:
    return PatternId::IbsendReceiverWait;
  case Function::MPI_Issend:
    return PatternId::IssendReceiverWait;
  case Function::MPI_Irsend:
    return PatternId::IrsendReceiverWait;
  default:
    return std::nullopt;
  }
}

} // namespace

ParjavaNonblockingAnalysis::ParjavaNonblockingAnalysis(const ScanContext &ctx) {
  for (const auto id :
       {PatternId::IsendSenderWait, PatternId::IsendReceiverWait, PatternId::IbsendReceiverWait,
        PatternId::IssendSenderWait, PatternId::IssendReceiverWait, PatternId::IrsendSenderWait,
        PatternId::IrsendReceiverWait}) {
    active_ = active_ || ctx.enabled(id);
  }
}

void ParjavaNonblockingAnalysis::begin_location() {
  pending_enter_ = kNoEvent;
  sender_side_ = Candidate{};
  receiver_side_ = Candidate{};
}

void ParjavaNonblockingAnalysis::offer(Candidate &slot, const Candidate &candidate) {
  if (!slot.valid || candidate.key > slot.key) {
    slot = candidate;
  }
}

void ParjavaNonblockingAnalysis::on_send_complete(ScanContext &ctx, EventIndex completion,
                                                  const Call &call) {
  if (!is_wait(call.function) || !call.complete()) {
    return;
  }
  const EventIndex post = ctx.ev.link[static_cast<std::size_t>(completion)];
  if (post == kNoEvent) {
    return;
  }
  // Matching gives the IsendPost the region of its call: the I*send function, no lookup.
  const auto pattern =
      sender_pattern(ctx.function_of_region(ctx.ev.region[static_cast<std::size_t>(post)]));
  if (!pattern || !ctx.enabled(*pattern)) {
    return;
  }
  const EventIndex receive = ctx.ev.match[static_cast<std::size_t>(post)];
  if (receive == kNoEvent ||
      ctx.ev.kind[static_cast<std::size_t>(receive)] != EventKind::IrecvComplete) {
    return; // the partner is not an MPI_Irecv
  }
  Candidate c;
  c.valid = true;
  c.pattern = *pattern;
  c.completion = completion;
  c.send_post = post;
  c.irecv_post = ctx.ev.link[static_cast<std::size_t>(receive)];
  c.partner = c.irecv_post;
  c.sender = ctx.location_of_far(post);
  c.receiver = ctx.location_of_far(receive);
  c.bytes = ctx.ev.bytes[static_cast<std::size_t>(post)];
  if (c.irecv_post == kNoEvent || !ctx.call_start_of(c.irecv_post, c.key)) {
    return;
  }
  if (*pattern == PatternId::IrsendSenderWait && ctx.eager(c.bytes, c.sender, c.receiver)) {
    return; // N7 only above the eager limit
  }
  if (pending_enter_ != call.enter) {
    end_call(ctx, pending_enter_);
    pending_enter_ = call.enter;
    pending_call_ = call;
  }
  offer(sender_side_, c);
}

void ParjavaNonblockingAnalysis::on_receive_complete(ScanContext &ctx, EventIndex completion,
                                                     const Call &call) {
  if (!is_wait(call.function) || !call.complete()) {
    return;
  }
  const EventIndex irecv_post = ctx.ev.link[static_cast<std::size_t>(completion)];
  const EventIndex send = ctx.ev.match[static_cast<std::size_t>(completion)];
  if (irecv_post == kNoEvent || send == kNoEvent ||
      ctx.ev.kind[static_cast<std::size_t>(send)] != EventKind::IsendPost) {
    return;
  }
  const auto pattern =
      receiver_pattern(ctx.function_of_region(ctx.ev.region[static_cast<std::size_t>(send)]));
  if (!pattern || !ctx.enabled(*pattern)) {
    return;
  }
  Candidate c;
  c.valid = true;
  c.pattern = *pattern;
  c.completion = completion;
  c.partner = send;
  c.send_post = send;
  c.irecv_post = irecv_post;
  c.sender = ctx.location_of_far(send);
  c.receiver = ctx.location_of_far(completion);
  c.bytes = ctx.ev.bytes[static_cast<std::size_t>(completion)];
  if (!ctx.call_start_of(send, c.key)) {
    return;
  }
  if (pending_enter_ != call.enter) {
    end_call(ctx, pending_enter_);
    pending_enter_ = call.enter;
    pending_call_ = call;
  }
  offer(receiver_side_, c);
}

void ParjavaNonblockingAnalysis::report(ScanContext &ctx, const Candidate &c, const Call &wait,
                                        bool sender_side) {
  const auto lost = wait.duration();
  if (!ctx.reaches_eps(lost)) {
    return;
  }
  // The partner's I-call start is the candidate's key; only the local I-call is looked up.
  trace::Timestamp local_start = 0;
  trace::Timestamp local_end = 0;
  if (!ctx.span_of(sender_side ? c.send_post : c.irecv_post, local_start, local_end)) {
    return;
  }
  const auto transfer = ctx.transfer_time(c.bytes, c.sender, c.receiver);
  const std::int64_t t_send = transfer < 0 ? 0 : transfer;
  const auto x = sender_side ? local_start : c.key;
  const auto irecv = sender_side ? c.key : local_start;
  const auto delta_i = local_end - local_start; // ΔT_i: the I-call on this side
  std::int64_t distance = 0;
  if (sender_side) {
    distance = (x > irecv ? 0 : irecv - x) + delta_i + t_send;
  } else {
    distance = (x < irecv ? 0 : x - irecv) + delta_i + t_send;
  }
  Finding f;
  f.pattern = c.pattern;
  f.time = wait.start;
  f.idle = lost;
  f.optimal_distance = distance;
  f.event = c.completion;
  f.peer_event = c.partner;
  f.location = sender_side ? c.sender : c.receiver;
  f.peer_location = sender_side ? c.receiver : c.sender;
  f.callsite = wait.callsite;
  f.region = wait.region;
  f.bytes = c.bytes;
  f.flags = static_cast<std::uint16_t>((transfer < 0 ? kNoTransferTime : 0) |
                                       (ctx.eager(c.bytes, c.sender, c.receiver) ? kEager : 0));
  ctx.emit(f);
}

void ParjavaNonblockingAnalysis::end_call(ScanContext &ctx, EventIndex enter) {
  if (enter == kNoEvent || pending_enter_ != enter) {
    return;
  }
  if (receiver_side_.valid) {
    report(ctx, receiver_side_, pending_call_, false);
  } else if (sender_side_.valid) {
    report(ctx, sender_side_, pending_call_, true);
  }
  pending_enter_ = kNoEvent;
  sender_side_ = Candidate{};
  receiver_side_ = Candidate{};
}

void ParjavaNonblockingAnalysis::end_location(ScanContext &ctx) { end_call(ctx, pending_enter_); }

} // namespace parjava::analysis
