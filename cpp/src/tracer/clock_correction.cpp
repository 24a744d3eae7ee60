// Linear clock-drift correction (clock_correction.hpp).
#include "parjava/tracer/clock_correction.hpp"

#include <cmath>

namespace parjava::tracer {

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
