// Linear clock-drift correction (clock_correction.hpp).
#include "parjava/tracer/clock_correction.hpp"

#include <algorithm>
#include <cmath>

namespace parjava::tracer {

TickConverter::TickConverter(std::vector<std::pair<std::uint64_t, std::uint64_t>> anchors)
    : identity_(false), anchors_(std::move(anchors)) {
  std::sort(anchors_.begin(), anchors_.end());
  // One anchor per tick, and only anchors where both clocks advanced (a later anchor closer
  // than the clocks' resolution would make a segment of no length).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> kept;
  for (const auto &a : anchors_) {
    if (kept.empty() || (a.first > kept.back().first && a.second > kept.back().second)) {
      kept.push_back(a);
    }
  }
  anchors_ = std::move(kept);
}

TickConverter TickConverter::for_process(const ProcessFragment &process) {
  if (process.timer != "tsc") {
    return {};
  }
  return TickConverter(process.tick_anchors);
}

std::uint64_t TickConverter::to_ns(std::uint64_t ticks) const {
  if (identity_ || anchors_.size() < 2) {
    return ticks;
  }
  // The segment containing `ticks`, or the first / last one outside the anchors.
  auto hi = std::upper_bound(anchors_.begin(), anchors_.end(), ticks,
                             [](std::uint64_t t, const auto &a) { return t < a.first; });
  if (hi == anchors_.begin()) {
    ++hi;
  } else if (hi == anchors_.end()) {
    --hi;
  }
  const auto lo = hi - 1;
  const long double slope = static_cast<long double>(hi->second - lo->second) /
                            static_cast<long double>(hi->first - lo->first);
  const long double ns =
      static_cast<long double>(lo->second) +
      slope * (static_cast<long double>(ticks) - static_cast<long double>(lo->first));
  return ns <= 0 ? 0 : static_cast<std::uint64_t>(std::llround(ns));
}

std::string_view clock_mode_name(ClockMode mode) {
  switch (mode) {
  case ClockMode::Linear:
    return "linear";
  case ClockMode::Offset:
    return "offset";
  case ClockMode::None:
    return "none";
  }
  return "none";
}

ClockCorrection::ClockCorrection(std::optional<ClockSample> first,
                                 std::optional<ClockSample> second) {
  if (!first) {
    return;
  }
  mode_ = ClockMode::Offset;
  t1_ = static_cast<double>(first->local);
  o1_ = static_cast<double>(first->offset);
  if (second && second->local > first->local) {
    mode_ = ClockMode::Linear;
    slope_ =
        (static_cast<double>(second->offset) - o1_) / (static_cast<double>(second->local) - t1_);
  }
}

std::int64_t ClockCorrection::to_reference(std::uint64_t local) const {
  const auto t = static_cast<double>(local);
  const double offset = o1_ + slope_ * (t - t1_);
  // Offsets are small next to the timestamps: correct in integers to keep ns precision.
  return static_cast<std::int64_t>(local) - static_cast<std::int64_t>(std::llround(offset));
}

} // namespace parjava::tracer
