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
    current_ = Call{};
    late_sender_.begin_location();
    late_receiver_.begin_location();
    blocking_.begin_location();
    nonblocking_.begin_location();
    close_.begin_location();
    for (EventIndex e = begin; e < end; ++e) {
      if (e + 2 * kLookahead < end) {
        prefetch_first(e + 2 * kLookahead);
        prefetch_second(e + kLookahead);
      }
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
          const Call &call = current_call();
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
          const Call &call = current_call();
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
          const Call &call = current_call();
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
          const Call &call = current_call();
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

  // Partner events live on other locations, so reading them misses the cache; asking for them
  // ahead of time hides the latency (the loop itself reads its own location in order). Chains
  // of two links (a send completion -> its receive -> the receive's post) are fetched in two
  // steps: the first link at 2 * kLookahead, the second at kLookahead.
  static constexpr EventIndex kLookahead = 16;
  void prefetch_call_of(EventIndex event) const {
    const auto &ev = ctx_.ev;
    if (event > 0) {
      const auto p = static_cast<std::size_t>(event - 1); // the call's Enter, usually
      __builtin_prefetch(&ev.kind[p]);
      __builtin_prefetch(&ev.match[p]);
      __builtin_prefetch(&ev.time[p]);
    }
  }
  void prefetch_first(EventIndex ahead) const {
    const auto &ev = ctx_.ev;
    const auto u = static_cast<std::size_t>(ahead);
    switch (ev.kind[u]) {
    case EventKind::Recv:
    case EventKind::IrecvComplete:
    case EventKind::Send: {
      const EventIndex partner = ev.match[u];
      if (partner != kNoEvent) {
        prefetch_call_of(partner);
        __builtin_prefetch(&ev.region[static_cast<std::size_t>(partner)]);
      }
      break;
    }
    case EventKind::IsendComplete: {
      const EventIndex post = ev.link[u];
      if (post != kNoEvent) {
        const EventIndex receive = ev.match[static_cast<std::size_t>(post)];
        if (receive != kNoEvent) {
          __builtin_prefetch(&ev.link[static_cast<std::size_t>(receive)]);
          __builtin_prefetch(&ev.kind[static_cast<std::size_t>(receive)]);
        }
      }
      break;
    }
    default:
      break;
    }
  }
  void prefetch_second(EventIndex ahead) const {
    const auto &ev = ctx_.ev;
    const auto u = static_cast<std::size_t>(ahead);
    if (ev.kind[u] != EventKind::IsendComplete) {
      return;
    }
    const EventIndex post = ev.link[u];
    if (post == kNoEvent) {
      return;
    }
    const EventIndex receive = ev.match[static_cast<std::size_t>(post)];
    if (receive == kNoEvent) {
      return;
    }
    const auto r = static_cast<std::size_t>(receive);
    const EventIndex request = ev.kind[r] == EventKind::IrecvComplete ? ev.link[r] : receive;
    if (request != kNoEvent) {
      prefetch_call_of(request);
    }
  }

  // The call on top of the stack, computed once for all the events inside it.
  const Call &current_call() {
    if (current_.enter != stack_.back()) {
      current_ = ctx_.call_from_enter(stack_.back());
    }
    return current_;
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
  Call current_;
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
