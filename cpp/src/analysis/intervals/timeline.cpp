// Timeline extraction (see timeline.hpp): one scan of each row's events inside the window.
#include "parjava/analysis/intervals/timeline.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>

#include "parjava/analysis/intervals/analyze_intervals.hpp"
#include "parjava/error.hpp"
#include "region_classes.hpp"

namespace parjava::analysis {
namespace {

using trace::EventIndex;
using trace::EventKind;
using trace::Timestamp;

constexpr int kScanBack = 4096; // how far back to look for a call that began before the window

struct Bar {
  Timestamp begin;
  Timestamp end;
  std::uint8_t category;
  std::uint32_t region;
};

std::uint8_t category_of(const trace::Trace &trace, std::uint32_t region) {
  const auto &r = trace.regions[region];
  return static_cast<std::uint8_t>(r.function == trace::Function::None ? trace::Category::Other
                                                                       : r.category);
}

// The runtime call enclosing the window start on a location, as a partial bar, if any.
bool call_across_start(const trace::Trace &trace, const std::vector<detail::RegionClass> &classes,
                       std::uint32_t location, EventIndex first_inside, Timestamp begin, Bar &bar) {
  const auto &ev = trace.events;
  const auto lower = std::max<EventIndex>(trace.location_begin(location), first_inside - kScanBack);
  for (auto j = first_inside - 1; j >= lower; --j) {
    const auto u = static_cast<std::size_t>(j);
    if (ev.kind[u] != EventKind::Enter || ev.region[u] >= classes.size() ||
        !classes[ev.region[u]].runtime_call) {
      continue;
    }
    const auto leave = ev.match[u];
    if (leave != trace::kNoEvent && leave < first_inside) {
      return false; // the latest call before the window ended before it
    }
    const auto leave_time =
        leave == trace::kNoEvent
            ? ev.time[static_cast<std::size_t>(trace.location_end(location) - 1)]
            : ev.time[static_cast<std::size_t>(leave)];
    bar = {begin, leave_time, category_of(trace, ev.region[u]), ev.region[u]};
    return leave_time > begin;
  }
  return false;
}

void add_bins(const std::vector<Bar> &bars, Timestamp begin, Timestamp end, std::uint32_t bins,
              std::uint32_t row, TimelineData &out) {
  const auto width = std::max<Timestamp>(1, (end - begin + bins - 1) / bins);
  const auto count = static_cast<std::size_t>((end - begin + width - 1) / width);
  std::vector<std::array<Timestamp, 7>> filled(count, std::array<Timestamp, 7>{});
  for (const auto &b : bars) {
    for (auto k = static_cast<std::size_t>((b.begin - begin) / width); k < count; ++k) {
      const auto lo = begin + static_cast<Timestamp>(k) * width;
      const auto hi = lo + width;
      if (lo >= b.end) {
        break;
      }
      filled[k][b.category] += std::min(hi, b.end) - std::max(lo, b.begin);
    }
  }
  std::uint8_t open_category = 0;
  for (std::size_t k = 0; k <= count; ++k) {
    std::uint8_t category = 0;
    if (k < count) {
      Timestamp mpi = 0;
      Timestamp best = 0;
      for (std::uint8_t c = 1; c <= 6; ++c) {
        mpi += filled[k][c];
        if (filled[k][c] > best) {
          best = filled[k][c];
          category = c;
        }
      }
      if (2 * mpi < width) {
        category = 0; // mostly user code: the row's background shows through
      }
    }
    if (category != open_category || k == count) {
      if (open_category != 0) {
        out.bar_end.back() = std::min(end, begin + static_cast<Timestamp>(k) * width);
      }
      if (category != 0) {
        out.bar_row.push_back(row);
        out.bar_begin.push_back(begin + static_cast<Timestamp>(k) * width);
        out.bar_end.push_back(0);
        out.bar_category.push_back(category);
        out.bar_region.push_back(trace::kNoRef);
      }
      open_category = category;
    }
  }
}

} // namespace

TimelineData extract_timeline(const trace::Trace &trace, const TimelineOptions &options) {
  if (options.begin >= options.end) {
    throw Error(ErrorKind::Usage, "timeline: the window is empty (begin " +
                                      std::to_string(options.begin) + " ns >= end " +
                                      std::to_string(options.end) + " ns)");
  }
  TimelineData out;
  out.rows = interval_processes(trace);
  if (out.rows.empty()) {
    throw Error(ErrorKind::Analysis, "timeline: the trace has no CPU location with events");
  }
  const auto &ev = trace.events;
  Timestamp first = std::numeric_limits<Timestamp>::max();
  Timestamp last = std::numeric_limits<Timestamp>::min();
  std::vector<std::uint32_t> row_of_location(trace.locations.size(), trace::kNoRef);
  for (std::uint32_t r = 0; r < out.rows.size(); ++r) {
    const auto l = out.rows[r].location;
    row_of_location[l] = r;
    first = std::min(first, ev.time[static_cast<std::size_t>(trace.location_begin(l))]);
    last = std::max(last, ev.time[static_cast<std::size_t>(trace.location_end(l) - 1)]);
  }
  out.begin = std::max(options.begin, first);
  out.end = std::min(options.end, last);
  if (out.end <= out.begin) {
    out.end = out.begin + 1;
  }

  const auto classes = detail::classify_regions(trace);
  std::vector<Bar> bars;
  struct Message {
    std::uint32_t from;
    std::uint32_t to;
    Timestamp send;
    Timestamp receive;
  };
  std::vector<Message> messages;
  for (std::uint32_t r = 0; r < out.rows.size(); ++r) {
    const auto l = out.rows[r].location;
    const auto lo = trace.location_begin(l);
    const auto hi = trace.location_end(l);
    out.row_begin.push_back(std::clamp(ev.time[static_cast<std::size_t>(lo)], out.begin, out.end));
    out.row_end.push_back(
        std::clamp(ev.time[static_cast<std::size_t>(hi - 1)], out.begin, out.end));
    const auto *times = ev.time.data();
    const auto start =
        static_cast<EventIndex>(std::lower_bound(times + lo, times + hi, out.begin) - times);
    bars.clear();
    Bar open{};
    int depth = 0;
    if (call_across_start(trace, classes, l, start, out.begin, open)) {
      depth = 1;
    }
    for (auto i = start; i < hi; ++i) {
      const auto u = static_cast<std::size_t>(i);
      const auto t = ev.time[u];
      if (t > out.end) {
        break;
      }
      const auto kind = ev.kind[u];
      const auto region = ev.region[u];
      const bool runtime = region < classes.size() && classes[region].runtime_call;
      if (kind == EventKind::Enter && runtime) {
        if (depth++ == 0) {
          open = {t, t, category_of(trace, region), region};
        }
      } else if (kind == EventKind::Leave && runtime && depth > 0) {
        if (--depth == 0) {
          open.end = t;
          bars.push_back(open);
        }
      } else if (kind == EventKind::Send || kind == EventKind::IsendPost) {
        const auto partner = ev.match[u];
        if (partner != trace::kNoEvent) {
          const auto to = row_of_location[ev.location[static_cast<std::size_t>(partner)]];
          if (to != trace::kNoRef) {
            messages.push_back({r, to, t, ev.time[static_cast<std::size_t>(partner)]});
          }
        }
      } else if (kind == EventKind::Recv || kind == EventKind::IrecvComplete) {
        // Sent before the window, received inside it.
        const auto partner = ev.match[u];
        if (partner != trace::kNoEvent && ev.time[static_cast<std::size_t>(partner)] < out.begin) {
          const auto from = row_of_location[ev.location[static_cast<std::size_t>(partner)]];
          if (from != trace::kNoRef) {
            messages.push_back({from, r, ev.time[static_cast<std::size_t>(partner)], t});
          }
        }
      }
    }
    if (depth > 0) {
      open.end = out.end; // a call still running at the window's end
      bars.push_back(open);
    }
    const bool binned = bars.size() > options.max_bars_per_row && options.max_bars_per_row > 0;
    out.row_binned.push_back(binned ? 1 : 0);
    if (binned) {
      add_bins(bars, out.begin, out.end, options.max_bars_per_row, r, out);
      continue;
    }
    for (const auto &b : bars) {
      out.bar_row.push_back(r);
      out.bar_begin.push_back(std::max(b.begin, out.begin));
      out.bar_end.push_back(std::min(b.end, out.end));
      out.bar_category.push_back(b.category);
      out.bar_region.push_back(b.region);
    }
  }

  out.messages_in_window = messages.size();
  const std::size_t stride =
      options.max_messages == 0
          ? messages.size() + 1
          : std::max<std::size_t>(1, (messages.size() + options.max_messages - 1) /
                                         options.max_messages);
  for (std::size_t k = 0; k < messages.size(); k += stride) {
    const auto &m = messages[k];
    out.message_from_row.push_back(m.from);
    out.message_to_row.push_back(m.to);
    out.message_send.push_back(m.send);
    out.message_receive.push_back(m.receive);
  }
  return out;
}

} // namespace parjava::analysis
