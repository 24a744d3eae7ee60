#include "lock_contention.hpp"

#include <algorithm>
#include <tuple>

namespace parjava::analysis {

void scan_lock_contention(ScanContext &ctx, std::vector<LockEvent> &locks) {
  if (!ctx.enabled(PatternId::LockContention) || locks.empty()) {
    return;
  }
  // Order each lock's status changes in time; at equal times a release precedes an acquire
  // (the holder let go, then the waiter got it), then trace order.
  std::sort(locks.begin(), locks.end(), [](const LockEvent &a, const LockEvent &b) {
    return std::make_tuple(a.lock, a.owner, a.time, a.acquire, a.event) <
           std::make_tuple(b.lock, b.owner, b.time, b.acquire, b.event);
  });
  for (std::size_t i = 1; i < locks.size(); ++i) {
    const auto &a = locks[i];
    const auto &r = locks[i - 1];
    if (!a.acquire || r.acquire || r.lock != a.lock || r.owner != a.owner) {
      continue; // lockptr must be a release of the same lock
    }
    const Call call = ctx.call_of(a.event);
    if (!call.valid() || call.start >= r.time) {
      continue;
    }
    const auto wasted = r.time - call.start;
    if (!ctx.reaches_eps(wasted)) {
      continue;
    }
    Finding f;
    f.pattern = PatternId::LockContention;
    f.time = call.start;
    f.idle = wasted;
    f.event = a.event;
    f.peer_event = r.event;
    f.location = ctx.location_of_far(a.event);
    f.peer_location = ctx.location_of_far(r.event);
    f.callsite = call.callsite;
    f.region = call.region;
    ctx.emit(f);
  }
}

} // namespace parjava::analysis
