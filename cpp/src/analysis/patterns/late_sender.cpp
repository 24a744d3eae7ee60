#include "late_sender.hpp"

#include <algorithm>
#include <limits>

namespace parjava::analysis {

using trace::EventIndex;
using trace::Function;
using trace::kNoEvent;

LateSenderAnalysis::LateSenderAnalysis(const ScanContext &ctx)
    : report_late_sender_(ctx.enabled(PatternId::LateSender)),
      report_same_(ctx.enabled(PatternId::LateSenderWrongOrderSame)),
      report_different_(ctx.enabled(PatternId::LateSenderWrongOrderDifferent)),
      window_(ctx.options.wrong_order_window) {
  active_ = report_late_sender_ || report_same_ || report_different_;
}

void LateSenderAnalysis::begin_location() {
  buffer_.clear();
  pending_enter_ = kNoEvent;
}

void LateSenderAnalysis::record(ScanContext &ctx, const Instance &instance) {
  if (report_late_sender_ && ctx.reaches_eps(instance.idle)) {
    Finding f;
    f.pattern = PatternId::LateSender;
    f.time = instance.call.start;
    f.idle = instance.idle;
    f.event = instance.receive;
    f.peer_event = instance.send;
    f.location = ctx.location_of(instance.receive);
    f.peer_location = ctx.location_of_far(instance.send);
    f.callsite = instance.call.callsite;
    f.region = instance.call.region;
    f.bytes = ctx.ev.bytes[static_cast<std::size_t>(instance.receive)];
    ctx.emit(f);
  }
  if (report_same_ || report_different_) {
    if (buffer_.size() == window_) {
      buffer_.pop_front();
    }
    latest_send_time_ =
        buffer_.empty() ? instance.send_time : std::max(latest_send_time_, instance.send_time);
    buffer_.push_back(instance);
  }
}

void LateSenderAnalysis::check_wrong_order(ScanContext &ctx, EventIndex receive, EventIndex send) {
  const auto current_send_time = ctx.time(send);
  if (buffer_.empty() || latest_send_time_ <= current_send_time) {
    return;
  }
  const auto current_source = ctx.ev.peer[static_cast<std::size_t>(receive)];
  auto keep = buffer_.begin();
  for (auto it = buffer_.begin(); it != buffer_.end(); ++it) {
    if (it->send_time > current_send_time) {
      const bool same = ctx.ev.peer[static_cast<std::size_t>(it->receive)] == current_source;
      const auto id =
          same ? PatternId::LateSenderWrongOrderSame : PatternId::LateSenderWrongOrderDifferent;
      if (ctx.enabled(id) && ctx.reaches_eps(it->idle)) {
        Finding f;
        f.pattern = id;
        f.time = it->call.start;
        f.idle = it->idle;
        f.event = it->receive;
        f.peer_event = it->send;
        f.location = ctx.location_of(it->receive);
        f.peer_location = ctx.location_of_far(it->send);
        f.callsite = it->call.callsite;
        f.region = it->call.region;
        f.bytes = ctx.ev.bytes[static_cast<std::size_t>(it->receive)];
        ctx.emit(f);
      }
      continue; // classified once: leaves the buffer
    }
    if (keep != it) {
      *keep = *it;
    }
    ++keep;
  }
  buffer_.erase(keep, buffer_.end());
  latest_send_time_ = std::numeric_limits<trace::Timestamp>::min();
  for (const auto &instance : buffer_) {
    latest_send_time_ = std::max(latest_send_time_, instance.send_time);
  }
}

void LateSenderAnalysis::on_receive(ScanContext &ctx, EventIndex receive, const Call &call) {
  const EventIndex send = ctx.ev.match[static_cast<std::size_t>(receive)];
  if (send == kNoEvent || call.function == Function::None) {
    return; // unmatched, or outside an MPI call (Scalasca ignores both)
  }
  const bool test = call.function == Function::MPI_Test || call.function == Function::MPI_Testany ||
                    call.function == Function::MPI_Testall ||
                    call.function == Function::MPI_Testsome;
  if (!test) {
    trace::Timestamp send_start = 0;
    if (ctx.call_start_of(send, send_start)) {
      const auto idle = std::min(send_start, call.end) - call.start;
      if (idle > 0) {
        const Instance instance{receive, send, ctx.time(send), idle, call};
        if (is_multi_completion(call.function)) {
          if (pending_enter_ != call.enter) {
            pending_enter_ = call.enter;
            pending_best_ = instance;
          } else if (idle > pending_best_.idle) {
            pending_best_ = instance;
          }
        } else {
          record(ctx, instance);
        }
      }
    }
  }
  if (report_same_ || report_different_) {
    check_wrong_order(ctx, receive, send);
  }
}

bool LateSenderAnalysis::end_call(ScanContext &ctx, EventIndex enter) {
  if (pending_enter_ != enter) {
    return false;
  }
  pending_enter_ = kNoEvent;
  record(ctx, pending_best_);
  return true;
}

void LateSenderAnalysis::end_location(ScanContext &ctx) {
  if (pending_enter_ != kNoEvent) {
    end_call(ctx, pending_enter_);
  }
}

} // namespace parjava::analysis
