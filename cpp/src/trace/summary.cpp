// time_by_category(): one pass per location over its Enter/Leave nesting (notes 004 §5: the
// seven categories; category 7, user code, is everything outside the runtime's calls).
#include "parjava/trace/summary.hpp"

#include <cstddef>
#include <iterator>
#include <utility>

namespace parjava::trace {

std::vector<CategoryTimes> time_by_category(const Trace &trace) {
  const auto &e = trace.events;
  std::vector<CategoryTimes> result(trace.location_count(), CategoryTimes{});
  // Per open Enter: the category that applies inside it.
  std::vector<std::pair<EventIndex, Category>> open;
  for (std::uint32_t l = 0; l < trace.location_count(); ++l) {
    const auto begin = trace.location_begin(l);
    const auto end = trace.location_end(l);
    if (begin == end) {
      continue;
    }
    auto &times = result[l];
    open.clear();
    auto current = Category::UserCode;
    auto previous = e.time[static_cast<std::size_t>(begin)];
    for (auto i = begin; i < end; ++i) {
      const auto u = static_cast<std::size_t>(i);
      times[static_cast<std::size_t>(current) - 1] += e.time[u] - previous;
      previous = e.time[u];
      if (e.kind[u] == EventKind::Enter) {
        const auto r = e.region[u];
        const auto function = r < trace.regions.size() ? trace.regions[r].function : Function::None;
        // A runtime call sets its category; user code inside a runtime call (a callback)
        // keeps the call's.
        if (function != Function::None ||
            (r < trace.regions.size() && trace.regions[r].category != Category::UserCode)) {
          current = trace.regions[r].category;
        }
        open.emplace_back(i, current);
      } else if (e.kind[u] == EventKind::Leave && e.match[u] != kNoEvent) {
        for (auto it = open.rbegin(); it != open.rend(); ++it) {
          if (it->first == e.match[u]) {
            open.erase(std::next(it).base());
            break;
          }
        }
        current = open.empty() ? Category::UserCode : open.back().second;
      }
    }
  }
  return result;
}

} // namespace parjava::trace
