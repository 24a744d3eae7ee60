#include "point_to_point_pass.hpp"

#include "close_send_recv.hpp"
#include "late_receiver.hpp"
#include "late_sender.hpp"
#include "parjava_blocking.hpp"
#include "parjava_nonblocking.hpp"

namespace parjava::analysis {

using trace::EventIndex;
using trace::EventKind;
using trace::kNoEvent;

namespace {

class PointToPointPass {
public:
  explicit PointToPointPass(ScanContext &ctx)
      : ctx_(ctx), late_sender_(ctx), late_receiver_(ctx), blocking_(ctx), nonblocking_(ctx),
        close_(ctx), locks_on_(ctx.enabled(PatternId::LockContention)) {}

  [[nodiscard]] bool active() const {
    return late_sender_.active() || late_receiver_.active() || blocking_.active() ||
           nonblocking_.active() || close_.active() || locks_on_;
  }

  std::uint64_t run(std::vector<LockEvent> &locks) {
    std::uint64_t visited = 0;
    for (std::uint32_t loc = 0; loc < ctx_.trace.location_count(); ++loc) {
      const EventIndex begin = ctx_.trace.location_begin(loc);
      const EventIndex end = ctx_.trace.location_end(loc);
      visited += static_cast<std::uint64_t>(end - begin);
      scan_location(begin, end, locks);
    }
    return visited;
  }

private:
  void end_call(EventIndex enter) {
    const bool had_late_sender = late_sender_.end_call(ctx_, enter);
    late_receiver_.end_call(ctx_, enter, had_late_sender);
    nonblocking_.end_call(ctx_, enter);
  }

  void scan_location(EventIndex begin, EventIndex end, std::vector<LockEvent> &locks) {
    const auto &ev = ctx_.ev;
    stack_.clear();
    late_sender_.begin_location();
    late_receiver_.begin_location();
    blocking_.begin_location();
    nonblocking_.begin_location();
    close_.begin_location();
    for (EventIndex e = begin; e < end; ++e) {
      const auto u = static_cast<std::size_t>(e);
      switch (ev.kind[u]) {
      case EventKind::Enter:
        stack_.push_back(e);
        break;
      case EventKind::Leave:
        leave(ev.match[u]);
        break;
      case EventKind::Send:
        if (!stack_.empty()) {
          const Call call = ctx_.call_from_enter(stack_.back());
          if (late_receiver_.active()) {
            late_receiver_.on_blocking_send(ctx_, e, call);
          }
          if (close_.active()) {
            close_.on_blocking_send(ctx_, e, call);
          }
        }
        break;
      case EventKind::Recv:
        if (!stack_.empty()) {
          const Call call = ctx_.call_from_enter(stack_.back());
          if (close_.active()) {
            close_.on_receive(ctx_, e, call); // before B9 pairing changes nothing it reads
          }
          if (blocking_.active()) {
            blocking_.on_receive(ctx_, e, call);
          }
          if (late_sender_.active()) {
            late_sender_.on_receive(ctx_, e, call);
          }
        }
        break;
      case EventKind::IrecvComplete:
        if (!stack_.empty()) {
          const Call call = ctx_.call_from_enter(stack_.back());
          if (late_sender_.active()) {
            late_sender_.on_receive(ctx_, e, call);
          }
          if (nonblocking_.active()) {
            nonblocking_.on_receive_complete(ctx_, e, call);
          }
        }
        break;
      case EventKind::IsendComplete:
        if (!stack_.empty()) {
          const Call call = ctx_.call_from_enter(stack_.back());
          if (late_receiver_.active()) {
            late_receiver_.on_send_complete(ctx_, e, call);
          }
          if (nonblocking_.active()) {
            nonblocking_.on_send_complete(ctx_, e, call);
          }
        }
        break;
      case EventKind::LockAcquire:
      case EventKind::LockRelease:
        if (locks_on_) {
          locks.push_back(
              {ev.aux[u], ev.peer[u], ev.time[u], e, ev.kind[u] == EventKind::LockAcquire});
        }
        break;
      default:
        break;
      }
    }
    // Calls never left (the program was killed): end them innermost first.
    while (!stack_.empty()) {
      end_call(stack_.back());
      stack_.pop_back();
    }
    late_sender_.end_location(ctx_);
    late_receiver_.end_location(ctx_);
    nonblocking_.end_location(ctx_);
  }

  void leave(EventIndex enter) {
    if (enter == kNoEvent) {
      return; // a Leave without Enter: matching counted it, nothing to close
    }
    // Normally the top; a call left out of order (broken nesting) closes those above it.
    for (auto i = stack_.size(); i > 0; --i) {
      if (stack_[i - 1] == enter) {
        while (stack_.size() >= i) {
          end_call(stack_.back());
          stack_.pop_back();
        }
        return;
      }
    }
  }

  ScanContext &ctx_;
  LateSenderAnalysis late_sender_;
  LateReceiverAnalysis late_receiver_;
  ParjavaBlockingAnalysis blocking_;
  ParjavaNonblockingAnalysis nonblocking_;
  CloseSendRecvAnalysis close_;
  bool locks_on_ = false;
  std::vector<EventIndex> stack_;
};

} // namespace

std::uint64_t scan_point_to_point(ScanContext &ctx, std::vector<LockEvent> &locks) {
  PointToPointPass pass(ctx);
  if (!pass.active()) {
    return 0;
  }
  return pass.run(locks);
}

} // namespace parjava::analysis
