#include "parjava/analysis/profile/profile.hpp"

#include <algorithm>

namespace parjava::analysis {

using trace::EventIndex;
using trace::EventKind;
using trace::Timestamp;

Profile profile(const trace::Trace &t) {
  Profile p;
  p.regions = static_cast<std::uint32_t>(t.regions.size());
  p.locations = static_cast<std::uint32_t>(t.locations.size());
  const std::size_t cells = static_cast<std::size_t>(p.locations) * (p.regions + 1);
  p.exclusive.assign(cells, 0);
  p.inclusive.assign(cells, 0);
  p.visits.assign(cells, 0);
  p.begin.assign(p.locations, 0);
  p.end.assign(p.locations, 0);
  const auto &ev = t.events;
  struct Frame {
    std::uint32_t region;
    Timestamp enter;
  };
  std::vector<Frame> stack;
  std::vector<std::uint32_t> open(p.regions, 0); // instances of each region on the stack
  for (std::uint32_t l = 0; l < p.locations; ++l) {
    const EventIndex first = t.location_begin(l);
    const EventIndex last = t.location_end(l);
    if (first == last) {
      continue;
    }
    p.begin[l] = ev.time[static_cast<std::size_t>(first)];
    p.end[l] = ev.time[static_cast<std::size_t>(last - 1)];
    const std::size_t row = static_cast<std::size_t>(l) * (p.regions + 1);
    stack.clear();
    Timestamp cursor = p.begin[l];
    const auto advance = [&](Timestamp now) {
      const std::uint32_t inner = stack.empty() ? p.regions : stack.back().region;
      p.exclusive[row + inner] += now - cursor;
      cursor = now;
    };
    const auto pop = [&](Timestamp now) {
      const Frame f = stack.back();
      stack.pop_back();
      if (--open[f.region] == 0) {
        p.inclusive[row + f.region] += now - f.enter;
      }
    };
    for (EventIndex e = first; e < last; ++e) {
      const auto i = static_cast<std::size_t>(e);
      const EventKind k = ev.kind[i];
      if (k != EventKind::Enter && k != EventKind::Leave) {
        continue;
      }
      const std::uint32_t region = ev.region[i];
      if (region >= p.regions) {
        continue;
      }
      advance(ev.time[i]);
      if (k == EventKind::Enter) {
        stack.push_back({region, ev.time[i]});
        ++open[region];
        ++p.visits[row + region];
      } else if (!stack.empty() && ev.match[i] != trace::kNoEvent) {
        // Leaves without their Enter (counted by matching) change nothing.
        pop(ev.time[i]);
      }
    }
    advance(p.end[l]);
    while (!stack.empty()) {
      pop(p.end[l]);
    }
  }
  return p;
}

WindowTimes window_times(const trace::Trace &t, Timestamp begin, Timestamp end) {
  WindowTimes w;
  const auto n = t.locations.size();
  w.computation.assign(n, 0);
  w.communication.assign(n, 0);
  std::vector<std::uint8_t> runtime(t.regions.size(), 0);
  for (std::size_t r = 0; r < t.regions.size(); ++r) {
    const auto &region = t.regions[r];
    runtime[r] = region.function != trace::Function::None ||
                 region.paradigm == trace::Paradigm::Mpi ||
                 region.paradigm == trace::Paradigm::Shmem;
  }
  const auto &ev = t.events;
  const auto clipped = [&](Timestamp a, Timestamp b) {
    return std::max<Timestamp>(0, std::min(b, end) - std::max(a, begin));
  };
  for (std::uint32_t l = 0; l < n; ++l) {
    const EventIndex first = t.location_begin(l);
    const EventIndex last = t.location_end(l);
    if (first == last) {
      continue;
    }
    const Timestamp lb = ev.time[static_cast<std::size_t>(first)];
    const Timestamp le = ev.time[static_cast<std::size_t>(last - 1)];
    std::uint32_t depth = 0;
    Timestamp opened = 0;
    std::int64_t inside = 0;
    for (EventIndex e = first; e < last; ++e) {
      const auto i = static_cast<std::size_t>(e);
      const EventKind k = ev.kind[i];
      if ((k != EventKind::Enter && k != EventKind::Leave) || ev.region[i] >= runtime.size() ||
          runtime[ev.region[i]] == 0) {
        continue;
      }
      if (k == EventKind::Enter) {
        if (depth++ == 0) {
          opened = ev.time[i];
        }
      } else if (depth > 0 && --depth == 0) {
        inside += clipped(opened, ev.time[i]);
      }
    }
    if (depth > 0) {
      inside += clipped(opened, le);
    }
    w.communication[l] = inside;
    w.computation[l] = clipped(lb, le) - inside;
  }
  return w;
}

} // namespace parjava::analysis
