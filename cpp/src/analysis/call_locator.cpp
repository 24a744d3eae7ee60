#include "call_locator.hpp"

namespace parjava::analysis {

using trace::EventIndex;
using trace::EventKind;
using trace::kNoEvent;

CallLocator::CallLocator(const trace::Trace &trace)
    : trace_(trace), cache_(trace.location_count()) {}

EventIndex CallLocator::walk_back(EventIndex e) const {
  const auto &ev = trace_.events;
  const auto loc = ev.location[static_cast<std::size_t>(e)];
  const EventIndex begin = trace_.location_begin(loc);
  EventIndex i = e - 1;
  while (i >= begin) {
    const auto u = static_cast<std::size_t>(i);
    const auto kind = ev.kind[u];
    if (kind == EventKind::Enter) {
      const EventIndex leave = ev.match[u];
      if (leave == kNoEvent || leave > e) {
        return i;
      }
      --i;
    } else if (kind == EventKind::Leave) {
      const EventIndex enter = ev.match[u];
      i = (enter != kNoEvent && enter < i) ? enter - 1 : i - 1;
    } else {
      --i;
    }
  }
  return kNoEvent;
}

EventIndex CallLocator::enclosing_enter(EventIndex e) {
  const auto &ev = trace_.events;
  auto &cache = cache_[ev.location[static_cast<std::size_t>(e)]];
  EventIndex result = kNoEvent;
  // Continue from the previous answer when it is close behind: a long forward scan would cost
  // more than walking back.
  if (cache.enter != kNoEvent && cache.query < e && e - cache.query <= 64) {
    const EventIndex leave = ev.match[static_cast<std::size_t>(cache.enter)];
    if (leave == kNoEvent || leave > e) {
      // The cached call still encloses e; a deeper call opened after the previous query and
      // still open at e would be inside it.
      result = cache.enter;
      for (EventIndex i = cache.query + 1; i < e; ++i) {
        const auto u = static_cast<std::size_t>(i);
        if (ev.kind[u] == EventKind::Enter && (ev.match[u] == kNoEvent || ev.match[u] > e)) {
          result = i;
        }
      }
    }
  }
  if (result == kNoEvent) {
    result = walk_back(e);
  }
  cache = {e, result};
  return result;
}

} // namespace parjava::analysis
